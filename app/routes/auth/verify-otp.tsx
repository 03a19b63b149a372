import { data, Form, href } from "react-router";
import { Link } from "~/components/ui/link";
import * as z from "zod/mini";
import { getFormProps } from "~/components/ui/form-state";
import type { Route } from "./+types/verify-otp";
import { OtpSchema } from "~/lib/schemas/auth";
import { MESSAGES } from "~/lib/schemas/auth-rules";
import { AuthShell } from "~/components/layout/auth-shell";
import { Field, FormError, FormSuccess } from "~/components/ui/field";
import { Button } from "~/components/ui/button";
import { lazySchema, useSchemaForm } from "~/components/ui/use-schema-form";
import { OtpInput } from "~/components/ui/otp-input";
import { Toast } from "~/components/ui/toast";
import { signedCookies } from "~/.server/infrastructure/http/cookies";
import { resendSignupCode, verifySignupCode } from "~/.server/domains/auth/verification";
import { secondsUntilResend } from "~/.server/domains/auth/resend-window";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";
import { formFailure } from "~/.server/infrastructure/http/forms";
import { publicIntent, publicIntentAction } from "~/.server/infrastructure/http/intents";
import { postedFirst } from "~/.server/infrastructure/http/posted-fields";
import { joinOtpBoxes } from "~/lib/otp";
import { AuthErrorBoundary } from "~/components/layout/auth-error";
import { documentPage, loadAsDocument } from "~/components/layout/document-page";
import { m } from "~/paraglide/messages";

// Loaded when the form is first used (decision 061).
const lazyOtpSchema = lazySchema(() => import("~/lib/schemas/auth"), "OtpSchema");

// Spec section 9: 1.5 s on the success message, then the sign-in page.
const REDIRECT_DELAY_MS = 1500;

// Plain HTML in the browser, no React (decision 060).
export const handle = documentPage;
export const clientLoader = loadAsDocument;

export const meta: Route.MetaFunction = () => [
  { title: m.auth_verify_meta_title() },
  { name: "description", content: m.auth_verify_meta_description() },
];

export async function loader({ request }: Route.LoaderArgs) {
  const email = ((await signedCookies().otpEmail.parse(request.headers.get("cookie"))) as string | null) ?? "";
  return { email, resendIn: email ? await secondsUntilResend(email) : 0 };
}

// The address the code was sent to, when this browser has no cookie of it (as posted).
const Email = { email: postedFirst(Number.MAX_SAFE_INTEGER) };

export async function action(args: Route.ActionArgs) {
  const { request, context } = args;
  const cookieEmail = (await signedCookies().otpEmail.parse(request.headers.get("cookie"))) as string | null;
  const meta = requestMeta(request, context);
  return publicIntentAction(args, {
    intents: {
      resend: publicIntent(z.object(Email), async ({ value }) => {
        const email = cookieEmail || value.email.trim();
        if (!email)
          return formFailure({ status: "error" as const, error: { email: [MESSAGES.emailRequired] } }, 400, m.auth_verify_resend_failed());
        const outcome = await resendSignupCode(email, meta);
        return data(
          {
            result: null,
            toast: { id: crypto.randomUUID(), type: outcome.ok ? ("success" as const) : ("error" as const), message: outcome.message },
            resendIn: outcome.ok ? 30 : outcome.retryAfterSeconds,
          },
          { status: outcome.ok ? 200 : outcome.status },
        );
      }),
      verify: publicIntent(
        OtpSchema,
        async ({ value, submission }) => {
          const email = cookieEmail || (value.email ?? "");
          if (!email) return formFailure(submission.reply({ fieldErrors: { email: [MESSAGES.emailRequired] } }));
          const outcome = await verifySignupCode(email, value.otp, meta);
          if (!outcome.ok)
            return formFailure(
              submission.reply({ formErrors: [outcome.message || m.auth_verify_failed()], hideFields: ["otp"] }),
              outcome.status,
              outcome.message,
            );
          return data(
            { result: submission.reply({ resetForm: true }), toast: null, success: outcome.message },
            { headers: { "Set-Cookie": await signedCookies().otpEmail.serialize("", { maxAge: 0 }) } },
          );
        },
        { prepare: joinOtpBoxes, invalid: (submission) => formFailure(submission.reply({ hideFields: ["otp"] })) },
      ),
    },
    unknown: "verify",
  });
}

export default function VerifyOtp({ loaderData, actionData }: Route.ComponentProps) {
  const success = actionData && "success" in actionData ? String(actionData.success) : null;
  const [form, fields] = useSchemaForm(lazyOtpSchema, actionData?.result ?? undefined, {
    prepare: joinOtpBoxes,
    // "Resend OTP" is for a user who has no code: it must go out with the boxes empty.
    skipWhen: (formData) => formData.get("intent") === "resend",
  });
  const resendIn = actionData && "resendIn" in actionData ? actionData.resendIn : loaderData.resendIn;

  if (success) {
    return (
      <AuthShell title={m.auth_verify_title()}>
        {/* The browser follows this after the pause, with or without scripts. */}
        <meta httpEquiv="refresh" content={`${REDIRECT_DELAY_MS / 1000};url=/login`} />
        <Toast toast={{ type: "success", message: success }} />
        <FormSuccess message={success} />
        <Link to={href("/login")} className="text-sm font-semibold text-brand-700 underline">
          {m.auth_verify_continue()}
        </Link>
      </AuthShell>
    );
  }

  const otpError = fields.otp.errors?.[0];
  return (
    <AuthShell
      title={m.auth_verify_title()}
      subtitle={
        loaderData.email ? (
          <>
            {m.auth_code_sent_to()} <strong className="text-slate-900">{loaderData.email}</strong>
            {m.auth_verify_enter_below()}
          </>
        ) : (
          m.auth_verify_subtitle_no_email()
        )
      }
    >
      {actionData?.toast ? <Toast key={actionData.toast.id} toast={actionData.toast} /> : null}
      <Form method="post" {...getFormProps(form)}>
        <FormError id={form.errorId} errors={form.errors} />
        {loaderData.email ? null : (
          <Field label={m.auth_email_label()} name="email" type="email" autoComplete="email" markRequired errors={fields.email.errors} />
        )}
        <OtpInput describedBy={fields.otp.errorId} invalid={!!otpError} />
        <p id={fields.otp.errorId} className="min-h-5 pt-1 text-sm text-red-600">
          {otpError ?? ""}
        </p>
        <Button type="submit" name="intent" value="verify" className="mt-4 w-full" data-pending-text={m.auth_verify_pending()}>
          {m.auth_verify_submit()}
        </Button>
      </Form>
      <p className="mt-6 text-center text-sm text-slate-600">
        {m.auth_verify_no_code()}{" "}
        {/* Usable at once as the server renders it (the server keeps the 30 s window and says so); the
            page's script disables it and counts down from the server's figure. */}
        <Button
          type="submit"
          variant="link"
          form={form.id}
          formNoValidate
          name="intent"
          value="resend"
          data-countdown={resendIn}
          data-countdown-text={m.auth_forms_countdown({ label: m.auth_verify_resend(), seconds: "{seconds}" })}
        >
          {m.auth_verify_resend()}
        </Button>
      </p>
    </AuthShell>
  );
}

// What went wrong, in words, inside the page's own layout.
export function ErrorBoundary() {
  return <AuthErrorBoundary />;
}
