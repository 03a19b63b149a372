import { redirect } from "react-router";
import type { Route } from "./+types/language";
import { isLocale } from "~/paraglide/runtime";
import { m } from "~/paraglide/messages";
import { isLocalPath } from "~/.server/domains/auth/guards";
import { localeCookieHeader } from "~/.server/infrastructure/http/cookies";
import * as z from "zod/mini";
import { publicFormAction } from "~/.server/infrastructure/http/intents";
import { postedFirst } from "~/.server/infrastructure/http/posted-fields";
import { findSession } from "~/.server/domains/auth/sessions";
import { saveMemberLocale } from "~/.server/domains/auth/language";

/**
 * The language switcher's form (the public footer, the user menu): a plain post that keeps the
 * choice in a cookie, and on the account of a signed-in person (their every device and e-mail), and
 * goes back to the page it came from, in the new language (decision 071).
 * A language this product does not speak is refused (400, nothing kept); a page elsewhere goes home.
 */
export async function action(args: Route.ActionArgs) {
  return publicFormAction(args, {
    schema: LanguageSchema,
    handle: async ({ value: { locale, redirectTo: back } }) => {
      const to = isLocalPath(back) ? withoutLngParameter(back) : "/";
      if (!isLocale(locale))
        return new Response(m.language_unknown(), { status: 400, headers: { "Content-Type": "text/plain; charset=utf-8" } });
      const signedIn = await findSession(args.request);
      if (signedIn && signedIn.user.locale !== locale) await saveMemberLocale(signedIn.user.id, locale);
      throw redirect(to, { headers: { "Set-Cookie": localeCookieHeader(locale) } });
    },
  });
}

// The switcher's fields as posted (a missing one reads ""): the handler says what each may be.
const LanguageSchema = z.object({ locale: postedFirst(Infinity), redirectTo: postedFirst(Infinity) });

// Nothing to show: a GET goes home.
export function loader() {
  throw redirect("/");
}

/** A page opened with `?lng=` would keep its language over the new choice: the parameter goes. */
function withoutLngParameter(path: string) {
  const url = new URL(path, "http://local");
  url.searchParams.delete("lng");
  return `${url.pathname}${url.search}${url.hash}`;
}
