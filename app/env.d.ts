declare module "virtual:react-router/server-build" {
  import type { ServerBuild } from "react-router";
  export const assets: ServerBuild["assets"];
  export const assetsBuildDirectory: ServerBuild["assetsBuildDirectory"];
  export const basename: ServerBuild["basename"];
  export const entry: ServerBuild["entry"];
  export const future: ServerBuild["future"];
  export const isSpaMode: ServerBuild["isSpaMode"];
  export const publicPath: ServerBuild["publicPath"];
  export const routes: ServerBuild["routes"];
  export const ssr: ServerBuild["ssr"];
}

declare module "virtual:jumbe/client-words" {
  import type { ClientWords } from "~/.server/infrastructure/http/browser-words-build";
  /** The browser build's record of its chunks' message keys and their ids (decision 072); null without a browser build. */
  const words: ClientWords | null;
  export default words;
}
