import { baseLocale as base, locales as all } from "../../project.inlang/settings.json";

/**
 * Paraglide's runtime as the browser gets it (decision 071): the build points the compiled messages'
 * `runtime.js` here (vite.config.ts). A page's language is its document's: the server wrote it in
 * `<html lang>`; Paraglide's own detection (cookies, storage, the URL, setting a locale) is the
 * server's business here and stays out of the browser's bundles.
 */
export type Locale = "en" | "sw" | "fr";
export const baseLocale = base as Locale;
export const locales = all as readonly Locale[];
export const experimentalStaticLocale = undefined;

export function isLocale(value: unknown): value is Locale {
  return typeof value === "string" && (locales as readonly string[]).includes(value);
}

export function getLocale(): Locale {
  const lang = typeof document === "undefined" ? undefined : document.documentElement.lang;
  return isLocale(lang) ? lang : baseLocale;
}
