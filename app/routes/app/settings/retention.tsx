import { Form, href } from "react-router";
import { getFormProps, getInputProps } from "~/components/ui/form-state";
import type { Route } from "./+types/retention";
import { requireDeclaredUser } from "~/.server/domains/auth/guards";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";
import { formAction } from "~/.server/domains/auth/form-actions";
import { redirectWithToast } from "~/.server/infrastructure/http/toast";
import { refusalToast } from "~/.server/infrastructure/http/refusal-reply";
import { retentionPolicy, updateRetentionPolicy } from "~/.server/domains/organisation/retention";
import { RetentionSchema } from "~/lib/schemas/retention";
import { RETENTION_LIMITS } from "~/lib/retention-limits";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { Button } from "~/components/ui/button";
import { Card, CardHeader } from "~/components/ui/card";
import { Field, FormError } from "~/components/ui/field";
import { Toast } from "~/components/ui/toast";
import { lazySchema, useSchemaForm } from "~/components/ui/use-schema-form";
import { SettingsHeader } from "~/components/settings/settings-header";
import type { PermissionHandle } from "~/lib/permissions";
import type { PageHandle } from "~/root";
import { loadAsDocument, menuDocumentPage } from "~/components/layout/document-page";
import { m } from "~/paraglide/messages";

// Loaded when the form is first used (decision 061).
const lazyRetentionSchema = lazySchema(() => import("~/lib/schemas/retention"), "RetentionSchema");

// Settings → Data retention (issue 78, decision 165): how long message bodies, media and logs are
// kept, within the platform's limits. Owners and admins; a plain form without React (decision 066).
export const handle: PermissionHandle & PageHandle = { permission: "organization:manage", ...menuDocumentPage };

export const clientLoader = loadAsDocument;

export const meta: Route.MetaFunction = () => [{ title: m.retention_meta_title() }];

/** Read with the session: the page costs no statement of its own. */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredUser(args);
  return { policy: retentionPolicy(current.organization) };
}

export async function action(args: Route.ActionArgs) {
  // The layout's middleware checks organization:manage first; updateRetentionPolicy refuses any other role too.
  return formAction(args, {
    permission: "signed-in",
    schema: RetentionSchema,
    handle: async ({ value, user }) => {
      const changed = await updateRetentionPolicy(user, value, requestMeta(args.request, args.context));
      return redirectWithToast(href("/settings/retention"), "success", changed ? m.retention_saved_toast() : m.retention_unchanged_toast());
    },
    refused: (refusal) => refusalToast(refusal),
  });
}

const FIELDS = [
  {
    name: "messageDays",
    limits: RETENTION_LIMITS.messages,
    label: () => m.retention_messages_label(),
    hint: () => m.retention_messages_hint(),
  },
  { name: "mediaDays", limits: RETENTION_LIMITS.media, label: () => m.retention_media_label(), hint: () => m.retention_media_hint() },
  { name: "logDays", limits: RETENTION_LIMITS.logs, label: () => m.retention_logs_label(), hint: () => m.retention_logs_hint() },
] as const;

export default function RetentionSettings({ loaderData, actionData }: Route.ComponentProps) {
  const { policy } = loaderData;
  const [form, fields] = useSchemaForm(lazyRetentionSchema, actionData?.result, {
    id: "retention",
    shouldValidate: "onBlur",
    defaultValue: { messageDays: String(policy.messageDays), mediaDays: String(policy.mediaDays), logDays: String(policy.logDays) },
  });
  return (
    <div className="space-y-6">
      {actionData?.toast ? <Toast key={actionData.toast.id} toast={actionData.toast} /> : null}
      <SettingsHeader current="retention" />
      <Card>
        <CardHeader title={m.retention_title()} description={m.retention_description()} />
        <p className="mt-3 text-sm text-slate-600">{m.retention_money_kept()}</p>
        <Form method="post" {...getFormProps(form)} className="mt-4 grid max-w-3xl gap-x-4 sm:grid-cols-3">
          <div className="sm:col-span-3">
            <FormError id={form.errorId} errors={form.errors} />
          </div>
          {FIELDS.map((field) => (
            <Field
              key={fields[field.name].key}
              label={field.label()}
              hint={`${field.hint()} ${m.retention_range_hint({ min: field.limits.min, max: field.limits.max, standard: field.limits.default })}`}
              markRequired
              inputMode="numeric"
              min={field.limits.min}
              max={field.limits.max}
              errors={fields[field.name].errors}
              {...getInputProps(fields[field.name], { type: "number" })}
            />
          ))}
          <div className="sm:col-span-3">
            <Button type="submit">{m.retention_save()}</Button>
          </div>
        </Form>
      </Card>
    </div>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
