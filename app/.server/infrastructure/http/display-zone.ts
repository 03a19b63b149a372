import { AsyncLocalStorage } from "node:async_hooks";
import { setDisplayZoneSource } from "~/lib/dates";
import { baseLocale, overwriteGetLocale, type Locale } from "~/paraglide/runtime";

/**
 * How a request's pages are written: the signed-in organisation's time zone, which formatWhen and
 * formatDay read (Nairobi's when there is none: public pages, jobs, e-mails), and the language the
 * person chose, which every message reads (decision 071). One store for both: the root's middleware
 * sets the language, the signed-in pages' middleware adds the zone inside it.
 */
interface Display {
  zone?: string;
  locale?: Locale;
}

const requestDisplay = new AsyncLocalStorage<Display>();
setDisplayZoneSource(() => requestDisplay.getStore()?.zone);
overwriteGetLocale(() => requestDisplay.getStore()?.locale ?? baseLocale);

export function inDisplayZone<T>(zone: string, work: () => T): T {
  return requestDisplay.run({ ...requestDisplay.getStore(), zone }, work);
}

export function inLocale<T>(locale: Locale, work: () => T): T {
  return requestDisplay.run({ ...requestDisplay.getStore(), locale }, work);
}

/**
 * A signed-in person's pages in the language they saved (issue 43), over the cookie and the browser's
 * languages the root chose from; a link's `?lng=` still wins, as it did there.
 */
export function inSavedLocale<T>(saved: Locale | null | undefined, url: URL, work: () => T): T {
  if (!saved || saved === requestDisplay.getStore()?.locale || url.searchParams.has("lng")) return work();
  return inLocale(saved, work);
}
