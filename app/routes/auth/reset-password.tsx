import { Form, href, redirect } from "react-router";
import { getFormProps } from "~/components/ui/form-state";
import type { Route } from "./+types/reset-password";
import { ResetPasswordSchema } from "~/lib/schemas/auth";
import { joinOtpBoxes } from "~/lib/otp";
import { AuthShell } from "~/components/layout/auth-shell";
import { FormError } from "~/components/ui/field";
import { Button } from "~/components/ui/button";
import { lazySchema, useSchemaForm } from "~/components/ui/use-schema-form";
import { OtpInput } from "~/components/ui/otp-input";
import { NewPasswordFields } from "~/components/ui/new-password-fields";
import { Toast } from "~/components/ui/toast";
import { resetPassword } from "~/.server/domains/auth/password-reset";
import { signedCookies } from "~/.server/infrastructure/http/cookies";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";
import { formFailure } from "~/.server/infrastructure/http/forms";
import { publicFormAction } from "~/.server/infrastructure/http/intents";
import { toastCookie } from "~/.server/infrastructure/http/toast";
import { AuthErrorBoundary } from "~/components/layout/auth-error";
import { TextLink } from "~/components/ui/text-link";
import { documentPage, loadAsDocument } from "~/components/layout/document-page";
import { m } from "~/paraglide/messages";

// Loaded when the form is first used (decision 061).
const lazyResetPasswordSchema = lazySchema(() => import("~/lib/schemas/auth"), "ResetPasswordSchema");

// Plain HTML in the browser, no React (decision 060).
export const handle = documentPage;
export const clientLoader = loadAsDocument;

export const meta: Route.MetaFunction = () => [{ title: m.auth_reset_meta_title() }];

async function resetEmail(request: Request) {
  return ((await signedCookies().resetEmail.parse(request.headers.get("cookie"))) as string | null) ?? null;
}

export async function loader({ request }: Route.LoaderArgs) {
  const email = await resetEmail(request);
  if (!email) throw redirect(href("/forgot-password"));
  return { email };
}

const hide = ["newPassword", "confirmPassword", "otp"];

export async function action(args: Route.ActionArgs) {
  const email = await resetEmail(args.request);
  if (!email) throw redirect(href("/forgot-password"));
  return publicFormAction(args, {
    schema: ResetPasswordSchema,
    prepare: joinOtpBoxes,
    reply: { hideFields: hide },
    handle: async ({ value, submission }) => {
      const outcome = await resetPassword(email, value.otp, value.newPassword!, requestMeta(args.request, args.context));
      if (!outcome.ok)
        return formFailure(submission.reply({ formErrors: [outcome.message], hideFields: hide }), outcome.status, outcome.message);
      const headers = new Headers();
      headers.append("Set-Cookie", await signedCookies().resetEmail.serialize("", { maxAge: 0 }));
      headers.append("Set-Cookie", await toastCookie("success", outcome.message));
      throw redirect(href("/login"), { headers });
    },
  });
}

export default function ResetPassword({ loaderData, actionData }: Route.ComponentProps) {
  const [form, fields] = useSchemaForm(lazyResetPasswordSchema, actionData?.result, { prepare: joinOtpBoxes });
  return (
    <AuthShell
      title={m.auth_reset_title()}
      subtitle={
        <>
          {m.auth_reset_subtitle_before()} <strong className="text-slate-900">{loaderData.email}</strong> {m.auth_reset_subtitle_after()}
        </>
      }
    >
      {actionData?.toast ? <Toast key={actionData.toast.id} toast={actionData.toast} /> : null}
      <Form method="post" {...getFormProps(form)}>
        <FormError id={form.errorId} errors={form.errors} />
        <p className="mb-2 text-sm font-medium text-slate-700">{m.auth_reset_code_label()}</p>
        <OtpInput describedBy={fields.otp.errorId} invalid={!!fields.otp.errors} />
        <p id={fields.otp.errorId} className="min-h-5 pt-1 text-sm text-red-600">
          {fields.otp.errors?.[0] ?? ""}
        </p>
        <NewPasswordFields
          newPassword={fields.newPassword}
          confirmPassword={fields.confirmPassword}
          confirmLabel={m.auth_reset_confirm_label()}
        />
        <Button type="submit" className="mt-2 w-full" data-pending-text={m.auth_reset_pending()}>
          {m.auth_reset_submit()}
        </Button>
      </Form>
      <p className="mt-6 text-center text-sm">
        <TextLink to={href("/forgot-password")} weight="semibold" underline="hover">
          {m.auth_send_new_code()}
        </TextLink>
      </p>
    </AuthShell>
  );
}

// What went wrong, in words, inside the page's own layout.
export function ErrorBoundary() {
  return <AuthErrorBoundary />;
}
