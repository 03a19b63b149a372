import { isRouteErrorResponse } from "react-router";
import { m } from "~/paraglide/messages";

export function describeError(error: unknown) {
  // A 4xx thrown with a message (an unreadable form, say) shows it.
  if (isRouteErrorResponse(error))
    return `${error.status} ${error.statusText}${typeof error.data === "string" && error.status < 500 ? `: ${error.data}` : ""}`;
  if (error instanceof Error) return error.message;
  return m.app_error_unknown();
}

/** Spec section 2's crash screen. Reload Page is a link to this same address, so it needs no script. */
export function CrashScreen({ detail }: { detail: string }) {
  return (
    <main className="flex min-h-screen items-center justify-center p-6">
      <div role="alert" className="w-full max-w-md rounded-xl border border-red-200 bg-white p-8 text-center shadow-sm">
        <h1 className="text-xl font-semibold text-slate-900">{m.app_error_something_wrong()}</h1>
        <p className="mt-2 text-slate-600">{m.app_error_unexpected()}</p>
        <pre className="mt-4 overflow-x-auto rounded bg-red-50 p-3 text-left text-sm whitespace-pre-wrap text-red-700">{detail}</pre>
        <a href="" className="mt-6 inline-block rounded-lg bg-brand-600 px-4 py-2 font-medium text-white hover:bg-brand-700">
          {m.app_error_reload()}
        </a>
      </div>
    </main>
  );
}
