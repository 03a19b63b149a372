import { reactRouter } from "@react-router/dev/vite";
import tailwindcss from "@tailwindcss/vite";
import { defineConfig, type Plugin } from "vite";
import type { ManualChunkMeta, RollupLog } from "rollup";
import { readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { iconImports } from "./scripts/icon-imports";
import { modulePreloadHelper } from "./scripts/module-preload";
import { precompressAssets } from "./app/.server/infrastructure/http/precompress";
import { routeMatchMemo } from "./app/.server/infrastructure/http/route-match-memo";
import { browserWords } from "./app/.server/infrastructure/http/browser-words-build";
import { MESSAGES } from "./scripts/messages.mjs";
import { compiledMessages } from "./scripts/messages-plugin";

// The browser build uses React Router's production files (its development files differ only in
// keeping dev warnings, which then cannot be dropped) and terser, whose output is about 5% smaller in
// gzip than esbuild's on React and the router (decision 061).
const ROUTER_PRODUCTION = path.resolve(import.meta.dirname, "node_modules/react-router/dist/production");
const productionRouter = [
  { find: /^react-router$/, replacement: `${ROUTER_PRODUCTION}/index.mjs` },
  { find: /^react-router\/dom$/, replacement: `${ROUTER_PRODUCTION}/dom-export.mjs` },
];

export default defineConfig(({ command, isSsrBuild }) => ({
  // server.ts is the server bundle's entry: Express, security headers, sandboxes and the React Router handler.
  build: {
    // The Meta sandbox's standalone process (sandbox/meta/standalone.ts) builds beside it: build/server/meta-sandbox.js,
    // Africa's Talking's (sandbox/africastalking/standalone.ts) too: build/server/africastalking-sandbox.js,
    // and so does the operators' command that makes the first administrator: build/server/admin-create.js (issue 74).
    ...(isSsrBuild
      ? {
          rollupOptions: {
            input: {
              index: "./server.ts",
              "meta-sandbox": "./sandbox/meta/standalone.ts",
              "africastalking-sandbox": "./sandbox/africastalking/standalone.ts",
              "admin-create": "./scripts/admin-create.ts",
            },
            onwarn: knownWarningsOnly({ server: true }),
          },
          target: "node20",
        }
      : {
          target: "es2022",
          minify: "terser",
          // Vite minifies the chunks in (cores - 1) worker threads, one on this 2-core machine, while
          // the main thread waits for them: one a core instead. Each chunk's output is the same (decision 132).
          terserOptions: { module: true, compress: { passes: 2 }, maxWorkers: os.availableParallelism() },
          rollupOptions: {
            output: { manualChunks: shellChunk },
            // Building a zod schema has no effect but its value: a page that takes a constant from a
            // schemas module (a limit, the words of a choice) then leaves zod out (decision 061).
            treeshake: { manualPureFunctions: ["z"] },
            onwarn: knownWarningsOnly({ server: false }),
          },
        }),
    // Page scripts imported with ?url must stay files: the CSP allows nonce'd scripts, never data: URLs.
    // So must the icon sprite: <use href> cannot point into a data: URL.
    assetsInlineLimit: (file: string) => (file.endsWith(".js") || file.endsWith("/icons.svg") ? false : undefined),
  },
  // The server build takes React Router in (one copy, with @react-router/express and /node that import
  // it), so its route matching can be memoised (decision 070). Only `react-router build` does this.
  ...(command === "build" && isSsrBuild ? { ssr: { noExternal: ["react-router", "@react-router/express", "@react-router/node"] } } : {}),
  resolve: {
    alias: [
      ...(command === "build" && !isSsrBuild ? productionRouter : []),
      { find: /^~\//, replacement: `${path.resolve(import.meta.dirname, "app")}/` },
      // The sandboxes from this checkout (as vitest.config.ts and tsconfig.json do), not wherever
      // node_modules/@jumbe/sandbox links to (a git worktree sharing another's node_modules).
      // Built only: the dev server keeps loading them as the package node (not Vite) runs.
      ...(command === "build" ? [{ find: /^@jumbe\/sandbox\//, replacement: `${path.resolve(import.meta.dirname, "sandbox")}/` }] : []),
      // Conform's zod coercion imports classic zod only for lazy/optional/pipe/transform; zod/mini has
      // the same functions without classic's side-effectful bundle (about 25 KB compressed saved).
      { find: /^zod\/v4$/, replacement: "zod/mini" },
    ],
  },
  // `npm run dev`: Vite pre-bundles the browser's dependencies once, at start. Without entries its scan
  // finds none (React Router's entry and routes are virtual to it), so the first page load discovers
  // them, re-bundles, and answers the modules already requested with 504 "Outdated Optimize Dep": the
  // page never hydrates. So the scan starts at the client entry and every route module. It crawls
  // them whole, server imports included; the native password hasher has no browser build to
  // pre-bundle (and never reaches the browser).
  // The browser tests give `npm run dev` an empty cache of its own (VITE_CACHE_DIR), so every run
  // starts as a fresh clone does.
  cacheDir: process.env.VITE_CACHE_DIR || "node_modules/.vite",
  optimizeDeps: {
    entries: ["app/root.tsx", "app/routes/**/*.tsx", "!app/**/*.test.tsx"],
    exclude: ["@node-rs/argon2"],
  },
  plugins: [
    browserLocaleRuntime(),
    browserWords({
      messagesDir: path.resolve(import.meta.dirname, "app/paraglide/messages"),
      wordsModule: path.resolve(import.meta.dirname, "app/lib/words.client.ts"),
    }),
    // One module a language (scripts/messages.mjs, decision 118); the browser's words are looked up by key (decision 072).
    // Compiled once a process, without the inlang SDK's database (decision 132).
    compiledMessages(MESSAGES),
    tailwindcss(),
    reactRouter(),
    precompressAssets(),
    serverEntryNames(),
    resourceRoutesHaveNoClientCode(),
    routeMatchMemo(),
    // Each browser chunk makes the icons it draws; the list of every icon stays out of the shell (decision 116).
    iconImports({ iconsFile: path.resolve(import.meta.dirname, "app/components/ui/icons.tsx") }),
    // Vite's preload helper less what this build never uses (decision 116).
    modulePreloadHelper(),
  ],
}));

const APP_DIR = `${path.resolve(import.meta.dirname, "app")}/`;
// Rollup puts "[plugin vite:reporter] " before a plugin's message.
const LAZY_NOTE = /\(!\) (\S+) is dynamically imported by (.+) but also statically imported by /;

/**
 * The build's warnings, less two that say nothing a developer can act on (issue 74, decision 117;
 * the README's "A quiet build" lists what is left and why):
 * - zod 4's files carry `@__PURE__` comments where Rollup cannot read them; Rollup drops the comments
 *   and the code is the same (the browser's zod is tree-shaken by `manualPureFunctions` instead).
 * - In the server build only: a page's form checks and dialogs are imported on demand so that the
 *   browser loads them late, and the server imports the same modules statically (its actions check
 *   the same schemas). The server's bundle is one file by design, so Vite's note that such a module
 *   "will not move into another chunk" holds for every one of them and is said only when an app
 *   module imports an app module. The browser build keeps the note (it has none today: `shellChunk`
 *   gives each on-demand module its own chunk).
 * Anything else, a third party's annotation outside zod included, is still said.
 */
function knownWarningsOnly({ server }: { server: boolean }) {
  return (warning: RollupLog, warn: (warning: RollupLog) => void) => {
    if (warning.code === "INVALID_ANNOTATION" && warning.id?.includes("/node_modules/zod/")) return;
    const lazy = server && warning.plugin === "vite:reporter" ? LAZY_NOTE.exec(warning.message) : null;
    if (lazy && [lazy[1]!, ...lazy[2]!.split(", ")].every((id) => id.startsWith(APP_DIR))) return;
    warn(warning);
  };
}

const SHELL_ROUTES = ["app/root.tsx", "app/routes/app/layout.tsx"].map((file) => path.resolve(import.meta.dirname, file));
// Not imported by the layouts, but by nearly every page beneath them.
const SHELL_EXTRAS = [
  "app/components/layout/page-error.tsx",
  "app/components/layout/shell-role.ts",
  "app/components/ui/page-title.tsx",
  "app/components/ui/enhanced.ts",
].map((file) => path.resolve(import.meta.dirname, file));
let shellModules: Set<string> | null = null;

/**
 * The app's own modules that the root and the signed-in layout import, in one chunk ("shell")
 * rather than twenty files of a few hundred bytes: every signed-in page loads all of them anyway,
 * and one file compresses better and lists shorter in the route manifest (decision 061). Modules
 * only pages import stay in the pages' chunks; React and React Router stay where Vite puts them.
 */
function shellChunk(id: string, meta: ManualChunkMeta) {
  const { getModuleInfo } = meta;
  if (!shellModules) {
    shellModules = new Set();
    const routes = [...SHELL_ROUTES];
    const stack = [
      ...SHELL_EXTRAS,
      ...routes.flatMap((file) => [...(getModuleInfo(`${file}?__react-router-build-client-route`)?.importedIds ?? [])]),
    ];
    while (stack.length) {
      const next = stack.pop()!;
      // A module also imported on demand (`lazy`) keeps a chunk of its own: the server imports it statically.
      const info = getModuleInfo(next);
      if (shellModules.has(next) || next.includes("/node_modules/") || next.startsWith("\0") || info?.dynamicImporters.length) continue;
      shellModules.add(next);
      stack.push(...(info?.importedIds ?? []));
    }
  }
  // Imported on demand in the browser (`lazy`) and statically by the server: a chunk of its own, or
  // Rollup would pull it into the chunk of its static importer.
  const info = getModuleInfo(id);
  if (info?.dynamicImporters.length && info.importers.length && !id.includes("/node_modules/")) return chunkNameOf(id);
  if (shellModules.has(id)) return "shell";
  // What an on-demand module shares with the pages (the kit's fields, a page's words): a chunk of its
  // own as well. A manual chunk takes in the static imports not assigned elsewhere, so the first
  // on-demand chunk to reach a shared module would hold it, and every page needing it would load that
  // whole chunk on its first visit (/billing's dialogs did: 6.5 kB).
  if (info && info.importers.length > 1 && !id.includes("/node_modules/") && !id.startsWith("\0") && onDemandDeps(meta).has(id))
    return SHARED_TOGETHER[chunkNameOf(id)] ?? chunkNameOf(id);
  // Rollup would pull what the shell imports into it: React Router keeps a chunk of its own.
  if (id.includes("/node_modules/react-router/")) return "router";
  // React and React DOM's small entry (flushSync, preloads), imported by the router and by the shell:
  // with the router. Left unassigned, each lands in whichever chunk Rollup reaches it from first, and
  // the two chunks then import each other (issue 74: the Overview paid 0.5 kB gzip for it). The
  // CommonJS wrappers ("\0…?commonjs-…") go with their module.
  if (/\/node_modules\/react\/|\/node_modules\/react-dom\/(index\.js|cjs\/react-dom\.production\.js)(\?|$)/.test(id)) return "router";
  // zod, only ever loaded with a form's checks: one chunk of its own, not inside the first schema's.
  if (id.includes("/node_modules/zod/")) return "zod";
  return undefined;
}

/** A chunk named by its module's path under app/ (lib-schemas-billing), so two files of the same name stay apart. */
function chunkNameOf(id: string) {
  return path
    .relative(path.resolve(import.meta.dirname, "app"), id)
    .replace(/\.[^.]+$/, "")
    .replace(/[\\/]/g, "-");
}

// Modules always loaded together (the form state is read only through useSchemaForm's forms): one chunk,
// not two files paying gzip's overhead each (0.24 kB on every form page).
const SHARED_TOGETHER: Record<string, string> = { "components-ui-form-state": "components-ui-use-schema-form" };

let onDemandDepsSet: Set<string> | null = null;

/** The app's modules that an on-demand (`lazy`) module imports, directly or further down. */
function onDemandDeps({ getModuleIds, getModuleInfo }: ManualChunkMeta) {
  if (onDemandDepsSet) return onDemandDepsSet;
  const found = new Set<string>();
  const stack: string[] = [];
  for (const id of getModuleIds()) {
    const info = getModuleInfo(id);
    if (info?.dynamicImporters.length && info.importers.length && !id.includes("/node_modules/")) stack.push(...info.importedIds);
  }
  while (stack.length) {
    const next = stack.pop()!;
    if (found.has(next) || next.includes("/node_modules/") || next.startsWith("\0")) continue;
    found.add(next);
    stack.push(...(getModuleInfo(next)?.importedIds ?? []));
  }
  onDemandDepsSet = found;
  return found;
}

/**
 * React Router makes every route module an entry of the browser build, so that each route has a chunk in
 * its manifest. A resource route (an API endpoint, a CSV or PDF download, a webhook, robots.txt: no
 * component and no browser exports) leaves nothing in its chunk, and Rollup says "Generated an empty
 * chunk" once for each of them: expected, and harmless (the browser never loads them; a link to one is
 * a document request). Only those are kept out of the build's output; an empty chunk of anything else
 * still warns.
 */
function resourceRoutesHaveNoClientCode(): Plugin {
  const CLIENT_ROUTE = "?__react-router-build-client-route";
  let routeChunks = new Set<string>();
  return {
    name: "jumbe-resource-routes-have-no-client-code",
    apply: "build",
    options(options) {
      const input = options.input;
      const ids = typeof input === "string" ? [input] : Array.isArray(input) ? input : Object.values(input ?? {});
      // The route modules without a component; Rollup names an entry's chunk after its file, without the extension.
      const files = ids.filter((id) => id.endsWith(CLIENT_ROUTE)).map((id) => id.slice(0, -CLIENT_ROUTE.length));
      const resourceRoutes = files.filter((file) => !/^export\s+default\b/m.test(readFileSync(file, "utf8")));
      routeChunks = new Set(resourceRoutes.map((file) => path.basename(file).replace(/\.[^.]+$/, "")));
      return null;
    },
    onLog(_level, log) {
      if (log.code === "EMPTY_BUNDLE" && log.names?.length && log.names.every((name) => routeChunks.has(name))) return false;
    },
  };
}

/** React Router names the server entry index.js whatever the input: each server entry keeps its own name instead. */
function serverEntryNames(): Plugin {
  return {
    name: "jumbe-server-entry-names",
    apply: "build",
    outputOptions(output) {
      if (output.entryFileNames !== "index.js") return null;
      return {
        ...output,
        entryFileNames: (chunk) =>
          ["meta-sandbox", "africastalking-sandbox", "admin-create"].includes(chunk.name) ? `${chunk.name}.js` : "index.js",
      };
    },
  };
}

const PARAGLIDE_RUNTIME = path.resolve(import.meta.dirname, "app/paraglide/runtime.js");
const BROWSER_RUNTIME = path.resolve(import.meta.dirname, "app/lib/locale-runtime.client.ts");

/**
 * The browser (the build and the development server) gets a small runtime in place of Paraglide's (app/lib/locale-runtime.client.ts,
 * decision 071): the messages only ask it for the page's locale, which is the document's.
 */
function browserLocaleRuntime(): Plugin {
  return {
    name: "jumbe:browser-locale-runtime",
    // The development server too: a page in Swahili hydrates in Swahili there as well.
    enforce: "pre",
    async resolveId(source, importer, options) {
      if (options.ssr || !source.includes("runtime")) return null;
      // Server modules never reach the browser, but the development server's dependency scan crawls
      // them (optimizeDeps.entries): given the browser's runtime, display-zone.ts's import of
      // overwriteGetLocale fails the whole scan, and the first page load then finds the
      // dependencies late (Vite answers 504 "Outdated Optimize Dep" and the page never hydrates).
      if (importer?.includes("/.server/")) return null;
      const resolved = await this.resolve(source, importer, { ...options, skipSelf: true });
      return resolved && resolved.id === PARAGLIDE_RUNTIME ? BROWSER_RUNTIME : null;
    },
  };
}
