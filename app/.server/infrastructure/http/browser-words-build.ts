import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { Plugin } from "vite";

/**
 * The browser's words (issue 43, decision 072). Paraglide compiles each message into a module that
 * holds it in every language; on a hydrated page that would send every language's words to every
 * browser. The browser build replaces each message module by a lookup in the page's words
 * (`word(key)`, app/lib/words.client.ts): the chunks carry keys, no text. The build records which
 * keys each chunk uses and which chunks it loads; the server (browser-words.ts) then writes one file
 * a language holding only the words the hydrated pages' chunks use, and a hydrated page loads the
 * file of its language before its code runs.
 */
export const CLIENT_WORDS_MODULE = "virtual:jumbe/client-words";
const RESOLVED_CLIENT_WORDS = `\0${CLIENT_WORDS_MODULE}`;

/** A browser chunk's keys and the chunks it loads, by file name ("assets/dashboard-abc123.js"). */
export interface ClientChunkWords {
  keys: string[];
  imports: string[];
}
export type ClientWordsMap = Record<string, ClientChunkWords>;

/** How the words of one message module are looked up in the browser, with its exported name. */
export function clientMessageModule(name: string, wordsModule: string) {
  return `import { word } from ${JSON.stringify(wordsModule)};\nexport const ${name} = /* @__PURE__ */ word(${JSON.stringify(name)});\n`;
}

/** The exported name of a compiled Paraglide message module ("export const billing_title = ..."). */
export function messageName(source: string) {
  return /^export const ([A-Za-z_$][\w$]*) = /m.exec(source)?.[1];
}

const M_IMPORT = /import\s*\{\s*m\s*\}\s*from\s*["']((?:~|\.{1,2})\/(?:[\w.-]+\/)*paraglide\/messages(?:\.js)?)["'];?/;
const M_USE = /(?<![\w$.])m\.([A-Za-z_$][\w$]*)/g;

/**
 * A module's `m.key` uses as direct imports of each message's module (`import { key as __w_key }`):
 * the catalogue's `m` re-exports every message, so every page's chunks would share every message the
 * app uses; named one by one, each message lands with the code that says it, as a literal did. Only
 * names the catalogue has are taken; the `m` import stays while anything else still reads `m`.
 */
export function importMessagesDirectly(code: string, known: ReadonlySet<string>, messagesDir: string): string | null {
  const found = M_IMPORT.exec(code);
  if (!found) return null;
  const keys = new Set<string>();
  const body = code.slice(0, found.index) + code.slice(found.index + found[0].length);
  const rewritten = body.replace(M_USE, (whole, key: string) => {
    if (!known.has(key)) return whole;
    keys.add(key);
    return `__w_${key}`;
  });
  if (!keys.size) return null;
  const stillUsesM = /(?<![\w$.])m(?![\w$])/.test(rewritten.replace(/\/\/.*$/gm, "").replace(/\/\*[\s\S]*?\*\//g, ""));
  const imports = [...keys].map((key) => `import { ${key} as __w_${key} } from ${JSON.stringify(`${messagesDir}/${key}.js`)};`).join("\n");
  return `${imports}\n${stillUsesM ? `${found[0]}\n` : ""}${rewritten}`;
}

export function browserWords({ messagesDir, wordsModule }: { messagesDir: string; wordsModule: string }): Plugin {
  const prefix = messagesDir.endsWith(path.sep) ? messagesDir : messagesDir + path.sep;
  // The browser build's record, handed to the server build that follows it in the same process.
  let recorded: ClientWordsMap | null = null;
  const names = new Map<string, string>();
  let known: Set<string> | null = null;
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
        const words = (globalThis as { [KEY]?: ClientWordsMap })[KEY] ?? recorded;
        if (!words && this.environment?.mode === "build" && options?.ssr) {
          this.error("The server build found no record of the browser build's words: build both with `react-router build`.");
        }
        return `export default ${JSON.stringify(words ?? null)};`;
      }
      if (options?.ssr || this.environment?.mode !== "build" || !id.startsWith(prefix) || path.basename(id).startsWith("_")) return null;
      const name = messageName(readFileSync(id, "utf8"));
      if (!name) return null;
      names.set(id, name);
      return clientMessageModule(name, wordsModule);
    },
    transform(code, id, options) {
      if (options?.ssr || this.environment?.mode !== "build" || id.includes("/node_modules/") || !/\.(tsx?|jsx?)$/.test(id.split("?")[0]!))
        return null;
      if (!code.includes("paraglide/messages")) return null;
      known ??= new Set(
        readdirSync(messagesDir).flatMap((file) => (file.endsWith(".js") && !file.startsWith("_") ? [file.slice(0, -3)] : [])),
      );
      const rewritten = importMessagesDirectly(code, known, messagesDir);
      return rewritten === null ? null : { code: rewritten, map: null };
    },
    generateBundle(_options, bundle) {
      if (this.environment?.config.consumer !== "client") return;
      const words: ClientWordsMap = {};
      for (const output of Object.values(bundle)) {
        if (output.type !== "chunk") continue;
        const keys = Object.entries(output.modules)
          .filter(([id, module]) => module.renderedLength > 0 && names.has(id))
          .map(([id]) => names.get(id)!)
          .sort();
        words[output.fileName] = { keys, imports: [...output.imports, ...output.dynamicImports] };
      }
      recorded = words;
      (globalThis as { [KEY]?: ClientWordsMap })[KEY] = words;
    },
  };
}

// React Router builds the browser, then the server, each with a fresh copy of this configuration's
// plugins: the record crosses between them on the process.
const KEY = Symbol.for("jumbe.client-words");
