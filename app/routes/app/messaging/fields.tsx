import { data, Form, href } from "react-router";
import type { Route } from "./+types/fields";
import * as z from "zod/mini";
import { can, requireDeclaredUser, type CurrentUser } from "~/.server/domains/auth/guards";
import { intent, intentAction } from "~/.server/domains/auth/form-actions";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";
import { postedText } from "~/.server/infrastructure/http/posted-fields";
import { redirectWithToast } from "~/.server/infrastructure/http/toast";
import { attributeDefinitions, type AttributeDefinition } from "~/.server/domains/contacts/attributes";
import { defineAttribute, removeAttribute } from "~/.server/domains/contacts/field-definitions";
import { refusalOf, refusalToast, throwIfNotFound } from "~/.server/infrastructure/http/refusal-reply";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { BackLink } from "~/components/ui/back-link";
import { Button } from "~/components/ui/button";
import { Card, CardHeader } from "~/components/ui/card";
import { Field, SelectField } from "~/components/ui/field";
import { removeRowColumn } from "~/components/ui/remove-row";
import { Table, type Column } from "~/components/ui/table";
import { Toast } from "~/components/ui/toast";
import type { PermissionHandle } from "~/lib/permissions";
import type { PageHandle } from "~/root";
import { loadAsDocument, menuDocumentPage } from "~/components/layout/document-page";
import { m } from "~/paraglide/messages";

// A list and two forms: sent as a document without React (decision 066); app/assets/forms.js holds the pressed button.
export const handle: PermissionHandle & PageHandle = { permission: "contacts:view", ...menuDocumentPage };

// Reached by a client-side navigation, it loads as a document.
export const clientLoader = loadAsDocument;

export const meta: Route.MetaFunction = () => [{ title: m.messaging_fields_meta_title() }];

/** A field's type in words, in the request's language. */
const typeLabels = () =>
  ({
    text: m.messaging_fields_type_text(),
    number: m.messaging_fields_type_number(),
    date: m.messaging_fields_type_date(),
    boolean: m.messaging_fields_type_boolean(),
  }) as const;

/** The tenant's custom contact fields: each a key templates and CSVs use, a label, a type. */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredUser(args);
  return { fields: [...(await attributeDefinitions(current.organization.id)).values()], canManage: can(current.role, "contacts:manage") };
}

// A field's key, label and type (removing names the key); shown again with the reason when refused.
const FieldSchema = z.object({ key: postedText, label: postedText, type: postedText });

export async function action(args: Route.ActionArgs) {
  const actorOf = (current: CurrentUser) => ({
    organizationId: current.organization.id,
    userId: current.user.id,
    meta: requestMeta(args.request, args.context),
  });
  const refused = (error: unknown, values: z.output<typeof FieldSchema>) => {
    const refusal = refusalOf(error);
    throwIfNotFound(refusal);
    return refusalToast(refusal, { problem: refusal.message, values });
  };
  return intentAction(args, {
    permission: "contacts:manage",
    intents: {
      add: intent(FieldSchema, async ({ value, user }) => {
        try {
          const field = await defineAttribute(actorOf(user), value);
          return redirectWithToast(href("/messaging/contacts/fields"), "success", m.messaging_fields_added_toast({ label: field.label }));
        } catch (error) {
          return refused(error, value);
        }
      }),
      remove: intent(FieldSchema, async ({ value, user }) => {
        try {
          await removeAttribute(actorOf(user), value.key);
          return redirectWithToast(href("/messaging/contacts/fields"), "success", m.messaging_fields_removed_toast());
        } catch (error) {
          return refused(error, value);
        }
      }),
    },
    unknown: () => {
      throw data("Unknown action.", { status: 400 });
    },
  });
}

export default function Fields({ loaderData, actionData }: Route.ComponentProps) {
  const { fields, canManage } = loaderData;
  const types = typeLabels();
  const columns: Column<AttributeDefinition>[] = [
    {
      key: "label",
      header: m.messaging_fields_col_label(),
      cell: (row) => <span className="font-medium text-slate-900">{row.label}</span>,
    },
    { key: "key", header: m.messaging_fields_col_key(), cell: (row) => <code className="text-sm">{row.key}</code> },
    { key: "type", header: m.messaging_fields_col_type(), cell: (row) => types[row.type] },
    ...(canManage
      ? [
          removeRowColumn<AttributeDefinition>({
            intent: "remove",
            name: "key",
            value: (row) => row.key,
            label: (row) => m.messaging_fields_remove_label({ label: row.label }),
          }),
        ]
      : []),
  ];
  return (
    <div className="space-y-6">
      {actionData?.toast ? <Toast key={actionData.toast.id} toast={actionData.toast} /> : null}
      <div>
        <BackLink to={href("/messaging/contacts")}>{m.messaging_center_tab_contacts()}</BackLink>
        <h1 className="mt-2 text-2xl font-bold tracking-tight">{m.messaging_fields_title()}</h1>
        <p className="text-slate-600">{m.messaging_fields_intro()}</p>
      </div>
      <Card padding="none">
        <Table
          caption={m.messaging_fields_title()}
          columns={columns}
          rows={fields}
          rowKey={(row) => row.key}
          empty={m.messaging_fields_empty()}
        />
      </Card>
      {canManage ? (
        <Card>
          <CardHeader title={m.messaging_fields_add_title()} />
          <Form method="post" className="mt-4 grid gap-3 sm:grid-cols-4 sm:items-end">
            {actionData?.problem ? (
              <p role="alert" className="text-sm text-red-700 sm:col-span-4">
                {actionData.problem}
              </p>
            ) : null}
            <Field
              label={m.messaging_fields_col_label()}
              name="label"
              maxLength={80}
              defaultValue={actionData?.values?.label}
              placeholder={m.messaging_fields_label_placeholder()}
            />
            <Field
              label={m.messaging_fields_col_key()}
              name="key"
              maxLength={40}
              defaultValue={actionData?.values?.key}
              placeholder={m.messaging_fields_key_placeholder()}
              hint={m.messaging_fields_key_hint()}
            />
            <SelectField
              label={m.messaging_fields_col_type()}
              name="type"
              defaultValue={actionData?.values?.type ?? "text"}
              options={Object.entries(types).map(([value, label]) => ({ value, label }))}
            />
            <div className="pb-6">
              <Button type="submit" name="intent" value="add" pendingText={m.messaging_adding()}>
                {m.messaging_fields_add_button()}
              </Button>
            </div>
          </Form>
        </Card>
      ) : null}
    </div>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
