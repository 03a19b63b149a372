import { Form, href, redirect } from "react-router";
import { getFormProps, getInputProps } from "~/components/ui/form-state";
import type { Route } from "./+types/two-factor";
import { TwoFactorCodeSchema } from "~/lib/schemas/two-factor";
import { AuthShell } from "~/components/layout/auth-shell";
import { Field, FormError } from "~/components/ui/field";
import { Button } from "~/components/ui/button";
import { lazySchema, useSchemaForm } from "~/components/ui/use-schema-form";
import { Toast } from "~/components/ui/toast";
import { currentUser, homeFor, safeRedirectTarget } from "~/.server/domains/auth/guards";
import { challengeToken, clearChallengeCookieHeader, openChallengeOf } from "~/.server/domains/auth/two-factor/challenge";
import { completeTwoFactorSignIn } from "~/.server/domains/auth/two-factor/sign-in";
import { TWO_FACTOR_MESSAGES } from "~/lib/two-factor-messages";
import { signedInHeaders, SIGNIN_MESSAGES } from "~/.server/domains/auth/signin";
import { sessionToken } from "~/.server/domains/auth/sessions";
import { deviceCookieValue } from "~/.server/domains/auth/known-device";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";
import { redirectWithToast, toastCookie } from "~/.server/infrastructure/http/toast";
import { formFailure } from "~/.server/infrastructure/http/forms";
import { publicFormAction } from "~/.server/infrastructure/http/intents";
import { AuthErrorBoundary } from "~/components/layout/auth-error";
import { TextLink } from "~/components/ui/text-link";
import { documentPage, loadAsDocument } from "~/components/layout/document-page";
import { m } from "~/paraglide/messages";

// Loaded when the form is first used (decision 061).
const lazyTwoFactorCodeSchema = lazySchema(() => import("~/lib/schemas/two-factor"), "TwoFactorCodeSchema");

// Plain HTML in the browser, no React (decision 060).
export const handle = documentPage;
export const clientLoader = loadAsDocument;

export const meta: Route.MetaFunction = () => [{ title: m.auth_two_factor_meta_title() }, { name: "robots", content: "noindex" }];

function loginAgain(from: string, message: string) {
  const to = from ? `${href("/login")}?from=${encodeURIComponent(from)}` : href("/login");
  return redirectWithToast(to, "error", message, { headers: { "Set-Cookie": clearChallengeCookieHeader() } });
}

/** Sign-in, step two: only a browser holding an open challenge (the right password a moment ago) sees it. */
export async function loader(args: Route.LoaderArgs) {
  const current = await currentUser(args);
  if (current) throw redirect(homeFor(current.role));
  const from = args.url.searchParams.get("from") ?? "";
  if (!(await openChallengeOf(challengeToken(args.request)))) throw await loginAgain(from, TWO_FACTOR_MESSAGES.challengeGone);
  return { from };
}

export async function action(args: Route.ActionArgs) {
  const { request, context } = args;
  return publicFormAction(args, {
    schema: TwoFactorCodeSchema,
    reply: { hideFields: ["code"] },
    handle: async ({ value, submission }) => {
      const { code, from = "" } = value;
      const outcome = await completeTwoFactorSignIn(
        challengeToken(request),
        code,
        requestMeta(request, context),
        sessionToken(request),
        deviceCookieValue(request),
      );
      if (outcome.ok) {
        const headers = signedInHeaders(outcome);
        headers.append("Set-Cookie", clearChallengeCookieHeader());
        headers.append("Set-Cookie", await toastCookie(outcome.notice ? "info" : "success", outcome.notice ?? SIGNIN_MESSAGES.success));
        throw redirect(safeRedirectTarget(from, outcome.role), { headers });
      }
      if (outcome.restart) throw await loginAgain(from, outcome.message);
      return formFailure(submission.reply({ fieldErrors: { code: [outcome.message] }, hideFields: ["code"] }), outcome.status);
    },
  });
}

export default function TwoFactor({ loaderData, actionData }: Route.ComponentProps) {
  const [form, fields] = useSchemaForm(lazyTwoFactorCodeSchema, actionData?.result);
  return (
    <AuthShell title={m.auth_two_factor_title()} subtitle={m.auth_two_factor_subtitle()}>
      {actionData?.toast ? <Toast key={actionData.toast.id} toast={actionData.toast} /> : null}
      <Form method="post" {...getFormProps(form)} className="space-y-1">
        <FormError id={form.errorId} errors={form.errors} />
        <input type="hidden" name="from" value={loaderData.from} />
        <p className="pb-3 text-sm text-slate-600">{TWO_FACTOR_MESSAGES.askCode}</p>
        <Field
          label={m.auth_two_factor_code_label()}
          markRequired
          autoComplete="one-time-code"
          autoCapitalize="none"
          spellCheck={false}
          autoFocus
          maxLength={20}
          hint={m.auth_two_factor_code_hint()}
          errors={fields.code.errors}
          {...getInputProps(fields.code, { type: "text" })}
          key={fields.code.key}
        />
        <Button type="submit" className="w-full" data-pending-text={m.auth_checking()}>
          {m.auth_verify_and_sign_in()}
        </Button>
      </Form>
      <p className="mt-6 text-center text-sm text-slate-600">
        {m.auth_two_factor_no_code()}{" "}
        <TextLink to={href("/login")} weight="semibold" underline="hover">
          {m.auth_back_to_sign_in()}
        </TextLink>
      </p>
    </AuthShell>
  );
}

export function ErrorBoundary() {
  return <AuthErrorBoundary />;
}
