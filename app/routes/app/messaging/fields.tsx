import { data, Form, href } from "react-router";
import type { Route } from "./+types/fields";
import { can, requireUserWithPermission } from "~/.server/domains/auth/guards";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";
import { readForm } from "~/.server/infrastructure/http/forms";
import { postedTexts } from "~/.server/infrastructure/http/posted-fields";
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

// A list and two forms: sent as a document without React (decision 066); app/assets/forms.js holds the pressed button.
export const handle: PermissionHandle & PageHandle = { permission: "contacts:view", ...menuDocumentPage };

// Reached by a client-side navigation, it loads as a document.
export const clientLoader = loadAsDocument;

export const meta: Route.MetaFunction = () => [{ title: "Contact fields | Contacts | Jumbe" }];

const TYPE_LABELS = { text: "Text", number: "Number", date: "Date", boolean: "Yes/no" } as const;

/** The tenant's custom contact fields: each a key templates and CSVs use, a label, a type. */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireUserWithPermission(args, "contacts:view");
  return { fields: [...(await attributeDefinitions(current.organization.id)).values()], canManage: can(current.role, "contacts:manage") };
}

export async function action(args: Route.ActionArgs) {
  const current = await requireUserWithPermission(args, "contacts:manage");
  const form = await readForm(args.request);
  const actor = { organizationId: current.organization.id, userId: current.user.id, meta: requestMeta(args.request, args.context) };
  const posted = postedTexts(form, ["intent", "key", "label", "type"]);
  const text = (name: "key" | "label" | "type") => posted[name];
  try {
    if (posted.intent === "add") {
      const field = await defineAttribute(actor, { key: text("key"), label: text("label"), type: text("type") });
      return redirectWithToast(href("/messaging/contacts/fields"), "success", `Field "${field.label}" added.`);
    }
    if (posted.intent === "remove") {
      await removeAttribute(actor, text("key"));
      return redirectWithToast(href("/messaging/contacts/fields"), "success", "Field removed, with its values.");
    }
  } catch (error) {
    const refusal = refusalOf(error);
    throwIfNotFound(refusal);
    return refusalToast(refusal, { problem: refusal.message, values: { key: text("key"), label: text("label"), type: text("type") } });
  }
  throw data("Unknown action.", { status: 400 });
}

export default function Fields({ loaderData, actionData }: Route.ComponentProps) {
  const { fields, canManage } = loaderData;
  const columns: Column<AttributeDefinition>[] = [
    { key: "label", header: "Label", cell: (row) => <span className="font-medium text-slate-900">{row.label}</span> },
    { key: "key", header: "Key", cell: (row) => <code className="text-sm">{row.key}</code> },
    { key: "type", header: "Type", cell: (row) => TYPE_LABELS[row.type] },
    ...(canManage
      ? [
          removeRowColumn<AttributeDefinition>({
            intent: "remove",
            name: "key",
            value: (row) => row.key,
            label: (row) => `Remove field ${row.label}`,
          }),
        ]
      : []),
  ];
  return (
    <div className="space-y-6">
      {actionData?.toast ? <Toast key={actionData.toast.id} toast={actionData.toast} /> : null}
      <div>
        <BackLink to={href("/messaging/contacts")}>Contacts</BackLink>
        <h1 className="mt-2 text-2xl font-bold tracking-tight">Contact fields</h1>
        <p className="text-slate-600">Your own fields on every contact, usable as template variables and import columns.</p>
      </div>
      <Card padding="none">
        <Table caption="Contact fields" columns={columns} rows={fields} rowKey={(row) => row.key} empty="No custom fields yet." />
      </Card>
      {canManage ? (
        <Card>
          <CardHeader title="Add a field" />
          <Form method="post" className="mt-4 grid gap-3 sm:grid-cols-4 sm:items-end">
            {actionData?.problem ? (
              <p role="alert" className="text-sm text-red-700 sm:col-span-4">
                {actionData.problem}
              </p>
            ) : null}
            <Field label="Label" name="label" maxLength={80} defaultValue={actionData?.values?.label} placeholder="e.g. County" />
            <Field
              label="Key"
              name="key"
              maxLength={40}
              defaultValue={actionData?.values?.key}
              placeholder="e.g. county"
              hint="Lower case, digits, _"
            />
            <SelectField
              label="Type"
              name="type"
              defaultValue={actionData?.values?.type ?? "text"}
              options={Object.entries(TYPE_LABELS).map(([value, label]) => ({ value, label }))}
            />
            <div className="pb-6">
              <Button type="submit" name="intent" value="add" pendingText="Adding...">
                Add field
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
