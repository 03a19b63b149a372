import { Form, href, redirect } from "react-router";
import { Link } from "~/components/ui/link";
import { ArrowLeft } from "~/components/ui/icons";
import type { Route } from "./+types/upload";
import { requireDeclaredUser } from "~/.server/domains/auth/guards";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";
import { multipartBoundary } from "~/.server/infrastructure/http/multipart";
import { recentImports, uploadImport } from "~/.server/domains/contacts/import";
import { IMPORT_FILE_FIELD, IMPORT_MAX_BYTES } from "~/lib/contact-import";
import { formatNumber, formatWhen } from "~/lib/dates";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { Badge } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import { Card, CardBody, CardHeader } from "~/components/ui/card";
import { FileField } from "~/components/ui/field";
import { Table } from "~/components/ui/table";
import { refusalOf, refusalFormError } from "~/.server/infrastructure/http/refusal-reply";
import type { PermissionHandle } from "~/lib/permissions";
import type { PageHandle } from "~/root";
import { loadAsDocument, menuDocumentPage } from "~/components/layout/document-page";
import { TextLink } from "~/components/ui/text-link";
import { m } from "~/paraglide/messages";

// The CSV import adds contacts: its pages and its rejected rows are for those who manage them.
// Step 1 is a document without React (decision 066): a file posted as a form, its button busy until
// the next page (app/assets/forms.js); the import's own page, which follows its progress, is hydrated.
export const handle: PermissionHandle & PageHandle = { permission: "contacts:manage", ...menuDocumentPage };

export const clientLoader = loadAsDocument;

export const meta: Route.MetaFunction = () => [{ title: m.messaging_import_meta_title() }];

/** /messaging/contacts/import: upload a CSV file (step 1 of 3), and the latest imports. */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredUser(args);
  return { imports: await recentImports(current.organization.id) };
}

export async function action(args: Route.ActionArgs) {
  const current = await requireDeclaredUser(args);
  const { request, context } = args;
  try {
    const uploaded = await uploadImport(
      { organizationId: current.organization.id, userId: current.user.id, meta: requestMeta(request, context) },
      { body: request.body, boundary: multipartBoundary(request.headers.get("content-type")) },
    );
    return redirect(href("/messaging/contacts/import/:id", { id: uploaded.id }));
  } catch (error) {
    return refusalFormError(refusalOf(error));
  }
}

/** An import's status in words, in the request's language. */
const statusLabels = () =>
  ({
    uploaded: m.messaging_import_status_uploaded(),
    queued: m.messaging_import_status_queued(),
    running: m.messaging_import_status_running(),
    done: m.messaging_import_status_done(),
    failed: m.messaging_import_status_failed(),
  }) as const;

export default function ImportUpload({ loaderData, actionData }: Route.ComponentProps) {
  const statuses = statusLabels();
  return (
    <div className="space-y-6">
      <div>
        <Link
          to={href("/messaging/contacts")}
          className="inline-flex items-center gap-1 text-sm font-medium text-brand-700 hover:underline"
        >
          <ArrowLeft className="size-4" aria-hidden /> {m.messaging_center_tab_contacts()}
        </Link>
        <h1 className="mt-2 text-2xl font-bold tracking-tight">{m.messaging_import_title()}</h1>
        <p className="text-slate-600">{m.messaging_import_intro()}</p>
      </div>
      <Card>
        <CardHeader title={m.messaging_import_step1_title()} description={m.messaging_import_step1_description()} />
        <CardBody>
          <Form method="post" encType="multipart/form-data" className="flex flex-wrap items-end gap-3">
            <FileField
              label={m.messaging_import_file_label()}
              name={IMPORT_FILE_FIELD}
              accept=".csv,text/csv"
              hint={m.messaging_import_file_hint({ max: IMPORT_MAX_BYTES / 1024 / 1024 })}
              errors={actionData?.error ? [actionData.error] : undefined}
              className="min-w-72 flex-1"
            />
            <Button type="submit" pendingText={m.messaging_import_uploading()}>
              {m.messaging_import_upload()}
            </Button>
          </Form>
        </CardBody>
      </Card>
      <Card>
        <CardHeader title={m.messaging_import_recent()} />
        <CardBody>
          <Table
            caption={m.messaging_import_recent()}
            rows={loaderData.imports}
            rowKey={(i) => i.id}
            empty={m.messaging_import_none()}
            columns={[
              {
                key: "file",
                header: m.messaging_import_col_file(),
                cell: (i) => (
                  <TextLink to={href("/messaging/contacts/import/:id", { id: i.id })} weight="medium" underline="hover">
                    {i.fileName}
                  </TextLink>
                ),
              },
              {
                key: "status",
                header: m.messaging_campaigns_col_status(),
                cell: (i) => <Badge status={i.status}>{statuses[i.status]}</Badge>,
              },
              {
                key: "counts",
                header: m.messaging_import_col_counts(),
                cell: (i) => [i.created, i.updated, i.skipped, i.invalid].map(formatNumber).join(" / "),
                hideOnPhone: true,
              },
              { key: "when", header: m.messaging_import_col_uploaded(), cell: (i) => formatWhen(i.createdAt), hideOnPhone: true },
            ]}
          />
        </CardBody>
      </Card>
    </div>
  );
}

export { PageErrorBoundary as ErrorBoundary };
