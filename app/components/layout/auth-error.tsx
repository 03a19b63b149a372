import { href, useRouteError } from "react-router";
import { buttonClass, ButtonLink } from "~/components/ui/button";
import { AuthShell } from "./auth-shell";
import { explainError } from "./page-error-card";
import { m } from "~/paraglide/messages";

// Apart from page-error.tsx so that signed-in pages' error boundary does not bring the sign-in layout.
/** A sign-in, sign-up or password page's error, inside the same card layout. */
export function AuthErrorBoundary() {
  const { title, body } = explainError(useRouteError());
  return (
    <AuthShell title={title} subtitle={body}>
      <div role="alert" className="flex flex-wrap gap-3">
        <a href="" className={buttonClass("primary")}>
          {m.auth_error_reload()}
        </a>
        <ButtonLink to={href("/login")} variant="secondary">
          {m.auth_back_to_sign_in()}
        </ButtonLink>
      </div>
    </AuthShell>
  );
}
