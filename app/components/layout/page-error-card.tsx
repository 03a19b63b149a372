// A signed-in page's error card: its own chunk, loaded only when a page fails (decision 061).
import { isRouteErrorResponse, useRouteError } from "react-router";
import { AlertTriangle } from "~/components/ui/icons";

/** What went wrong, in words a customer understands, from what a loader or action threw. */
export function explainError(error: unknown): { title: string; body: string } {
  const status = isRouteErrorResponse(error) ? error.status : (error as { status?: unknown } | null)?.status;
  switch (status) {
    case 400:
      return {
        title: "That request could not be read.",
        body:
          isRouteErrorResponse(error) && typeof error.data === "string" && error.data
            ? error.data
            : "Check what you entered and try again.",
      };
    case 403:
      return { title: "You do not have permission to see this.", body: "Ask an administrator of your organisation for access." };
    case 404:
      return { title: "This page does not exist.", body: "It may have been removed, or it belongs to another organisation." };
    case 405:
      // A post to a page that takes none (the console's pages let posts through to their guard).
      return { title: "This page does not take a form.", body: "Nothing was changed. Reload the page and use its buttons." };
    case 413:
      return { title: "That was too large to send.", body: "Send less at once and try again." };
    case 429:
      return { title: "Too many attempts.", body: "Wait a moment, then try again." };
    case 503:
      return {
        title: "Jumbe is briefly unavailable.",
        body: "We cannot reach our database right now. Nothing you saved is lost; try again in a few seconds.",
      };
    default:
      // Spec section 2's crash-screen words; the details stay in the server's log.
      return {
        title: "Something went wrong.",
        body: "An unexpected error occurred in the application. It has been logged; try again in a moment.",
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
          Reload Page
        </a>
      </div>
    </section>
  );
}
