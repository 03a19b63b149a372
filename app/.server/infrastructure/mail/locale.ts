import { baseLocale, type Locale } from "~/paraglide/runtime";

/** The language to write to a member in when no page is open (an e-mail, a job): theirs, else their organisation's, else English. */
export function mailLocaleOf(member: { locale?: Locale | null }, organization?: { defaultLocale?: Locale | null } | null): Locale {
  return member.locale ?? organization?.defaultLocale ?? baseLocale;
}
