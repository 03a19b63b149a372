// The product's words (app/messages/{en,sw,fr}.json) compiled by Paraglide JS into typed functions in
// app/paraglide/ (generated, not committed; decision 071). The Vite plugin compiles them for
// `npm run dev` and `react-router build`; `npm run messages` (run by `npm test`, the typecheck and the
// test runner's configuration) for everything that starts without Vite's plugins.
import { fileURLToPath } from "node:url";

/**
 * Paraglide's options, one place for the Vite plugin and the command.
 * @type {import("@inlang/paraglide-js").CompilerOptions}
 */
export const MESSAGES = {
  project: "./project.inlang",
  outdir: "./app/paraglide",
  // The locale is the request's (app/.server/infrastructure/http/locale.ts) on the server, and the
  // document's lang in the browser: Paraglide's own detection (URL, cookie, storage) is left out.
  strategy: ["baseLocale"],
  disableAsyncLocalStorage: true,
  emitGitIgnore: true,
  emitPrettierIgnore: true,
  emitReadme: false,
  includeEslintDisableComment: true,
  // One module a language, not one a message (decision 118): the server's build, the development
  // server, the test runner and the typecheck each read four files instead of thousands. The browser
  // never loads them: its build looks each message up by key (decision 072).
  outputStructure: "locale-modules",
};

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { compile } = await import("@inlang/paraglide-js");
  await compile(MESSAGES);
  // Their types as declarations, for the typecheck (decision 135).
  const { writeMessageTypes } = await import("./message-types.mjs");
  writeMessageTypes(MESSAGES.outdir);
  // The inlang SDK keeps a timer of its own alive for half a minute after the work is done.
  process.exit(0);
}
