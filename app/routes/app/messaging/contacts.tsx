import { data, Form, href, Link, useNavigation, useSearchParams } from "react-router";
import { getInputProps, getSelectProps } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { Download, Plus, Tag, Trash2, Upload, X } from "~/components/ui/icons";
import type { Route } from "./+types/contacts";
import { can, requireUserWithPermission } from "~/.server/domains/auth/guards";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";
import { formFailure, readForm } from "~/.server/infrastructure/http/forms";
import { redirectWithToast } from "~/.server/infrastructure/http/toast";
import { saveContact } from "~/.server/domains/contacts/manage";
import { bulkDelete, bulkTag, bulkUntag, SELECTION_MAX, type BulkTarget } from "~/.server/domains/contacts/bulk";
import { contactsPage, countMatching } from "~/.server/domains/contacts/page";
import { contactTagChoices } from "~/.server/domains/contacts/tags";
import { contactFilterOf, contactFilterQuery, isFiltered, readContactFilterParams } from "~/lib/contact-filter";
import { refusalOf, refusalReply, refusalToast } from "~/.server/infrastructure/http/refusal-reply";
import { listSegments } from "~/.server/domains/contacts/segments";
import { AddContactSchema, splitTags } from "~/lib/schemas/contacts";
import { formatNumber, formatWhen } from "~/lib/dates";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { useCan } from "~/components/layout/shell-role";
import { ContactIdentityFields } from "~/components/messaging/contact-fields";
import { MessageCenter } from "~/components/messaging/message-center";
import { Badge } from "~/components/ui/badge";
import { Button, ButtonLink } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { Field, FilterInput, FilterSelect, SelectField } from "~/components/ui/field";
import { closeDialogHref, dialogHref, UrlDialog } from "~/components/ui/dialog";
import { Toast } from "~/components/ui/toast";
import { Pager, Table, type Column } from "~/components/ui/table";
import { useSchemaForm } from "~/components/ui/use-schema-form";
import type { PermissionHandle } from "~/lib/permissions";
import { TextLink } from "~/components/ui/text-link";

export const handle: PermissionHandle = { permission: "contacts:view" };

export const meta: Route.MetaFunction = () => [{ title: "Contacts | Message Center | Jumbe" }];

const OPT_IN_LABELS = { opted_in: "Opted in", opted_out: "Opted out", unknown: "Not asked" } as const;
const SEEN_LABELS: [string, string][] = [
  ["7", "Last 7 days"],
  ["30", "Last 30 days"],
  ["90", "Last 90 days"],
  ["never", "Never"],
];

/**
 * /messaging/contacts: the contact book. The filter lives in the URL (a GET form), pages by keyset
 * cursors; "Add contact" and the delete confirmation are `?dialog=` states the server renders; bulk
 * actions are one form whose checkboxes sit in the table's rows.
 */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireUserWithPermission(args, "contacts:view");
  const organizationId = current.organization.id;
  const params = args.url.searchParams;
  const filterParams = readContactFilterParams(params);
  const filter = contactFilterOf(filterParams);
  const [page, matching, tags, segments] = await Promise.all([
    contactsPage(organizationId, filter, { after: params.get("after"), before: params.get("before") }),
    countMatching(organizationId, filter),
    contactTagChoices(organizationId),
    listSegments(organizationId, { counts: false }),
  ]);
  const confirming = params.get("dialog") === "delete";
  return {
    filterParams,
    filterQuery: contactFilterQuery(filterParams),
    filtered: isFiltered(filterParams),
    page,
    matching,
    tags,
    segments: segments.map((s) => ({ id: s.id, name: s.name, query: s.query })),
    canManage: can(current.role, "contacts:manage"),
    importLink: href("/messaging/contacts/import") as string | null,
    confirmDelete: confirming
      ? {
          scope: params.get("scope") === "all" ? ("all" as const) : ("selected" as const),
          ids: params.getAll("id").slice(0, SELECTION_MAX),
        }
      : null,
  };
}

export async function action(args: Route.ActionArgs) {
  const current = await requireUserWithPermission(args, "contacts:manage");
  const form = await readForm(args.request);
  const intent = form.get("intent");
  const actor = { organizationId: current.organization.id, userId: current.user.id, meta: requestMeta(args.request, args.context) };
  if (intent === "add") return addContact(actor, form);
  if (intent !== "tag" && intent !== "untag" && intent !== "delete") throw data("Unknown action.", { status: 400 });
  const filterParams = readContactFilterParams(
    new URLSearchParams([...form].filter(([k]) => ["q", "tag", "optin", "seen"].includes(k)) as [string, string][]),
  );
  const back = `${href("/messaging/contacts")}?${contactFilterQuery(filterParams)}`;
  const scope = form.get("scope") === "all" ? "all" : "selected";
  const ids = form.getAll("id").map(String);
  const target: BulkTarget = scope === "all" ? { filter: contactFilterOf(filterParams) } : { ids };
  try {
    if (intent === "delete") {
      if (form.get("confirm") !== "yes") {
        const confirm = new URLSearchParams(contactFilterQuery(filterParams));
        confirm.set("dialog", "delete");
        confirm.set("scope", scope);
        if (scope === "selected") for (const id of ids.slice(0, SELECTION_MAX)) confirm.append("id", id);
        if (scope === "selected" && !ids.length) return formFailure(null, 400, "Tick at least one contact first.");
        return redirectWithToast(`${href("/messaging/contacts")}?${confirm}`, "info", "Confirm the deletion.");
      }
      const deleted = await bulkDelete(actor, target);
      return redirectWithToast(back, "success", `${formatNumber(deleted)} contact${deleted === 1 ? "" : "s"} deleted.`);
    }
    const tags = splitTags(String(form.get("tags") ?? ""));
    const changed = intent === "tag" ? await bulkTag(actor, target, tags) : await bulkUntag(actor, target, tags);
    const verb = intent === "tag" ? "Tagged" : "Untagged";
    return redirectWithToast(back, "success", `${verb} ${formatNumber(changed)} contact${changed === 1 ? "" : "s"} (${tags.join(", ")}).`);
  } catch (error) {
    const refusal = refusalOf(error);
    return refusalToast(refusal, undefined, refusal.status === 404 ? 400 : refusal.status);
  }
}

async function addContact(actor: { organizationId: string; userId: string }, form: FormData) {
  const submission = parseWithZod(form, { schema: AddContactSchema });
  if (submission.status !== "success") return formFailure(submission.reply());
  const { name, phone, tags, consent, evidence } = submission.value;
  try {
    const { contact } = await saveContact(
      actor,
      { name, phone, tags: splitTags(tags) },
      consent ? { consent: { status: consent === "yes" ? "opted_in" : "opted_out", source: "form", evidence } } : {},
    );
    return redirectWithToast(href("/messaging/contacts/:id", { id: contact.id }), "success", `${contact.name} (${contact.phone}) added.`);
  } catch (error) {
    const refusal = refusalOf(error);
    return refusalReply(submission, refusal, { status: refusal.status === 404 ? 400 : refusal.status });
  }
}

type Row = Route.ComponentProps["loaderData"]["page"]["contacts"][number];

export default function Contacts({ loaderData, actionData }: Route.ComponentProps) {
  const { filterParams, filterQuery, filtered, page, matching, tags, segments, canManage, importLink, confirmDelete } = loaderData;
  const [search] = useSearchParams();
  const navigation = useNavigation();
  const canMessage = useCan("inbox:reply");
  const busy = (intent: string) => navigation.state === "submitting" && navigation.formData?.get("intent") === intent;
  const matchingText = `${formatNumber(matching.count)}${matching.more ? "+" : ""}`;
  const exportHref = `/messaging/contacts/export.csv${filterQuery ? `?${filterQuery}` : ""}`;

  const columns: Column<Row>[] = [
    ...(canManage
      ? [
          {
            key: "select",
            header: <span className="sr-only">Select</span>,
            cell: (row: Row) => (
              <input
                type="checkbox"
                name="id"
                value={row.id}
                form="contacts-bulk"
                aria-label={`Select ${row.name}`}
                className="size-4 rounded border-slate-300"
              />
            ),
          },
        ]
      : []),
    {
      key: "name",
      header: "Name",
      cell: (row) => (
        <Link to={href("/messaging/contacts/:id", { id: row.id })} className="font-medium text-slate-900 hover:underline">
          {row.name}
        </Link>
      ),
    },
    { key: "phone", header: "Phone", cell: (row) => <span className="tabular-nums">{row.phone ?? "No number"}</span> },
    {
      key: "tags",
      header: "Tags",
      hideOnPhone: true,
      cell: (row) =>
        row.tags.length ? (
          <span className="flex flex-wrap gap-1">
            {row.tags.map((t) => (
              <Badge key={t}>{t}</Badge>
            ))}
          </span>
        ) : (
          <span className="text-slate-400">None</span>
        ),
    },
    {
      key: "optin",
      header: "Opt-in",
      cell: (row) => (
        <Badge tone={row.optIn === "opted_in" ? "success" : row.optIn === "opted_out" ? "danger" : "neutral"}>
          {OPT_IN_LABELS[row.optIn]}
        </Badge>
      ),
    },
    { key: "seen", header: "Last seen", hideOnPhone: true, cell: (row) => (row.lastSeenAt ? formatWhen(row.lastSeenAt) : "Never") },
    ...(canMessage
      ? [
          {
            key: "message",
            header: <span className="sr-only">Message</span>,
            cell: (row: Row) =>
              row.phone ? (
                <TextLink
                  to={`${href("/chat/new")}?contact=${row.id}`}
                  weight="medium"
                  underline="hover"
                  aria-label={`Message ${row.name}`}
                >
                  Message
                </TextLink>
              ) : null,
          },
        ]
      : []),
  ];

  const actions = canManage ? (
    <>
      {importLink ? (
        <ButtonLink to={importLink} variant="secondary">
          <Upload className="size-4" aria-hidden /> Import
        </ButtonLink>
      ) : null}
      <a
        href={exportHref}
        className="inline-flex items-center gap-2 rounded-lg border border-slate-300 bg-white px-4 py-2 text-sm font-semibold text-slate-800 shadow-sm hover:bg-slate-50"
      >
        <Download className="size-4" aria-hidden /> Export
      </a>
      <ButtonLink to={dialogHref(search, "add")} preventScrollReset>
        <Plus className="size-4" aria-hidden /> Add contact
      </ButtonLink>
    </>
  ) : null;

  return (
    <MessageCenter tab="contacts" actions={actions}>
      {actionData?.toast ? <Toast key={actionData.toast.id} toast={actionData.toast} /> : null}
      <Form
        method="get"
        className="grid gap-3 rounded-xl border border-slate-200 bg-white p-4 shadow-sm sm:grid-cols-2 lg:grid-cols-5 lg:items-end"
        aria-label="Filters"
      >
        <FilterInput label="Search" type="search" name="q" defaultValue={filterParams.q ?? ""} placeholder="Name, number or field value" />
        <FilterSelect name="tag" label="Tag" value={filterParams.tag} options={tags.map((t) => [t, t])} all="All tags" />
        <FilterSelect
          name="optin"
          label="Opt-in"
          value={filterParams.optin}
          options={Object.entries(OPT_IN_LABELS)}
          all="Any opt-in state"
        />
        <FilterSelect name="seen" label="Last seen" value={filterParams.seen} options={SEEN_LABELS} all="Any time" />
        <Button type="submit">Apply filters</Button>
      </Form>

      <SegmentBar segments={segments} filterQuery={filterQuery} filtered={filtered} canManage={canManage} />

      <Card padding="none">
        <p className="px-4 pt-4 text-sm text-slate-600" id="contacts-count">
          {matching.count === 0 && !matching.more
            ? filtered
              ? "No contacts match."
              : "No contacts yet."
            : `${matchingText} contact${matching.count === 1 && !matching.more ? "" : "s"}${filtered ? " match" : ""}.`}
        </p>
        {canManage && page.contacts.length ? <BulkBar filterParams={filterParams} matchingText={matchingText} busy={busy} /> : null}
        <Table
          caption="Contacts"
          columns={columns}
          rows={page.contacts}
          rowKey={(row) => row.id}
          empty={
            filtered ? (
              "No contacts match these filters."
            ) : (
              <>
                No contacts yet.{" "}
                {canManage ? (
                  <TextLink to={dialogHref(search, "add")} weight="semibold">
                    Add your first contact
                  </TextLink>
                ) : null}
              </>
            )
          }
        />
        <div className="px-4 pb-4">
          <Pager searchParams={search} newer={page.newer} older={page.older} label="Contact pages" />
        </div>
      </Card>

      {canManage ? <AddContactDialog search={search} lastResult={actionData?.result} busy={busy("add")} /> : null}
      {canManage && confirmDelete ? (
        <UrlDialog
          name="delete"
          searchParams={search}
          title={
            confirmDelete.scope === "all"
              ? `Delete all ${matchingText} matching contacts?`
              : `Delete ${confirmDelete.ids.length} contact${confirmDelete.ids.length === 1 ? "" : "s"}?`
          }
          description="Their consent records go with them; their messages stay in your history without a name. This cannot be undone."
        >
          <Form method="post" className="flex justify-end gap-2">
            {Object.entries(filterParams).map(([key, value]) => (
              <input key={key} type="hidden" name={key} value={value} />
            ))}
            <input type="hidden" name="scope" value={confirmDelete.scope} />
            {confirmDelete.ids.map((id) => (
              <input key={id} type="hidden" name="id" value={id} />
            ))}
            <input type="hidden" name="confirm" value="yes" />
            <ButtonLink to={`?${filterQuery}`} variant="secondary" replace>
              Cancel
            </ButtonLink>
            <Button type="submit" name="intent" value="delete" variant="danger" pending={busy("delete")} pendingText="Deleting...">
              <Trash2 className="size-4" aria-hidden /> Yes, delete
            </Button>
          </Form>
        </UrlDialog>
      ) : null}
    </MessageCenter>
  );
}

/** Tag, untag or delete the ticked rows (their checkboxes belong to this form) or everything the filter matches. */
function BulkBar({
  filterParams,
  matchingText,
  busy,
}: {
  filterParams: Record<string, string | undefined>;
  matchingText: string;
  busy: (intent: string) => boolean;
}) {
  return (
    <Form
      method="post"
      id="contacts-bulk"
      aria-label="Bulk actions"
      className="flex flex-wrap items-end gap-3 border-b border-slate-100 px-4 py-3"
    >
      {Object.entries(filterParams).map(([key, value]) => (value ? <input key={key} type="hidden" name={key} value={value} /> : null))}
      <SelectField
        label="Apply to"
        name="scope"
        className="min-w-48"
        options={[
          { value: "selected", label: "The ticked contacts" },
          { value: "all", label: `All ${matchingText} matching` },
        ]}
      />
      <Field label="Tags" name="tags" placeholder="e.g. vip, nairobi" className="min-w-48" />
      <div className="flex flex-wrap gap-2 pb-6">
        <Button type="submit" name="intent" value="tag" variant="secondary" pending={busy("tag")} pendingText="Tagging...">
          <Tag className="size-4" aria-hidden /> Add tags
        </Button>
        <Button type="submit" name="intent" value="untag" variant="secondary" pending={busy("untag")} pendingText="Untagging...">
          <X className="size-4" aria-hidden /> Remove tags
        </Button>
        <Button type="submit" name="intent" value="delete" variant="danger" pending={busy("delete")} pendingText="Deleting...">
          <Trash2 className="size-4" aria-hidden /> Delete
        </Button>
      </div>
    </Form>
  );
}

function SegmentBar({
  segments,
  filterQuery,
  filtered,
  canManage,
}: {
  segments: { id: string; name: string; query: string }[];
  filterQuery: string;
  filtered: boolean;
  canManage: boolean;
}) {
  if (!segments.length && !(canManage && filtered)) return null;
  return (
    <div className="flex flex-wrap items-center gap-2 text-sm">
      {segments.length ? <span className="font-medium text-slate-700">Segments:</span> : null}
      {segments.map((s) => (
        <Link
          key={s.id}
          to={`${href("/messaging/contacts")}?${s.query}`}
          className="rounded-full border border-slate-300 bg-white px-3 py-1 hover:bg-slate-50"
        >
          {s.name}
        </Link>
      ))}
      <TextLink to={href("/messaging/contacts/segments")} weight="semibold">
        Manage segments
      </TextLink>
      {canManage && filtered ? (
        <TextLink to={`${href("/messaging/contacts/segments")}?${filterQuery}`} weight="semibold">
          Save this filter as a segment
        </TextLink>
      ) : null}
    </div>
  );
}

function AddContactDialog({
  search,
  lastResult,
  busy,
}: {
  search: URLSearchParams;
  lastResult: Parameters<typeof useSchemaForm>[1];
  busy: boolean;
}) {
  const [form, fields] = useSchemaForm(AddContactSchema, lastResult, { id: "add-contact" });
  return (
    <UrlDialog
      name="add"
      searchParams={search}
      title="Add contact"
      description="One contact per number: 0712 345 678 and +254 712 345 678 are the same person."
    >
      <Form method="post" id={form.id} onSubmit={form.onSubmit} noValidate className="space-y-1">
        <ContactIdentityFields formErrors={form.errors} fields={fields} />
        <SelectField
          label="Consent to marketing messages"
          errors={fields.consent.errors}
          {...getSelectProps(fields.consent)}
          key={fields.consent.key}
        >
          <option value="">Not recorded</option>
          <option value="yes">Yes, they agreed</option>
          <option value="no">No, they refused</option>
        </SelectField>
        <Field
          label="Evidence"
          hint="How they agreed or refused: the form, the message, the conversation."
          errors={fields.evidence.errors}
          {...getInputProps(fields.evidence, { type: "text" })}
          key={fields.evidence.key}
        />
        <div className="flex justify-end gap-2 pt-2">
          <ButtonLink to={closeDialogHref(search)} variant="secondary" replace>
            Cancel
          </ButtonLink>
          <Button type="submit" name="intent" value="add" pending={busy} pendingText="Adding...">
            Add contact
          </Button>
        </div>
      </Form>
    </UrlDialog>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
