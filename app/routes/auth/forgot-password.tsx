import { Form, href, redirect } from "react-router";
import { getFormProps, getInputProps } from "~/components/ui/form-state";
import type { Route } from "./+types/forgot-password";
import { EmailOnlySchema } from "~/lib/schemas/auth";
import { AuthShell } from "~/components/layout/auth-shell";
import { Field, FormError } from "~/components/ui/field";
import { Button } from "~/components/ui/button";
import { lazySchema, useSchemaForm } from "~/components/ui/use-schema-form";
import { HoneypotInputs } from "~/components/ui/honeypot";
import { Toast } from "~/components/ui/toast";
import { requestPasswordReset } from "~/.server/domains/auth/password-reset";
import { signedCookies } from "~/.server/infrastructure/http/cookies";
import { honeypotInputProps } from "~/.server/infrastructure/http/honeypot";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";
import { formFailure } from "~/.server/infrastructure/http/forms";
import { publicFormAction } from "~/.server/infrastructure/http/intents";
import { toastCookie } from "~/.server/infrastructure/http/toast";
import { AuthErrorBoundary } from "~/components/layout/auth-error";
import { TextLink } from "~/components/ui/text-link";
import { documentPage, loadAsDocument } from "~/components/layout/document-page";
import { m } from "~/paraglide/messages";

// Loaded when the form is first used (decision 061).
const lazyEmailOnlySchema = lazySchema(() => import("~/lib/schemas/auth"), "EmailOnlySchema");

// Plain HTML in the browser, no React (decision 060).
export const handle = documentPage;
export const clientLoader = loadAsDocument;

export const meta: Route.MetaFunction = () => [
  { title: m.auth_forgot_meta_title() },
  { name: "description", content: m.auth_forgot_meta_description() },
];

export async function loader() {
  return { honeypot: await honeypotInputProps() };
}

export async function action(args: Route.ActionArgs) {
  return publicFormAction(args, {
    schema: EmailOnlySchema,
    spam: (submission) => formFailure(submission.reply({ formErrors: [m.auth_forgot_spam()] })),
    handle: async ({ value, submission }) => {
      const outcome = await requestPasswordReset(value.email, requestMeta(args.request, args.context));
      if (!outcome.ok) return formFailure(submission.reply({ formErrors: [outcome.message] }), outcome.status, outcome.message);
      const headers = new Headers();
      headers.append("Set-Cookie", await signedCookies().resetEmail.serialize(value.email));
      headers.append("Set-Cookie", await toastCookie("success", outcome.message));
      throw redirect(href("/reset-password"), { headers });
    },
  });
}

export default function ForgotPassword({ loaderData, actionData }: Route.ComponentProps) {
  const [form, fields] = useSchemaForm(lazyEmailOnlySchema, actionData?.result);
  return (
    <AuthShell title={m.auth_forgot_password()} subtitle={m.auth_forgot_subtitle()}>
      {actionData?.toast ? <Toast key={actionData.toast.id} toast={actionData.toast} /> : null}
      <Form method="post" {...getFormProps(form)}>
        <FormError id={form.errorId} errors={form.errors} />
        <HoneypotInputs honeypot={loaderData.honeypot} />
        <Field
          label={m.auth_email_label()}
          markRequired
          autoComplete="email"
          errors={fields.email.errors}
          {...getInputProps(fields.email, { type: "email" })}
          key={fields.email.key}
        />
        <Button type="submit" className="mt-2 w-full" data-pending-text={m.auth_forgot_pending()}>
          {m.auth_forgot_submit()}
        </Button>
      </Form>
      <p className="mt-6 text-center text-sm">
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
