import { getLocale, type Locale } from "~/paraglide/runtime";

/**
 * The `Intl` locale of a language (issue 43): Kenyan conventions in each, so amounts read as Kenya
 * shillings and dates as Kenyans write them ("KES 1,234.50" in Swahili, "1 234,50 KES" in French).
 */
const INTL_LOCALES: Record<Locale, string> = { en: "en-KE", sw: "sw-KE", fr: "fr-KE" };

/** The request's language as `Intl` takes it (the page's in the browser). */
export function intlLocale(locale: Locale = getLocale()): string {
  return INTL_LOCALES[locale];
}

const pluralRules = new Map<string, Intl.PluralRules>();

/**
 * One of two wordings by a count, by the language's own rule (French says "0 contact", English
 * "0 contacts"): `byCount(n, () => m.contacts_one({ count: n }), () => m.contacts_other({ count: n }))`.
 */
export function byCount(count: number, one: () => string, other: () => string): string {
  const tag = intlLocale();
  let rules = pluralRules.get(tag);
  if (!rules) pluralRules.set(tag, (rules = new Intl.PluralRules(tag)));
  return rules.select(count) === "one" ? one() : other();
}

const ordinalFirst = new WeakMap<Intl.DateTimeFormat, boolean>();

/**
 * A date written by `format`, as the language writes it in words: French names the first of a month
 * "1er" ("du 1er novembre", "1er nov. 2026", issue 74), which `Intl` does not do. Every formatter
 * that writes a month in words goes through here; a date with a month in figures is left as it is.
 */
export function formatDateWords(format: Intl.DateTimeFormat, at: Date): string {
  let french = ordinalFirst.get(format);
  if (french === undefined) ordinalFirst.set(format, (french = format.resolvedOptions().locale.startsWith("fr")));
  if (!french) return format.format(at);
  const parts = format.formatToParts(at);
  const monthInWords = parts.some((part) => part.type === "month" && /\D/.test(part.value));
  return parts.map((part) => (monthInWords && part.type === "day" && Number(part.value) === 1 ? "1er" : part.value)).join("");
}

const dateTimeFormats = new Map<string, Intl.DateTimeFormat>();
const numberFormats = new Map<string, Intl.NumberFormat>();

/**
 * An `Intl.DateTimeFormat` built once per locale and options and reused: building one costs tens of
 * microseconds (`Date#toLocaleTimeString(locale, options)` builds one on every call), which the
 * System tab's chart labels paid a few hundred times a page (17% of its CPU).
 */
export function dateTimeFormat(locale: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = `${locale} ${JSON.stringify(options)}`;
  let format = dateTimeFormats.get(key);
  if (!format) dateTimeFormats.set(key, (format = new Intl.DateTimeFormat(locale, options)));
  return format;
}

/** An `Intl.NumberFormat` built once per locale and options (see dateTimeFormat). */
export function numberFormat(locale: string, options: Intl.NumberFormatOptions = {}): Intl.NumberFormat {
  const key = `${locale} ${JSON.stringify(options)}`;
  let format = numberFormats.get(key);
  if (!format) numberFormats.set(key, (format = new Intl.NumberFormat(locale, options)));
  return format;
}
