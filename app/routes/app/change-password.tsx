import { Form } from "react-router";
import { Link } from "~/components/ui/link";
import { getFormProps, getInputProps } from "~/components/ui/form-state";
import { ArrowLeft } from "~/components/ui/icons";
import type { Route } from "./+types/change-password";
import { ChangePasswordSchema } from "~/lib/schemas/auth";
import { FormError, PasswordField } from "~/components/ui/field";
import { Button } from "~/components/ui/button";
import { lazySchema, useSchemaForm } from "~/components/ui/use-schema-form";
import { NewPasswordFields } from "~/components/ui/new-password-fields";
import { Toast } from "~/components/ui/toast";
import { can, requireDeclaredUser } from "~/.server/domains/auth/guards";
import { changePassword } from "~/.server/domains/auth/change-password";
import { sessionToken } from "~/.server/domains/auth/sessions";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";
import { formFailure } from "~/.server/infrastructure/http/forms";
import { formAction } from "~/.server/domains/auth/form-actions";
import { redirectWithToast } from "~/.server/infrastructure/http/toast";
import { PageErrorBoundary } from "~/components/layout/page-error";
import type { PermissionHandle } from "~/lib/permissions";
import type { PageHandle } from "~/root";
import { loadAsDocument, menuDocumentPage } from "~/components/layout/document-page";
import { m } from "~/paraglide/messages";

// Loaded when the form is first used (decision 061).
const lazyChangePasswordSchema = lazySchema(() => import("~/lib/schemas/auth"), "ChangePasswordSchema");

// A settings form: sent as a document without React (decision 066); the server checks every field and app/assets/forms.js holds the pressed button.
export const handle: PermissionHandle & PageHandle = { permission: "account:manage", ...menuDocumentPage };

// Reached by a client-side navigation, it loads as a document.
export const clientLoader = loadAsDocument;

export const meta: Route.MetaFunction = () => [{ title: m.settings_change_password_meta_title() }];

export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredUser(args);
  // Those who run the console have their profile inside it.
  return { profilePath: can(current.role, "platform:console") ? "/admin/profile" : "/profile" };
}

export async function action(args: Route.ActionArgs) {
  const { request, context, url } = args;
  const hide = ["currentPassword", "newPassword", "confirmPassword"];
  return formAction(args, {
    permission: "account:manage",
    schema: ChangePasswordSchema,
    reply: { hideFields: hide },
    handle: async ({ value, submission, user }) => {
      const { currentPassword, newPassword } = value;
      const outcome = await changePassword(user, currentPassword!, newPassword!, sessionToken(request), requestMeta(request, context));
      if (!outcome.ok) {
        const reply = outcome.field
          ? submission.reply({ fieldErrors: { [outcome.field]: [outcome.message] }, hideFields: hide })
          : submission.reply({ formErrors: [outcome.message], hideFields: hide });
        return formFailure(reply, outcome.status, outcome.message);
      }
      return redirectWithToast(url.pathname, "success", outcome.message, { headers: { "Set-Cookie": outcome.deviceCookie } });
    },
  });
}

export default function ChangePassword({ loaderData, actionData }: Route.ComponentProps) {
  const [form, fields] = useSchemaForm(lazyChangePasswordSchema, actionData?.result, { shouldValidate: "onBlur" });
  return (
    <div className="mx-auto max-w-lg">
      {actionData?.toast ? <Toast key={actionData.toast.id} toast={actionData.toast} /> : null}
      <Link to={loaderData.profilePath} className="inline-flex items-center gap-1 text-sm font-medium text-slate-600 hover:text-slate-900">
        <ArrowLeft className="size-4" aria-hidden /> {m.settings_change_password_back()}
      </Link>
      <h1 className="mt-4 text-2xl font-bold tracking-tight">{m.settings_change_password_title()}</h1>
      <p className="text-slate-600">{m.settings_change_password_intro()}</p>
      <Form method="post" {...getFormProps(form)} className="mt-6 rounded-xl border border-slate-200 bg-white p-6 shadow-sm">
        <FormError id={form.errorId} errors={form.errors} />
        <PasswordField
          label={m.settings_change_password_current()}
          markRequired
          autoComplete="current-password"
          errors={fields.currentPassword.errors}
          {...getInputProps(fields.currentPassword, { type: "password" })}
          key={fields.currentPassword.key}
        />
        <NewPasswordFields
          newPassword={fields.newPassword}
          confirmPassword={fields.confirmPassword}
          confirmLabel={m.settings_change_password_confirm()}
        />
        <Button type="submit" className="w-full" pendingText={m.settings_change_password_pending()}>
          {m.settings_change_password_submit()}
        </Button>
      </Form>
    </div>
  );
}

// What went wrong, in words, inside the page's own layout.
export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
