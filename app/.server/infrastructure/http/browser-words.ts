import { createHash } from "node:crypto";
import type { ServerBuild } from "react-router";
import clientWords from "virtual:jumbe/client-words";
import * as catalogue from "~/paraglide/messages/_index.js";
import { locales, type Locale } from "~/paraglide/runtime";
import type { ClientWordsMap } from "./browser-words-build";

/**
 * The words file of each language (decision 072): what the hydrated pages' browser code says, in
 * that language only. The browser build's chunks carry message keys and look each up in
 * `globalThis.__jw` (app/lib/words.client.ts); this module works out, from the build's record of
 * which chunk uses which keys and which chunks each hydrated route loads, the keys any hydrated page
 * can show, and writes `globalThis.__jw = {...}` for each language, named by a hash of its content
 * (`/assets/words-sw-1a2b3c4d5e.js`, cached for a year like every other asset). Documents (routes with
 * `handle.hydrate: false`) run no React in the browser and need none.
 */
export interface WordsFile {
  locale: Locale;
  /** "/assets/words-sw-1a2b3c4d5e.js" */
  path: string;
  body: Buffer;
  keys: number;
}

type Routes = ServerBuild["routes"];
type Messages = Record<string, (inputs: Record<string, unknown>, options: { locale: Locale }) => string>;

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

/** The keys of every chunk a hydrated page can load: its entry, its routes' modules, all they import, now or later. */
export function hydratedKeys(assets: ServerBuild["assets"], routes: Routes, words: ClientWordsMap): string[] {
  const file = (url: string) => url.replace(/^\//, "");
  const pending = [assets.entry.module, ...assets.entry.imports];
  for (const id of hydratedRouteIds(routes)) {
    const route = assets.routes[id];
    if (route?.module) pending.push(route.module, ...(route.imports ?? []));
  }
  const seen = new Set<string>();
  const keys = new Set<string>();
  while (pending.length) {
    const next = file(pending.pop()!);
    if (seen.has(next)) continue;
    seen.add(next);
    const chunk = words[next];
    if (!chunk) continue;
    for (const key of chunk.keys) keys.add(key);
    pending.push(...chunk.imports);
  }
  return [...keys].sort();
}

/** A message's text with its inputs left as `{name}`: what the browser's `word` fills in. */
function pattern(message: Messages[string], locale: Locale) {
  const inputs = new Proxy({}, { get: (_, name) => (typeof name === "string" ? `{${name}}` : undefined) });
  return message(inputs, { locale });
}

export function wordsFiles(
  assets: ServerBuild["assets"],
  routes: Routes,
  words: ClientWordsMap,
  messages: Messages = catalogue as unknown as Messages,
): WordsFile[] {
  const keys = hydratedKeys(assets, routes, words);
  return locales.map((locale) => {
    const texts: Record<string, string> = {};
    for (const key of keys) {
      const message = messages[key];
      if (!message) throw new Error(`The browser build uses the message ${key}, which the catalogue lacks.`);
      texts[key] = pattern(message, locale);
    }
    const body = Buffer.from(`globalThis.__jw=${JSON.stringify(texts)};\n`);
    const hash = createHash("sha256").update(body).digest("hex").slice(0, 10);
    return { locale, path: `/assets/words-${locale}-${hash}.js`, body, keys: keys.length };
  });
}

let current: WordsFile[] = [];

/**
 * Reads the build's words for the hydrated pages, once a build (the server with its build; in
 * development Vite's modules carry their words and there is no file).
 */
export function readBrowserWords(build: Pick<ServerBuild, "assets" | "routes">, words: ClientWordsMap | null = clientWords) {
  current = words ? wordsFiles(build.assets, build.routes, words) : [];
  return current;
}

/** The words file a hydrated page in `locale` loads before its code, if the build has one. */
export function browserWordsPath(locale: Locale): string | undefined {
  return current.find((file) => file.locale === locale)?.path;
}

/** The words files, to be served with the build's assets. */
export function browserWordsFiles(): readonly WordsFile[] {
  return current;
}
