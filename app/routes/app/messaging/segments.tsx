import { data, Form, href, useSearchParams } from "react-router";
import { Link } from "~/components/ui/link";
import type { Route } from "./+types/segments";
import * as z from "zod/mini";
import { can, requireDeclaredUser, type CurrentUser } from "~/.server/domains/auth/guards";
import { intent, intentAction } from "~/.server/domains/auth/form-actions";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";
import { postedText } from "~/.server/infrastructure/http/posted-fields";
import { redirectWithToast } from "~/.server/infrastructure/http/toast";
import { deleteSegment, listSegments, saveSegment } from "~/.server/domains/contacts/segments";
import { contactFilterQuery, isFiltered, readContactFilterParams, type ContactFilterParams } from "~/lib/contact-filter";
import { refusalToast, throwIfNotFound } from "~/.server/infrastructure/http/refusal-reply";
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
import { m } from "~/paraglide/messages";

// A filter, a list and a form: sent as a document without React (decision 066); app/assets/forms.js holds the pressed button.
export const handle: PermissionHandle & PageHandle = { permission: "contacts:view", ...menuDocumentPage };

// Reached by a client-side navigation, it loads as a document.
export const clientLoader = loadAsDocument;

export const meta: Route.MetaFunction = () => [{ title: m.messaging_segments_meta_title() }];

/** Saved filters with a live count. Arriving with a filter in the query offers to save it. */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredUser(args);
  const filter = readContactFilterParams(args.url.searchParams);
  return {
    segments: await listSegments(current.organization.id, { counts: true }),
    filter,
    describe: describeFilter(filter),
    canManage: can(current.role, "contacts:manage"),
  };
}

// A segment is a name for the contact book's filter as it stands (its search, tag, consent, last seen).
const SaveSchema = z.object({ name: postedText, q: postedText, tag: postedText, optin: postedText, seen: postedText });
const DeleteSchema = z.object({ segment: postedText });

export async function action(args: Route.ActionArgs) {
  const actorOf = (current: CurrentUser) => ({
    organizationId: current.organization.id,
    userId: current.user.id,
    meta: requestMeta(args.request, args.context),
  });
  return intentAction(args, {
    permission: "contacts:manage",
    intents: {
      save: intent(SaveSchema, async ({ value: { name, q, tag, optin, seen }, user }) => {
        const filter = readContactFilterParams(new URLSearchParams({ q, tag, optin, seen }));
        const segment = await saveSegment(actorOf(user), { name, filter });
        return redirectWithToast(href("/messaging/contacts/segments"), "success", m.messaging_segments_saved_toast({ name: segment.name }));
      }),
      delete: intent(DeleteSchema, async ({ value, user }) => {
        await deleteSegment(actorOf(user), value.segment);
        return redirectWithToast(href("/messaging/contacts/segments"), "success", m.messaging_segments_deleted_toast());
      }),
    },
    refused: (refusal) => {
      throwIfNotFound(refusal);
      return refusalToast(refusal, { problem: refusal.message });
    },
    unknown: () => {
      throw data("Unknown action.", { status: 400 });
    },
  });
}

function describeFilter(filter: ContactFilterParams) {
  const parts: string[] = [];
  if (filter.q) parts.push(m.messaging_segments_filter_matching({ q: filter.q }));
  if (filter.tag) parts.push(m.messaging_segments_filter_tagged({ tag: filter.tag }));
  if (filter.optin)
    parts.push(
      {
        opted_in: m.messaging_segments_filter_opted_in,
        opted_out: m.messaging_segments_filter_opted_out,
        unknown: m.messaging_segments_filter_not_asked,
      }[filter.optin](),
    );
  if (filter.seen)
    parts.push(
      filter.seen === "never" ? m.messaging_segments_filter_never_seen() : m.messaging_segments_filter_seen_days({ days: filter.seen }),
    );
  return parts.length ? parts.join(", ") : m.messaging_segments_filter_everyone();
}

type Row = Route.ComponentProps["loaderData"]["segments"][number];

export default function Segments({ loaderData, actionData }: Route.ComponentProps) {
  const { segments, filter, describe, canManage } = loaderData;
  const [search] = useSearchParams();
  const columns: Column<Row>[] = [
    {
      key: "name",
      header: m.messaging_segments_col_segment(),
      cell: (row) => (
        <Link to={`${href("/messaging/contacts")}?${row.query}`} className="cell-link">
          {row.name}
        </Link>
      ),
    },
    { key: "filter", header: m.messaging_segments_col_filter(), hideOnPhone: true, cell: (row) => describeFilter(row.filter) },
    {
      key: "count",
      header: m.messaging_center_tab_contacts(),
      align: "right",
      cell: (row) => (row.count ? `${formatNumber(row.count.count)}${row.count.more ? "+" : ""}` : ""),
    },
    ...(canManage
      ? [
          removeRowColumn<Row>({
            intent: "delete",
            name: "segment",
            value: (row) => row.id,
            label: (row) => m.messaging_segments_delete_label({ name: row.name }),
          }),
        ]
      : []),
  ];
  return (
    <div className="space-y-6">
      {actionData?.toast ? <Toast key={actionData.toast.id} toast={actionData.toast} /> : null}
      <div>
        <BackLink to={href("/messaging/contacts")}>{m.messaging_center_tab_contacts()}</BackLink>
        <h1 className="mt-2 text-2xl font-bold tracking-tight">{m.messaging_segments_title()}</h1>
        <p className="text-slate-600">{m.messaging_segments_intro()}</p>
      </div>
      {canManage && isFiltered(filter) ? (
        <Card>
          <CardHeader title={m.messaging_segments_save_title()} description={m.messaging_segments_save_description({ filter: describe })} />
          <Form method="post" className="mt-4 flex flex-wrap items-end gap-3">
            {Object.entries(filter).map(([key, value]) => (
              <input key={key} type="hidden" name={key} value={value} />
            ))}
            <Field
              label={m.messaging_segments_name_label()}
              name="name"
              maxLength={80}
              className="min-w-64"
              errors={actionData?.problem ? [actionData.problem] : undefined}
            />
            <div className="pb-6">
              <Button type="submit" name="intent" value="save" pendingText={m.messaging_saving()}>
                {m.messaging_segments_save_button()}
              </Button>
            </div>
          </Form>
          <p className="text-sm">
            <TextLink to={`${href("/messaging/contacts")}?${contactFilterQuery(filter)}`}>
              {m.messaging_segments_back_to_contacts()}
            </TextLink>
          </p>
        </Card>
      ) : null}
      <Card padding="none">
        <Table
          caption={m.messaging_segments_title()}
          columns={columns}
          rows={segments}
          rowKey={(row) => row.id}
          searchParams={search}
          empty={
            <>
              {m.messaging_segments_empty_before()}{" "}
              <TextLink to={href("/messaging/contacts")} weight="semibold">
                {m.messaging_segments_empty_link()}
              </TextLink>{" "}
              {m.messaging_segments_empty_after()}
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
