import { Form, href, redirect } from "react-router";
import { Link } from "~/components/ui/link";
import { getFormProps, getInputProps } from "~/components/ui/form-state";
import type { Route } from "./+types/login";
import { SigninSchema } from "~/lib/schemas/auth";
import { AuthShell, ChatPreview } from "~/components/layout/auth-shell";
import { Field, FormError, PasswordField } from "~/components/ui/field";
import { Button } from "~/components/ui/button";
import { lazySchema, useSchemaForm } from "~/components/ui/use-schema-form";
import { HoneypotInputs } from "~/components/ui/honeypot";
import { Toast } from "~/components/ui/toast";
import { currentUser, homeFor, safeRedirectTarget } from "~/.server/domains/auth/guards";
import { signedInHeaders, signIn, SIGNIN_MESSAGES } from "~/.server/domains/auth/signin";
import { signedCookies } from "~/.server/infrastructure/http/cookies";
import { deviceCookieValue } from "~/.server/domains/auth/known-device";
import { sessionToken } from "~/.server/domains/auth/sessions";
import { honeypotInputProps } from "~/.server/infrastructure/http/honeypot";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";
import { toastCookie } from "~/.server/infrastructure/http/toast";
import { formFailure } from "~/.server/infrastructure/http/forms";
import { publicFormAction } from "~/.server/infrastructure/http/intents";
import { AuthErrorBoundary } from "~/components/layout/auth-error";
import { TextLink } from "~/components/ui/text-link";
import { documentPage, loadAsDocument } from "~/components/layout/document-page";
import { m } from "~/paraglide/messages";

// Loaded when the form is first used (decision 061).
const lazySigninSchema = lazySchema(() => import("~/lib/schemas/auth"), "SigninSchema");

// Plain HTML in the browser, no React (decision 060).
export const handle = documentPage;
export const clientLoader = loadAsDocument;

export const meta: Route.MetaFunction = () => [
  { title: m.auth_login_meta_title() },
  { name: "description", content: m.auth_login_meta_description() },
];

export async function loader(args: Route.LoaderArgs) {
  const current = await currentUser(args);
  if (current) throw redirect(homeFor(current.role));
  const from = args.url.searchParams.get("from") ?? "";
  return { honeypot: await honeypotInputProps(), from };
}

export async function action(args: Route.ActionArgs) {
  const { request, context } = args;
  return publicFormAction(args, {
    schema: SigninSchema,
    reply: { hideFields: ["password"] },
    spam: (submission) =>
      formFailure(submission.reply({ formErrors: [SIGNIN_MESSAGES.fallback], hideFields: ["password"] }), 400, SIGNIN_MESSAGES.fallback),
    handle: async ({ value, submission }) => {
      const { email, password, remember, from } = value;
      const outcome = await signIn(
        email,
        password,
        remember === true,
        requestMeta(request, context),
        sessionToken(request),
        deviceCookieValue(request),
      );
      if (outcome.ok) {
        const headers = signedInHeaders(outcome);
        headers.append("Set-Cookie", await toastCookie("success", SIGNIN_MESSAGES.success));
        throw redirect(safeRedirectTarget(from, outcome.role), { headers });
      }
      if (outcome.reason === "two_factor") {
        // The password was right: the code from the app comes next, on its own page.
        const to = from ? `${href("/login/two-factor")}?from=${encodeURIComponent(from)}` : href("/login/two-factor");
        throw redirect(to, { headers: { "Set-Cookie": outcome.challengeCookie } });
      }
      if (outcome.reason === "email_code") {
        // The right password while the account is under attack: a code from the e-mail comes next.
        const to = from ? `${href("/login/email-code")}?from=${encodeURIComponent(from)}` : href("/login/email-code");
        throw redirect(to, { headers: { "Set-Cookie": outcome.codeCookie } });
      }
      if (outcome.reason === "unverified") {
        const headers = new Headers();
        headers.append("Set-Cookie", await signedCookies().otpEmail.serialize(outcome.email));
        headers.append("Set-Cookie", await toastCookie("info", outcome.message));
        throw redirect(href("/verify-otp"), { headers });
      }
      return formFailure(submission.reply({ formErrors: [outcome.message], hideFields: ["password"] }), outcome.status, outcome.message);
    },
  });
}

export default function Login({ loaderData, actionData }: Route.ComponentProps) {
  const [form, fields] = useSchemaForm(lazySigninSchema, actionData?.result);
  return (
    <AuthShell title={m.auth_login_title()} subtitle={m.auth_login_subtitle()} aside={<ChatPreview />}>
      {actionData?.toast ? <Toast key={actionData.toast.id} toast={actionData.toast} /> : null}
      <Form method="post" {...getFormProps(form)} className="space-y-1">
        <FormError id={form.errorId} errors={form.errors} />
        <HoneypotInputs honeypot={loaderData.honeypot} />
        <input type="hidden" name="from" value={loaderData.from} />
        <Field
          label={m.auth_email_label()}
          markRequired
          autoComplete="email"
          inputMode="email"
          errors={fields.email.errors}
          {...getInputProps(fields.email, { type: "email" })}
          key={fields.email.key}
        />
        <PasswordField
          label={m.auth_password_label()}
          markRequired
          autoComplete="current-password"
          errors={fields.password.errors}
          {...getInputProps(fields.password, { type: "password" })}
          key={fields.password.key}
        />
        <div className="flex items-center justify-between pb-4 text-sm">
          <label className="flex items-center gap-2 text-slate-700">
            <input type="checkbox" name="remember" value="on" className="size-4 rounded border-slate-300 accent-brand-600" />
            {m.auth_login_remember()}
          </label>
          <TextLink to={href("/forgot-password")} weight="medium" underline="hover">
            {m.auth_forgot_password()}
          </TextLink>
        </div>
        <Button type="submit" className="w-full" data-pending-text={m.auth_login_pending()}>
          {m.auth_login_submit()}
        </Button>
      </Form>
      <p className="mt-6 text-center text-sm text-slate-600">
        {m.auth_login_no_account()}{" "}
        <TextLink to={href("/signup")} weight="semibold" underline="hover">
          {m.auth_login_sign_up_link()}
        </TextLink>
      </p>
      <p className="mt-4 text-center text-xs text-slate-500">
        {m.auth_login_terms_before()}{" "}
        <Link to={href("/terms")} className="underline">
          {m.auth_terms_of_service()}
        </Link>{" "}
        {m.auth_login_terms_and()}{" "}
        <Link to={href("/privacy")} className="underline">
          {m.auth_privacy_policy()}
        </Link>
        {m.auth_login_terms_after()}
      </p>
    </AuthShell>
  );
}

// What went wrong, in words, inside the page's own layout.
export function ErrorBoundary() {
  return <AuthErrorBoundary />;
}
