import { baseLocale, isLocale, locales, type Locale } from "~/paraglide/runtime";
import type { MiddlewareFunction } from "react-router";
import { parseCookie } from "cookie";
import { LOCALE_COOKIE, readCookie } from "./cookies";
import { inLocale } from "./display-zone";

/**
 * The language a request is written in (decision 071): `?lng=` on a link, else the visitor's
 * choice (the cookie), else the browser's languages (`Accept-Language`, by their weights), else
 * English. Anything else named is ignored, never an error.
 */
export function localeOf(request: Request, url = new URL(request.url)): Locale {
  return chooseLocale(url.searchParams.get("lng"), readCookie(request, LOCALE_COOKIE), request.headers.get("accept-language"));
}

/** The same for a request Express holds (a path, its Cookie and Accept-Language headers). */
export function localeOfPath(path: string, cookieHeader: string | undefined, acceptLanguage: string | undefined): Locale {
  const asked = new URL(path, "http://local").searchParams.get("lng");
  // Taken as written: a language name has nothing to decode (and a bad escape elsewhere throws nothing).
  const chosen = cookieHeader ? parseCookie(cookieHeader, { decode: (value) => value })[LOCALE_COOKIE] : undefined;
  return chooseLocale(asked, chosen, acceptLanguage);
}

/** The same from the request's three sources: `?lng=`, the cookie, `Accept-Language`. */
export function chooseLocale(
  asked: string | null | undefined,
  chosen: string | null | undefined,
  acceptLanguage: string | null | undefined,
): Locale {
  if (asked && isLocale(asked)) return asked;
  if (chosen && isLocale(chosen)) return chosen;
  return fromAcceptLanguage(acceptLanguage ?? null) ?? baseLocale;
}

/** The best of the browser's languages this product speaks: `sw-KE` is Swahili, `fr-CI` French. */
export function fromAcceptLanguage(header: string | null): Locale | undefined {
  if (!header) return undefined;
  let best: { locale: Locale; weight: number } | undefined;
  // A header is short in practice; a long one is read no further than its first 32 entries.
  for (const part of header.split(",", 32)) {
    const [tag = "", ...params] = part.trim().split(";");
    const primary = tag.trim().toLowerCase().split("-")[0] ?? "";
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    const weight = q ? Number(q.slice(2)) : 1;
    if (!Number.isFinite(weight) || weight <= 0 || !isLocale(primary)) continue;
    if (!best || weight > best.weight) best = { locale: primary, weight };
  }
  return best?.locale;
}

export { baseLocale, locales };
export type { Locale };

/**
 * The root's middleware: the rest of the request (loaders, actions, the document) in its language.
 * The JSON API answers in English whatever the caller's languages: its codes are what programs read,
 * its messages stay as documented (docs/api.md).
 */
export const localeMiddleware: MiddlewareFunction<Response> = ({ request, url }, next) =>
  inLocale(isApiPath(url?.pathname ?? new URL(request.url).pathname) ? baseLocale : localeOf(request, url), next);

function isApiPath(pathname: string) {
  return pathname === "/api" || pathname.startsWith("/api/");
}
