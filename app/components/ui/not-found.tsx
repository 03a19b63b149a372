import { buttonClass } from "./button";
import { Logo } from "./logo";
import { m } from "~/paraglide/messages";

/** The words of a page that does not exist (or is not this person's to see: it looks the same), in the request's language. */
export const NOT_FOUND_TEXT = {
  get title() {
    return m.app_error_404_title();
  },
  get body() {
    return m.app_not_found_body();
  },
};

/**
 * The whole-page answer to an address that opens nothing for this person (status 404): the same
 * page whether the address does not exist or is not theirs, so it says nothing about either. Plain
 * links, so it works without JavaScript.
 */
export function NotFoundScreen() {
  return (
    <main className="flex min-h-screen items-center justify-center p-4 sm:p-6">
      <section className="w-full max-w-md rounded-xl border border-slate-200 bg-white p-6 text-center shadow-sm sm:p-8">
        <a href="/" aria-label={m.app_not_found_home_label()}>
          <Logo />
        </a>
        <p className="mt-6 text-sm font-semibold text-slate-500">404</p>
        <h1 className="mt-1 text-xl font-semibold text-slate-900">{NOT_FOUND_TEXT.title}</h1>
        <p className="mt-2 text-slate-600">{NOT_FOUND_TEXT.body}</p>
        <a href="/" className={buttonClass("primary", "md", "mt-6")}>
          {m.app_not_found_home_link()}
        </a>
      </section>
    </main>
  );
}
