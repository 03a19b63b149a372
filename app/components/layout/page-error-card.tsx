// A signed-in page's error card: its own chunk, loaded only when a page fails (decision 061).
import { isRouteErrorResponse, useRouteError } from "react-router";
import { AlertTriangle } from "~/components/ui/icons";
import { m } from "~/paraglide/messages";

/** What went wrong, in words a customer understands, from what a loader or action threw. */
export function explainError(error: unknown): { title: string; body: string } {
  const status = isRouteErrorResponse(error) ? error.status : (error as { status?: unknown } | null)?.status;
  switch (status) {
    case 400:
      return {
        title: m.app_error_400_title(),
        body: isRouteErrorResponse(error) && typeof error.data === "string" && error.data ? error.data : m.app_error_400_body(),
      };
    case 403:
      return { title: m.app_error_403_title(), body: m.app_error_403_body() };
    case 404:
      return { title: m.app_error_404_title(), body: m.app_error_404_body() };
    case 405:
      // A post to a page that takes none (the console's pages let posts through to their guard).
      return { title: m.app_error_405_title(), body: m.app_error_405_body() };
    case 413:
      return { title: m.app_error_413_title(), body: m.app_error_413_body() };
    case 429:
      return { title: m.app_error_429_title(), body: m.app_error_429_body() };
    case 503:
      return {
        title: m.app_error_503_title(),
        body: m.app_error_503_body(),
      };
    default:
      // Spec section 2's crash-screen words; the details stay in the server's log.
      return {
        title: m.app_error_something_wrong(),
        body: m.app_error_default_body(),
      };
  }
}

export default function ErrorCard() {
  const { title, body } = explainError(useRouteError());
  return (
    <section role="alert" className="mx-auto max-w-xl rounded-xl border border-red-200 bg-white p-8 text-center shadow-sm">
      <span className="mx-auto flex size-12 items-center justify-center rounded-full bg-red-50 text-red-600">
        <AlertTriangle className="size-6" aria-hidden />
      </span>
      <h1 className="mt-4 text-xl font-semibold text-slate-900">{title}</h1>
      <p className="mt-2 text-slate-600">{body}</p>
      <div className="mt-6 flex flex-wrap justify-center gap-3">
        {/* A link to this same address: reloading needs no script. */}
        <a href="" className="rounded-lg bg-brand-700 px-4 py-2 text-sm font-semibold text-white hover:bg-brand-900">
          {m.app_error_reload()}
        </a>
      </div>
    </section>
  );
}
