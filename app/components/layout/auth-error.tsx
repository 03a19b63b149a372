import { href, Link, useRouteError } from "react-router";
import { AuthShell } from "./auth-shell";
import { explainError } from "./page-error-card";

// Apart from page-error.tsx so that signed-in pages' error boundary does not bring the sign-in layout.
/** A sign-in, sign-up or password page's error, inside the same card layout. */
export function AuthErrorBoundary() {
  const { title, body } = explainError(useRouteError());
  return (
    <AuthShell title={title} subtitle={body}>
      <div role="alert" className="flex flex-wrap gap-3">
        <a href="" className="rounded-lg bg-brand-700 px-4 py-2 text-sm font-semibold text-white hover:bg-brand-900">
          Reload Page
        </a>
        <Link
          to={href("/login")}
          className="rounded-lg border border-slate-300 px-4 py-2 text-sm font-semibold text-slate-800 hover:bg-slate-50"
        >
          Back to sign in
        </Link>
      </div>
    </AuthShell>
  );
}
