import { href, useRouteError } from "react-router";
import { buttonClass, ButtonLink } from "~/components/ui/button";
import { AuthShell } from "./auth-shell";
import { explainError } from "./page-error-card";

// Apart from page-error.tsx so that signed-in pages' error boundary does not bring the sign-in layout.
/** A sign-in, sign-up or password page's error, inside the same card layout. */
export function AuthErrorBoundary() {
  const { title, body } = explainError(useRouteError());
  return (
    <AuthShell title={title} subtitle={body}>
      <div role="alert" className="flex flex-wrap gap-3">
        <a href="" className={buttonClass("primary")}>
          Reload Page
        </a>
        <ButtonLink to={href("/login")} variant="secondary">
          Back to sign in
        </ButtonLink>
      </div>
    </AuthShell>
  );
}
