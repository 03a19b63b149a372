import type { MetaDescriptor } from "react-router";
import { baseLocale, getLocale, locales, type Locale } from "~/paraglide/runtime";

/** A public page's address in a language: English at its own address, the others with `?lng=`. */
export function addressIn(url: string, locale: Locale): string {
  if (locale === baseLocale) return url;
  return `${url}${url.includes("?") ? "&" : "?"}lng=${locale}`;
}

/**
 * A public page's canonical address in the page's language and its `hreflang` alternates (issue 43):
 * search engines list each language's page for its readers, `x-default` (English) for the others.
 */
export function languageLinks(url: string, locale: Locale = getLocale()): MetaDescriptor[] {
  return [
    { tagName: "link", rel: "canonical", href: addressIn(url, locale) },
    ...locales.map((each) => ({ tagName: "link", rel: "alternate", hrefLang: each, href: addressIn(url, each) })),
    { tagName: "link", rel: "alternate", hrefLang: "x-default", href: url },
  ];
}
