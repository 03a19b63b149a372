import { data, Form, href, Link, useSearchParams } from "react-router";
import type { Route } from "./+types/segments";
import { can, requireUserWithPermission } from "~/.server/domains/auth/guards";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";
import { readForm } from "~/.server/infrastructure/http/forms";
import { postedTexts } from "~/.server/infrastructure/http/posted-fields";
import { redirectWithToast } from "~/.server/infrastructure/http/toast";
import { deleteSegment, listSegments, saveSegment } from "~/.server/domains/contacts/segments";
import { contactFilterQuery, isFiltered, readContactFilterParams, type ContactFilterParams } from "~/lib/contact-filter";
import { refusalOf, refusalToast, throwIfNotFound } from "~/.server/infrastructure/http/refusal-reply";
import { formatNumber } from "~/lib/dates";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { BackLink } from "~/components/ui/back-link";
import { Button } from "~/components/ui/button";
import { Card, CardHeader } from "~/components/ui/card";
import { Field } from "~/components/ui/field";
import { removeRowColumn } from "~/components/ui/remove-row";
import { Table, type Column } from "~/components/ui/table";
import { Toast } from "~/components/ui/toast";
import type { PermissionHandle } from "~/lib/permissions";
import type { PageHandle } from "~/root";
import { loadAsDocument, menuDocumentPage } from "~/components/layout/document-page";
import { TextLink } from "~/components/ui/text-link";

// A filter, a list and a form: sent as a document without React (decision 066); app/assets/forms.js holds the pressed button.
export const handle: PermissionHandle & PageHandle = { permission: "contacts:view", ...menuDocumentPage };

// Reached by a client-side navigation, it loads as a document.
export const clientLoader = loadAsDocument;

export const meta: Route.MetaFunction = () => [{ title: "Segments | Contacts | Jumbe" }];

/** Saved filters with a live count. Arriving with a filter in the query offers to save it. */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireUserWithPermission(args, "contacts:view");
  const filter = readContactFilterParams(args.url.searchParams);
  return {
    segments: await listSegments(current.organization.id, { counts: true }),
    filter,
    describe: describeFilter(filter),
    canManage: can(current.role, "contacts:manage"),
  };
}

export async function action(args: Route.ActionArgs) {
  const current = await requireUserWithPermission(args, "contacts:manage");
  const form = await readForm(args.request);
  const actor = { organizationId: current.organization.id, userId: current.user.id, meta: requestMeta(args.request, args.context) };
  const {
    intent,
    name,
    segment: segmentId,
    q,
    tag,
    optin,
    seen,
  } = postedTexts(form, ["intent", "name", "segment", "q", "tag", "optin", "seen"]);
  try {
    if (intent === "save") {
      const filter = readContactFilterParams(new URLSearchParams({ q, tag, optin, seen }));
      const segment = await saveSegment(actor, { name, filter });
      return redirectWithToast(href("/messaging/contacts/segments"), "success", `Segment "${segment.name}" saved.`);
    }
    if (intent === "delete") {
      await deleteSegment(actor, segmentId);
      return redirectWithToast(href("/messaging/contacts/segments"), "success", "Segment deleted. Its contacts are untouched.");
    }
  } catch (error) {
    const refusal = refusalOf(error);
    throwIfNotFound(refusal);
    return refusalToast(refusal, { problem: refusal.message });
  }
  throw data("Unknown action.", { status: 400 });
}

function describeFilter(filter: ContactFilterParams) {
  const parts: string[] = [];
  if (filter.q) parts.push(`matching "${filter.q}"`);
  if (filter.tag) parts.push(`tagged ${filter.tag}`);
  if (filter.optin) parts.push({ opted_in: "opted in", opted_out: "opted out", unknown: "not asked" }[filter.optin]);
  if (filter.seen) parts.push(filter.seen === "never" ? "never seen" : `seen in the last ${filter.seen} days`);
  return parts.length ? parts.join(", ") : "every contact";
}

type Row = Route.ComponentProps["loaderData"]["segments"][number];

export default function Segments({ loaderData, actionData }: Route.ComponentProps) {
  const { segments, filter, describe, canManage } = loaderData;
  const [search] = useSearchParams();
  const columns: Column<Row>[] = [
    {
      key: "name",
      header: "Segment",
      cell: (row) => (
        <Link to={`${href("/messaging/contacts")}?${row.query}`} className="cell-link">
          {row.name}
        </Link>
      ),
    },
    { key: "filter", header: "Filter", hideOnPhone: true, cell: (row) => describeFilter(row.filter) },
    {
      key: "count",
      header: "Contacts",
      align: "right",
      cell: (row) => (row.count ? `${formatNumber(row.count.count)}${row.count.more ? "+" : ""}` : ""),
    },
    ...(canManage
      ? [
          removeRowColumn<Row>({
            intent: "delete",
            name: "segment",
            value: (row) => row.id,
            label: (row) => `Delete segment ${row.name}`,
          }),
        ]
      : []),
  ];
  return (
    <div className="space-y-6">
      {actionData?.toast ? <Toast key={actionData.toast.id} toast={actionData.toast} /> : null}
      <div>
        <BackLink to={href("/messaging/contacts")}>Contacts</BackLink>
        <h1 className="mt-2 text-2xl font-bold tracking-tight">Segments</h1>
        <p className="text-slate-600">Saved filters for campaigns. Counts are live: a segment is whoever matches it now.</p>
      </div>
      {canManage && isFiltered(filter) ? (
        <Card>
          <CardHeader title="Save this filter" description={`Contacts ${describe}.`} />
          <Form method="post" className="mt-4 flex flex-wrap items-end gap-3">
            {Object.entries(filter).map(([key, value]) => (
              <input key={key} type="hidden" name={key} value={value} />
            ))}
            <Field
              label="Segment name"
              name="name"
              maxLength={80}
              className="min-w-64"
              errors={actionData?.problem ? [actionData.problem] : undefined}
            />
            <div className="pb-6">
              <Button type="submit" name="intent" value="save" pendingText="Saving...">
                Save segment
              </Button>
            </div>
          </Form>
          <p className="text-sm">
            <TextLink to={`${href("/messaging/contacts")}?${contactFilterQuery(filter)}`}>Back to these contacts</TextLink>
          </p>
        </Card>
      ) : null}
      <Card padding="none">
        <Table
          caption="Segments"
          columns={columns}
          rows={segments}
          rowKey={(row) => row.id}
          searchParams={search}
          empty={
            <>
              No segments yet. Filter your{" "}
              <TextLink to={href("/messaging/contacts")} weight="semibold">
                contacts
              </TextLink>{" "}
              and save the filter as a segment.
            </>
          }
        />
      </Card>
    </div>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
