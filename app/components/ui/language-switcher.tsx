import { useId } from "react";
import { useLocation } from "react-router";
import { getLocale, locales, type Locale } from "~/paraglide/runtime";
import { m } from "~/paraglide/messages";

// Each language named in itself, the same in every language: a person who reads only that one finds it.
export const LANGUAGE_NAMES: Record<Locale, string> = { en: "English", sw: "Kiswahili", fr: "Français" };

/**
 * The language switcher (decision 071): a plain form posting to /language, which keeps the choice
 * and comes back to this page in the new language; the same without JavaScript. Its label takes the
 * colour of what it sits on (the dark public footer, a light menu).
 */
export function LanguageSwitcher({ className }: { className: string }) {
  const id = useId();
  const { pathname, search } = useLocation();
  return (
    <form method="post" action="/language" className={`flex flex-wrap items-center gap-2 text-sm ${className}`}>
      <input type="hidden" name="redirectTo" value={pathname + search} />
      <label htmlFor={id}>{m.language()}</label>
      <select
        id={id}
        name="locale"
        defaultValue={getLocale()}
        className="min-w-30 rounded-md border border-slate-300 bg-white px-2 py-1 text-slate-900"
      >
        {locales.map((locale) => (
          <option key={locale} value={locale} lang={locale}>
            {LANGUAGE_NAMES[locale]}
          </option>
        ))}
      </select>
      <button type="submit" className="rounded-md bg-slate-100 px-3 py-1 font-semibold text-slate-800 hover:bg-slate-200">
        {m.language_change()}
      </button>
    </form>
  );
}
