import { createHash } from "node:crypto";
import type { ServerBuild } from "react-router";
import clientWords from "virtual:jumbe/client-words";
import * as catalogue from "~/paraglide/messages/_index.js";
import { locales, type Locale } from "~/paraglide/runtime";
import { WORDS_SPECIFIER, type ClientWords, type ClientWordsMap } from "./browser-words-build";

/**
 * The words of the hydrated pages' browser code, in one language at a time (issue 43, decision 072).
 * The browser build's chunks carry message keys and look each up in `globalThis.__jw`
 * (app/lib/words.client.ts), and each route's chunk first imports `jw/<its file>`. This module works
 * out, from the build's record of which chunk says which keys and loads which chunks, what each
 * route adds to the words its parent routes already brought, and writes one small file a route and a
 * language: `/assets/words-sw-1a2b3c4d5e/dashboard-Ab12Cd.js`. A hydrated page's import map sends
 * `jw/` to its language's folder (named by a hash of that language's words, cached for a year like
 * every other asset), so a page loads its own routes' words and a later navigation the next route's,
 * never another language's. Documents (routes with `handle.hydrate: false`) run no React in the
 * browser and get none.
 */
export interface WordsFile {
  locale: Locale;
  /** "/assets/words-sw-1a2b3c4d5e/dashboard-Ab12Cd.js" */
  path: string;
  body: Buffer;
  keys: number;
}

/** What a hydrated page's head names for its words: the import map's folder and its routes' files to fetch at once. */
export interface PageWords {
  /** The import map: `{ imports: { "jw/": "/assets/words-sw-1a2b3c4d5e/" } }`. */
  importMap: { imports: Record<string, string> };
  preload: string[];
}

type Routes = ServerBuild["routes"];
type Assets = ServerBuild["assets"];
/** The catalogue's messages by key (each typed with its own inputs; called here with any). */
type Messages = Readonly<Record<string, unknown>>;

/** The routes whose pages React hydrates: neither they nor a route above them say `hydrate: false`. */
export function hydratedRouteIds(routes: Routes): string[] {
  const sentAsDocument = (id: string | undefined): boolean => {
    const route = id ? routes[id] : undefined;
    if (!route) return false;
    const handle = (route.module as { handle?: { hydrate?: boolean } }).handle;
    return handle?.hydrate === false || sentAsDocument(route.parentId);
  };
  return Object.keys(routes).filter((id) => !sentAsDocument(id));
}

const fileOf = (url: string) => url.replace(/^\//, "");
const nameOf = (url: string) => url.slice(url.lastIndexOf("/") + 1);

/** The keys of the given chunks and of every chunk they import (not those they load on demand, which bring their own). */
function keysFrom(start: string[], words: ClientWordsMap): Set<string> {
  const pending = start.map(fileOf);
  const seen = new Set<string>();
  const keys = new Set<string>();
  while (pending.length) {
    const next = fileOf(pending.pop()!);
    if (seen.has(next)) continue;
    seen.add(next);
    const chunk = words[next];
    if (!chunk) continue;
    for (const key of chunk.keys) keys.add(key);
    pending.push(...chunk.imports);
  }
  return keys;
}

/**
 * The keys each words file brings, by the file name of the chunk that imports it
 * ("dashboard-Ab12Cd.js"): for a hydrated route's chunk, what it and the chunks it imports say, less
 * what its parent routes' chunks already brought (the root's takes the client entry's too); for a
 * document's, nothing; for a chunk loaded on demand, what it and its imports say, less the root's.
 */
export function routeKeys(assets: Assets, routes: Routes, words: ClientWordsMap): Map<string, string[]> {
  const closure = new Map<string, Set<string>>();
  const startOf = (id: string) => {
    const route = assets.routes[id];
    const start = route?.module ? [route.module, ...(route.imports ?? [])] : [];
    if (!routes[id]?.parentId) start.push(assets.entry.module, ...assets.entry.imports);
    return start;
  };
  const keysOfRoute = (id: string): Set<string> => {
    let found = closure.get(id);
    if (!found) closure.set(id, (found = keysFrom(startOf(id), words)));
    return found;
  };
  const byFile = new Map<string, Set<string>>();
  const add = (file: string, keys: Iterable<string>, less: Set<string>) => {
    const own = byFile.get(file) ?? new Set<string>();
    for (const key of keys) if (!less.has(key)) own.add(key);
    byFile.set(file, own);
  };
  const hydrated = new Set(hydratedRouteIds(routes));
  const rootKeys = new Set([...hydrated].filter((id) => !routes[id]?.parentId).flatMap((id) => [...keysOfRoute(id)]));
  for (const id of Object.keys(assets.routes)) {
    const module = assets.routes[id]?.module;
    if (!module) continue;
    // A document's chunk is still imported in the browser, for its client loader that loads the page
    // as a document (document-page.ts): its words file is there, and empty.
    if (!hydrated.has(id)) {
      add(nameOf(module), [], rootKeys);
      continue;
    }
    const above = new Set<string>();
    for (let parent = routes[id]?.parentId; parent; parent = routes[parent]?.parentId)
      for (const key of keysOfRoute(parent)) above.add(key);
    add(nameOf(module), keysOfRoute(id), above);
  }
  // Every chunk loaded on demand has its file: what it and its imports say, less the root's.
  for (const [file, chunk] of Object.entries(words)) if (chunk.onDemand) add(nameOf(file), keysFrom([file], words), rootKeys);
  return new Map([...byFile].map(([file, keys]) => [file, [...keys].sort()]));
}

/** A message's text with its inputs left as `{name}`: what the browser's `word` fills in. */
function pattern(message: unknown, locale: Locale): string {
  if (typeof message !== "function") throw new Error("A catalogue entry that is not a message.");
  const inputs = new Proxy({}, { get: (_, name) => (typeof name === "string" ? `{${name}}` : undefined) });
  return String(Reflect.apply(message, undefined, [inputs, { locale }]));
}

export interface BrowserWords {
  files: WordsFile[];
  /** Each language's folder: "/assets/words-sw-1a2b3c4d5e/". */
  folders: Map<Locale, string>;
  /** Each route's words file name, by route id (hydrated routes only). */
  fileOfRoute: Map<string, string>;
}

export function wordsFiles(assets: Assets, routes: Routes, words: ClientWords, messages: Messages = catalogue): BrowserWords {
  const perFile = routeKeys(assets, routes, words.chunks);
  const files: WordsFile[] = [];
  const folders = new Map<Locale, string>();
  for (const locale of locales) {
    const bodies = [...perFile].map(([file, keys]) => {
      const texts: Record<string, string> = {};
      for (const key of keys) {
        const message = messages[key];
        if (!message) throw new Error(`The browser build uses the message ${key}, which the catalogue lacks.`);
        const id = words.ids[key];
        if (id === undefined) throw new Error(`The browser build gave the message ${key} no id.`);
        texts[id] = pattern(message, locale);
      }
      return { file, keys: keys.length, body: Buffer.from(`Object.assign(globalThis.__jw??={},${JSON.stringify(texts)});\n`) };
    });
    const hash = createHash("sha256");
    for (const { file, body } of bodies) hash.update(file).update(body);
    const folder = `/assets/words-${locale}-${hash.digest("hex").slice(0, 10)}/`;
    folders.set(locale, folder);
    for (const { file, keys, body } of bodies) files.push({ locale, path: `${folder}${file}`, body, keys });
  }
  const fileOfRoute = new Map<string, string>();
  for (const id of hydratedRouteIds(routes)) {
    const module = assets.routes[id]?.module;
    if (module) fileOfRoute.set(id, nameOf(module));
  }
  return { files, folders, fileOfRoute };
}

let current: BrowserWords | null = null;

/**
 * Reads the build's words for the hydrated pages, once a build (the server with its build; in
 * development Vite's modules carry their words and there is no file).
 */
export function readBrowserWords(
  build: Pick<ServerBuild, "assets" | "routes">,
  words: ClientWords | null = clientWords,
  messages: Messages = catalogue,
) {
  current = words ? wordsFiles(build.assets, build.routes, words, messages) : null;
  return current?.files ?? [];
}

/**
 * The words of a hydrated page in `locale` drawn by these routes (root first), if the build has
 * them: the import map that sends `jw/` to the language's folder, and the routes' files to fetch at
 * once, beside their chunks.
 */
export function browserWordsOf(locale: Locale, routeIds: readonly string[]): PageWords | undefined {
  const folder = current?.folders.get(locale);
  if (!current || !folder) return undefined;
  const preload = new Set<string>();
  for (const id of routeIds) {
    const file = current.fileOfRoute.get(id);
    if (file) preload.add(`${folder}${file}`);
  }
  return { importMap: { imports: { [WORDS_SPECIFIER]: folder } }, preload: [...preload] };
}

/** The words files, to be served with the build's assets. */
export function browserWordsFiles(): readonly WordsFile[] {
  return current?.files ?? [];
}
