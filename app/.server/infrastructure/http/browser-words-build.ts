import { readFileSync } from "node:fs";
import path from "node:path";
import type { Plugin } from "vite";

/**
 * The browser's words (issue 43, decision 072). Paraglide compiles each message into a module that
 * holds it in every language; on a hydrated page that would send every language's words to every
 * browser. The browser build instead writes each `m.key` as a lookup in the page's words
 * (`word(id)`, app/lib/words.client.ts) by a short id: the chunks carry ids, no text. The build
 * records which keys each chunk says and which chunks it loads, and makes each route's chunk import
 * `jw/<its file>` first; the server (browser-words.ts) writes, for each language, a file a route with
 * the words that route adds to its parents', and each page's import map sends `jw/` to its language.
 */
export const CLIENT_WORDS_MODULE = "virtual:jumbe/client-words";
/** What a route's chunk imports for its words; each page's import map names its language's folder (browser-words.ts). */
export const WORDS_SPECIFIER = "jw/";
const CLIENT_ROUTE = "?__react-router-build-client-route";
const RESOLVED_CLIENT_WORDS = `\0${CLIENT_WORDS_MODULE}`;

/** A browser chunk's keys and the chunks it loads, by file name ("assets/dashboard-abc123.js"). */
export interface ClientChunkWords {
  keys: string[];
  imports: string[];
  /** The chunks it loads on demand (`lazy`); each of those imports its own words when it comes. */
  dynamicImports?: string[];
  /** Loaded on demand: it imports `jw/<its file>` first, like a route's chunk. */
  onDemand?: boolean;
}
export type ClientWordsMap = Record<string, ClientChunkWords>;
/** The browser build's record: each key's id in the browser, and each chunk's keys. */
export interface ClientWords {
  ids: Record<string, string>;
  chunks: ClientWordsMap;
}

/** Each key's id in the browser: its place in the sorted catalogue, in base 36 ("app_title" → "1k"). */
export function shortIds(keys: Iterable<string>): Map<string, string> {
  return new Map([...keys].sort().map((key, index) => [key, index.toString(36)]));
}

/** How the words of one message module are looked up in the browser, with its exported name and id. */
export function clientMessageModule(name: string, id: string, wordsModule: string) {
  return `import { word } from ${JSON.stringify(wordsModule)};\nexport const ${name} = /* @__PURE__ */ word(${JSON.stringify(id)});\n`;
}

/** The exported name of a compiled Paraglide message module ("export const billing_title = ..."). */
export function messageName(source: string) {
  return /^export const ([A-Za-z_$][\w$]*) = /m.exec(source)?.[1];
}

const M_IMPORT = /import\s*\{\s*m\s*\}\s*from\s*["']((?:~|\.{1,2})\/(?:[\w.-]+\/)*paraglide\/messages(?:\.js)?)["'];?/;
const M_USE = /(?<![\w$.])m\.([A-Za-z_$][\w$]*)/g;

/**
 * A module's `m.key` uses as lookups of the page's words (`__jw("1k")`): the catalogue's `m`
 * re-exports every message, and a module a message would make Rollup share each message between the
 * pages that say it in a chunk of its own (thousands of tiny chunks, sixty scripts on /dashboard).
 * Inline, a message is a short string in the code that says it. Only names the catalogue has are
 * taken; the `m` import stays while anything else still reads `m`.
 */
export function lookUpWordsInline(
  code: string,
  ids: ReadonlyMap<string, string>,
  wordsModule: string,
): { code: string; keys: string[] } | null {
  const found = M_IMPORT.exec(code);
  if (!found) return null;
  const keys = new Set<string>();
  const body = code.slice(0, found.index) + code.slice(found.index + found[0].length);
  const rewritten = body.replace(M_USE, (whole, key: string) => {
    const id = ids.get(key);
    if (id === undefined) return whole;
    keys.add(key);
    return `__jw(${JSON.stringify(id)})`;
  });
  if (!keys.size) return null;
  // (Not "m-auto" in a class name, nor an id the rewriting wrote.)
  const rest = body.replace(M_USE, (whole, key: string) => (ids.has(key) ? "" : whole));
  const stillUsesM = /(?<![\w$.-])m(?![\w$-])/.test(rest.replace(/\/\/.*$/gm, "").replace(/\/\*[\s\S]*?\*\//g, ""));
  return {
    code: `import { word as __jw } from ${JSON.stringify(wordsModule)};\n${stillUsesM ? `${found[0]}\n` : ""}${rewritten}`,
    keys: [...keys].sort(),
  };
}

export function browserWords({ messagesDir, wordsModule }: { messagesDir: string; wordsModule: string }): Plugin {
  const prefix = messagesDir.endsWith(path.sep) ? messagesDir : messagesDir + path.sep;
  // The browser build's record, handed to the server build that follows it in the same process.
  let recorded: ClientWords | null = null;
  let ids: Map<string, string> | null = null;
  const catalogueIds = () => (ids ??= shortIds(catalogueKeys(readFileSync(path.join(messagesDir, "_index.js"), "utf8"))));
  // The keys each module says, by module id.
  const keysOfModule = new Map<string, string[]>();
  // The catalogue's index as the browser build loaded it: its keys are the lookups Rollup kept.
  const catalogueModules = new Set<string>();
  return {
    name: "jumbe:browser-words",
    enforce: "pre",
    resolveId(source) {
      return source === CLIENT_WORDS_MODULE ? RESOLVED_CLIENT_WORDS : null;
    },
    load(id, options) {
      if (id === RESOLVED_CLIENT_WORDS) {
        // The development server and the test runner have no browser build: the browser there runs
        // Paraglide's own modules, and the server writes no words file.
        const words = (globalThis as { [KEY]?: ClientWords })[KEY] ?? recorded;
        if (!words && this.environment?.mode === "build" && options?.ssr) {
          this.error("The server build found no record of the browser build's words: build both with `react-router build`.");
        }
        return `export default ${JSON.stringify(words ?? null)};`;
      }
      if (options?.ssr || this.environment?.mode !== "build" || !id.startsWith(prefix)) return null;
      // The catalogue a module reading `m` whole still brings in: one lookup a message, so the
      // browser gets ids, never another language's words, and Rollup keeps only the lookups used.
      if (path.basename(id) === "_index.js") {
        catalogueModules.add(id);
        return clientCatalogueModule(catalogueIds(), wordsModule);
      }
      // A message module of Paraglide's "message-modules" output (`npm run messages`): a lookup too.
      const name = messageName(readFileSync(id, "utf8"));
      const short = name === undefined || name !== path.basename(id, ".js") ? undefined : catalogueIds().get(name);
      if (!name || short === undefined) return null;
      keysOfModule.set(id, [name]);
      return clientMessageModule(name, short, wordsModule);
    },
    transform(code, id, options) {
      if (options?.ssr || this.environment?.mode !== "build" || id.includes("/node_modules/") || !/\.(tsx?|jsx?)$/.test(id.split("?")[0]!))
        return null;
      if (!code.includes("paraglide/messages")) return null;
      const rewritten = lookUpWordsInline(code, catalogueIds(), wordsModule);
      if (rewritten === null) return null;
      keysOfModule.set(id, rewritten.keys);
      // Reading `m` whole would bring every message's module into the browser.
      if (M_IMPORT.test(rewritten.code)) this.warn(`${path.relative(process.cwd(), id)} reads the whole catalogue (m) in the browser.`);
      return { code: rewritten.code, map: null };
    },
    generateBundle(_options, bundle) {
      if (this.environment?.config.consumer !== "client") return;
      const chunks: ClientWordsMap = {};
      for (const output of Object.values(bundle)) {
        if (output.type !== "chunk") continue;
        const keys = new Set<string>();
        for (const [id, module] of Object.entries(output.modules))
          if (module.renderedLength > 0)
            for (const key of catalogueModules.has(id) ? module.renderedExports : (keysOfModule.get(id) ?? [])) keys.add(key);
        const route = output.isEntry && !!output.facadeModuleId?.endsWith(CLIENT_ROUTE);
        const onDemand = output.isDynamicEntry && !route;
        chunks[output.fileName] = {
          keys: [...keys].sort(),
          imports: output.imports,
          ...(output.dynamicImports.length ? { dynamicImports: output.dynamicImports } : {}),
          ...(onDemand ? { onDemand } : {}),
        };
        // A route's words come before its code: first among its imports, so ahead of every chunk it
        // loads (their words are the route's, or a parent route's, already there). So do those of a
        // chunk loaded on demand (a rare dialog, the administrator's header): not with the page's.
        if (route || onDemand)
          output.code = `import${JSON.stringify(WORDS_SPECIFIER + path.posix.basename(output.fileName))};${output.code}`;
      }
      recorded = { ids: Object.fromEntries(catalogueIds()), chunks };
      (globalThis as { [KEY]?: ClientWords })[KEY] = recorded;
    },
  };
}

/**
 * The names of the compiled messages, from the catalogue's index (app/paraglide/messages/_index.js):
 * every message defined there in Paraglide's "locale-modules" output (the build's and the development
 * server's: one module a language), or re-exported from its own module in its "message-modules"
 * output (`npm run messages`). Either way the same names, so the same short ids.
 */
export function catalogueKeys(index: string): string[] {
  const keys = new Set<string>();
  for (const found of index.matchAll(/^export const ([A-Za-z_$][\w$]*) = /gm)) keys.add(found[1]!);
  for (const found of index.matchAll(/^export \* from '\.\/([A-Za-z_$][\w$]*)\.js'/gm)) keys.add(found[1]!);
  return [...keys];
}

/** The catalogue's index in the browser: every message a lookup by its id (Rollup drops those nobody says). */
export function clientCatalogueModule(ids: ReadonlyMap<string, string>, wordsModule: string) {
  const lines = [...ids].map(([name, id]) => `export const ${name} = /* @__PURE__ */ word(${JSON.stringify(id)});`);
  return `import { word } from ${JSON.stringify(wordsModule)};\n${lines.join("\n")}\n`;
}

// React Router builds the browser, then the server, each with a fresh copy of this configuration's
// plugins: the record crosses between them on the process.
const KEY = Symbol.for("jumbe.client-words");
