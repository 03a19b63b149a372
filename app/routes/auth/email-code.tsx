import { data, Form, href, redirect } from "react-router";
import * as z from "zod/mini";
import { getFormProps } from "~/components/ui/form-state";
import type { Route } from "./+types/email-code";
import { OtpSchema } from "~/lib/schemas/auth";
import { joinOtpBoxes } from "~/lib/otp";
import { AuthShell } from "~/components/layout/auth-shell";
import { FormError } from "~/components/ui/field";
import { Button } from "~/components/ui/button";
import { OtpInput } from "~/components/ui/otp-input";
import { lazySchema, useSchemaForm } from "~/components/ui/use-schema-form";
import { Toast } from "~/components/ui/toast";
import { currentUser, homeFor, safeRedirectTarget } from "~/.server/domains/auth/guards";
import {
  accountOfPendingSignIn,
  clearPendingSignInCookieHeader,
  EMAIL_CODE_MESSAGES,
  pendingSignInOf,
  resendSignInCode,
} from "~/.server/domains/auth/email-code/pending";
import { completeEmailCodeSignIn } from "~/.server/domains/auth/email-code/sign-in";
import { signedInHeaders, SIGNIN_MESSAGES } from "~/.server/domains/auth/signin";
import { sessionToken } from "~/.server/domains/auth/sessions";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";
import { redirectWithToast, toastCookie } from "~/.server/infrastructure/http/toast";
import { formFailure } from "~/.server/infrastructure/http/forms";
import { publicIntent, publicIntentAction } from "~/.server/infrastructure/http/intents";
import { postedFirst } from "~/.server/infrastructure/http/posted-fields";
import { AuthErrorBoundary } from "~/components/layout/auth-error";
import { TextLink } from "~/components/ui/text-link";
import { documentPage, loadAsDocument } from "~/components/layout/document-page";
import { m } from "~/paraglide/messages";

// Loaded when the form is first used (decision 061).
const lazyOtpSchema = lazySchema(() => import("~/lib/schemas/auth"), "OtpSchema");

// Plain HTML in the browser, no React (decision 060).
export const handle = documentPage;
export const clientLoader = loadAsDocument;

export const meta: Route.MetaFunction = () => [{ title: m.auth_email_code_meta_title() }, { name: "robots", content: "noindex" }];

async function loginAgain(from: string, message: string) {
  const to = from ? `${href("/login")}?from=${encodeURIComponent(from)}` : href("/login");
  return redirectWithToast(to, "error", message, { headers: { "Set-Cookie": await clearPendingSignInCookieHeader() } });
}

/** Sign-in with a code from the e-mail: only a browser that gave the right password a moment ago sees it. */
export async function loader(args: Route.LoaderArgs) {
  const current = await currentUser(args);
  if (current) throw redirect(homeFor(current.role));
  const from = args.url.searchParams.get("from") ?? "";
  const account = await accountOfPendingSignIn(await pendingSignInOf(args.request));
  if (!account) throw await loginAgain(from, EMAIL_CODE_MESSAGES.timedOut);
  return { from, email: account.user.email, notice: EMAIL_CODE_MESSAGES.askCode };
}

// Where to go once signed in (the sign-in page's `from`), as posted.
const From = { from: postedFirst(2000) };

export async function action(args: Route.ActionArgs) {
  const { request, context } = args;
  const pending = await pendingSignInOf(request);
  const meta = requestMeta(request, context);
  return publicIntentAction(args, {
    intents: {
      resend: publicIntent(z.object(From), async ({ value: { from } }) => {
        const resent = await resendSignInCode(pending, meta);
        if (!resent.ok && resent.restart) throw await loginAgain(from, resent.message);
        const toast = { id: crypto.randomUUID(), type: resent.ok ? ("success" as const) : ("error" as const), message: resent.message };
        return data(
          { result: null, toast },
          { status: resent.ok ? 200 : resent.status, headers: resent.ok ? { "Set-Cookie": resent.cookie } : undefined },
        );
      }),
      verify: publicIntent(
        z.object({ ...OtpSchema.shape, ...From }),
        async ({ value, submission }) => {
          const { from } = value;
          const outcome = await completeEmailCodeSignIn(pending, value.otp, meta, sessionToken(request));
          if (outcome.ok) {
            const headers = signedInHeaders(outcome);
            headers.append("Set-Cookie", await clearPendingSignInCookieHeader());
            headers.append("Set-Cookie", await toastCookie("success", SIGNIN_MESSAGES.success));
            throw redirect(safeRedirectTarget(from, outcome.role), { headers });
          }
          if (outcome.reason === "two_factor") {
            const headers = new Headers();
            headers.append("Set-Cookie", outcome.challengeCookie);
            headers.append("Set-Cookie", await clearPendingSignInCookieHeader());
            const to = from ? `${href("/login/two-factor")}?from=${encodeURIComponent(from)}` : href("/login/two-factor");
            throw redirect(to, { headers });
          }
          if (outcome.restart) throw await loginAgain(from, outcome.message);
          return formFailure(submission.reply({ fieldErrors: { otp: [outcome.message] }, hideFields: ["otp"] }), outcome.status);
        },
        { prepare: joinOtpBoxes, invalid: (submission) => formFailure(submission.reply({ hideFields: ["otp"] })) },
      ),
    },
    // Any other post is the code's (the verify button was always the default).
    unknown: "verify",
  });
}

export default function EmailCode({ loaderData, actionData }: Route.ComponentProps) {
  const [form, fields] = useSchemaForm(lazyOtpSchema, actionData?.result ?? undefined, {
    prepare: joinOtpBoxes,
    // "Send a new code" is for someone without one: it goes out with the boxes empty.
    skipWhen: (formData) => formData.get("intent") === "resend",
  });
  const otpError = fields.otp.errors?.[0];
  return (
    <AuthShell
      title={m.auth_email_code_title()}
      subtitle={
        <>
          {m.auth_code_sent_to()} <strong className="text-slate-900">{loaderData.email}</strong>
          {m.auth_email_code_sent_after()}
        </>
      }
    >
      {actionData?.toast ? <Toast key={actionData.toast.id} toast={actionData.toast} /> : null}
      <Form method="post" {...getFormProps(form)}>
        <FormError id={form.errorId} errors={form.errors} />
        <input type="hidden" name="from" value={loaderData.from} />
        <p className="pb-3 text-sm text-slate-600">{loaderData.notice}</p>
        <OtpInput describedBy={fields.otp.errorId} invalid={!!otpError} />
        <p id={fields.otp.errorId} className="min-h-5 pt-1 text-sm text-red-600">
          {otpError ?? ""}
        </p>
        <Button type="submit" name="intent" value="verify" className="mt-4 w-full" data-pending-text={m.auth_checking()}>
          {m.auth_verify_and_sign_in()}
        </Button>
      </Form>
      <p className="mt-6 text-center text-sm text-slate-600">
        {m.auth_email_code_no_email()}{" "}
        <Button type="submit" variant="link" form={form.id} formNoValidate name="intent" value="resend">
          {m.auth_send_new_code()}
        </Button>
      </p>
      <p className="mt-2 text-center text-sm text-slate-600">
        {m.auth_email_code_not_you()}{" "}
        <TextLink to={href("/login")} weight="semibold" underline="hover">
          {m.auth_back_to_sign_in()}
        </TextLink>
      </p>
    </AuthShell>
  );
}

// What went wrong, in words, inside the page's own layout.
export function ErrorBoundary() {
  return <AuthErrorBoundary />;
}
