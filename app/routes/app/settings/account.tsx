import { data, Form, href } from "react-router";
import { getFormProps, getInputProps } from "~/components/ui/form-state";
import type { Route } from "./+types/account";
import { requireDeclaredUser } from "~/.server/domains/auth/guards";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";
import { intent, intentAction } from "~/.server/domains/auth/form-actions";
import { redirectWithToast } from "~/.server/infrastructure/http/toast";
import { closeOrganisation, reopenOrganisation } from "~/.server/domains/organisation/closing";
import { CloseOrganisationSchema, ReopenOrganisationSchema } from "~/lib/schemas/organisation";
import { GRACE_DAYS } from "~/lib/schemas/organisation-rules";
import { formatDay, formatWhen } from "~/lib/dates";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { Button } from "~/components/ui/button";
import { Card, CardHeader } from "~/components/ui/card";
import { Field, FormError, PasswordField } from "~/components/ui/field";
import { Toast } from "~/components/ui/toast";
import { lazySchema, useSchemaForm } from "~/components/ui/use-schema-form";
import { SettingsHeader } from "~/components/settings/settings-header";
import { refusalOf, refusalReply } from "~/.server/infrastructure/http/refusal-reply";
import type { Refusal } from "~/.server/infrastructure/refusal";
import type { PermissionHandle } from "~/lib/permissions";
import type { PageHandle } from "~/root";
import { loadAsDocument, menuDocumentPage } from "~/components/layout/document-page";
import { m } from "~/paraglide/messages";

// Loaded when the form is first used (decision 061).
const lazyCloseOrganisationSchema = lazySchema(() => import("~/lib/schemas/organisation"), "CloseOrganisationSchema");
const lazyReopenOrganisationSchema = lazySchema(() => import("~/lib/schemas/organisation"), "ReopenOrganisationSchema");

// Closing and reopening the organisation: the owner.
// A settings form: sent as a document without React (decision 066); the server checks every field and app/assets/forms.js holds the pressed button.
export const handle: PermissionHandle & PageHandle = { permission: "organization:close", ...menuDocumentPage };

// Reached by a client-side navigation, it loads as a document.
export const clientLoader = loadAsDocument;

export const meta: Route.MetaFunction = () => [{ title: m.settings_account_meta_title() }];

/** Closing the organisation, or reopening it while it closes: the owner's (the layout's middleware checks first). */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredUser(args);
  const { name, closureRequestedAt, eraseAfter } = current.organization;
  return {
    name,
    closing:
      closureRequestedAt && eraseAfter ? { requestedAt: closureRequestedAt.toISOString(), eraseAfter: eraseAfter.toISOString() } : null,
  };
}

export async function action(args: Route.ActionArgs) {
  // The route's declaration (organization:close) is checked by the layout's middleware too; closing
  // and reopening refuse any other role in the domain as well (403, said in a toast as before).
  const meta = requestMeta(args.request, args.context);
  const here = href("/settings/account");
  return intentAction(args, {
    permission: "signed-in",
    intents: {
      close: intent(
        CloseOrganisationSchema,
        async ({ value, submission, user, intent: posted }) => {
          try {
            const { eraseAfter } = await closeOrganisation(user, value, meta);
            return redirectWithToast(here, "success", m.settings_account_closing_toast({ date: formatDay(eraseAfter) }));
          } catch (error) {
            return closingRefused(submission, refusalOf(error), posted);
          }
        },
        { reply: { hideFields: ["password"] } },
      ),
      reopen: intent(
        ReopenOrganisationSchema,
        async ({ value, submission, user, intent: posted }) => {
          try {
            await reopenOrganisation(user, value, meta);
            return redirectWithToast(here, "success", m.settings_account_reopened_toast());
          } catch (error) {
            return closingRefused(submission, refusalOf(error), posted);
          }
        },
        { reply: { hideFields: ["password"] } },
      ),
    },
    unknown: () => {
      throw data(m.settings_unknown_action(), { status: 400 });
    },
  });
}

/** A refusal at its field, or above the form; a role that may not close it is told in a toast too. */
function closingRefused<Result>(
  submission: { reply: (options: { formErrors?: string[]; fieldErrors?: Record<string, string[]>; hideFields?: string[] }) => Result },
  refusal: Refusal,
  intent: string,
) {
  return refusalReply(submission, refusal, { hideFields: ["password"], toast: refusal.code === "forbidden", extra: { intent } });
}

export default function AccountSettings({ loaderData, actionData }: Route.ComponentProps) {
  const { name, closing } = loaderData;
  const result = (intent: string) => (actionData && "intent" in actionData && actionData.intent === intent ? actionData.result : undefined);
  return (
    <div className="space-y-6">
      {actionData?.toast ? <Toast key={actionData.toast.id} toast={actionData.toast} /> : null}
      <SettingsHeader current="account" />
      {closing ? (
        <ReopenCard eraseAfter={closing.eraseAfter} requestedAt={closing.requestedAt} result={result("reopen")} />
      ) : (
        <CloseCard name={name} result={result("close")} />
      )}
    </div>
  );
}

function CloseCard({ name, result }: { name: string; result: Parameters<typeof useSchemaForm>[1] }) {
  const [form, fields] = useSchemaForm(lazyCloseOrganisationSchema, result, { id: "close" });
  return (
    <Card>
      <CardHeader title={m.settings_account_close_title()} />
      <div className="mt-2 max-w-3xl space-y-2 text-sm text-slate-700">
        <p>{m.settings_account_close_explain({ days: String(GRACE_DAYS) })}</p>
        <p>{m.settings_account_close_erased({ days: String(GRACE_DAYS), name })}</p>
      </div>
      <Form method="post" {...getFormProps(form)} className="mt-4 max-w-md">
        <FormError id={form.errorId} errors={form.errors} />
        <Field
          label={
            <>
              {m.settings_account_confirm_name_before()} <strong>{name}</strong> {m.settings_account_confirm_name_after()}
            </>
          }
          markRequired
          autoComplete="off"
          spellCheck={false}
          errors={fields.confirmName.errors}
          {...getInputProps(fields.confirmName, { type: "text" })}
          key={fields.confirmName.key}
        />
        <PasswordField
          label={m.settings_your_password()}
          markRequired
          autoComplete="current-password"
          errors={fields.password.errors}
          {...getInputProps(fields.password, { type: "password" })}
          key={fields.password.key}
        />
        <Button type="submit" name="intent" value="close" variant="danger">
          {m.settings_account_close_title()}
        </Button>
      </Form>
    </Card>
  );
}

function ReopenCard({
  eraseAfter,
  requestedAt,
  result,
}: {
  eraseAfter: string;
  requestedAt: string;
  result: Parameters<typeof useSchemaForm>[1];
}) {
  const [form, fields] = useSchemaForm(lazyReopenOrganisationSchema, result, { id: "reopen" });
  return (
    <Card>
      <CardHeader title={m.settings_account_closing_title()} />
      <div className="mt-2 max-w-3xl space-y-2 text-sm text-slate-700">
        <p>
          {m.settings_account_closing_erase_before({ closed: formatWhen(requestedAt) })} <strong>{formatWhen(eraseAfter)}</strong>{" "}
          {m.settings_account_closing_erase_after()}
        </p>
        <p>{m.settings_account_reopen_explain()}</p>
      </div>
      <Form method="post" {...getFormProps(form)} className="mt-4 max-w-md">
        <FormError id={form.errorId} errors={form.errors} />
        <PasswordField
          label={m.settings_your_password()}
          markRequired
          autoComplete="current-password"
          errors={fields.password.errors}
          {...getInputProps(fields.password, { type: "password" })}
          key={fields.password.key}
        />
        <Button type="submit" name="intent" value="reopen">
          {m.settings_account_reopen_button()}
        </Button>
      </Form>
    </Card>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
