import { data, href, useNavigation, useSearchParams } from "react-router";
import * as z from "zod/mini";
import type { Route } from "./+types/contacts";
import { can, requireDeclaredUser } from "~/.server/domains/auth/guards";
import { actorOf, intent, intentAction } from "~/.server/domains/auth/form-actions";
import type { SubmissionOf } from "~/.server/infrastructure/http/intents";
import { formFailure } from "~/.server/infrastructure/http/forms";
import { postedList, postedText } from "~/.server/infrastructure/http/posted-fields";
import { redirectWithToast } from "~/.server/infrastructure/http/toast";
import { saveContact } from "~/.server/domains/contacts/manage";
import { bulkDelete, bulkTag, bulkUntag, SELECTION_MAX, type BulkTarget } from "~/.server/domains/contacts/bulk";
import { contactsPage, countMatching } from "~/.server/domains/contacts/page";
import { contactFilterChoices } from "~/.server/domains/contacts/tags";
import { contactFilterOf, contactFilterQuery, isFiltered, readContactFilterParams } from "~/lib/contact-filter";
import { refusalOf, refusalReply, refusalToast } from "~/.server/infrastructure/http/refusal-reply";
import { listSegments } from "~/.server/domains/contacts/segments";
import { AddContactSchema } from "~/lib/schemas/contacts";
import { splitTags } from "~/lib/schemas/contacts-rules";
import { formatNumber } from "~/lib/dates";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { useCan } from "~/components/layout/shell-role";
import { MessageCenter } from "~/components/messaging/message-center";
import { AddContactDialog } from "~/components/contacts/add-contact-dialog";
import { BulkBar, DeleteContactsDialog } from "~/components/contacts/bulk-actions";
import { ContactBookActions } from "~/components/contacts/contact-book-actions";
import { ContactFilters, SegmentBar } from "~/components/contacts/contact-filters";
import { contactColumns } from "~/components/contacts/contact-table";
import { Card } from "~/components/ui/card";
import { dialogHref } from "~/components/ui/dialog";
import { Toast } from "~/components/ui/toast";
import { Pager, Table } from "~/components/ui/table";
import type { PermissionHandle } from "~/lib/permissions";
import type { PageHandle } from "~/root";
import { loadAsDocument, menuDocumentPage } from "~/components/layout/document-page";
import { TextLink } from "~/components/ui/text-link";
import { byCount } from "~/lib/intl";
import { m } from "~/paraglide/messages";

// A filtered list, bulk actions and URL dialogs: sent as a document without React (decision 066); app/assets/forms.js makes the open dialog modal and holds the pressed button.
export const handle: PermissionHandle & PageHandle = { permission: "contacts:view", ...menuDocumentPage };

// Reached by a client-side navigation, it loads as a document.
export const clientLoader = loadAsDocument;

export const meta: Route.MetaFunction = () => [{ title: m.messaging_contacts_meta_title() }];

// What the bulk bar and the delete confirmation post: the filter they act on, the ticked ids, the tags.
const BulkPostSchema = z.object({
  intent: postedText,
  scope: postedText,
  confirm: postedText,
  tags: postedText,
  id: postedList,
  q: postedText,
  tag: postedText,
  optin: postedText,
  seen: postedText,
  ad: postedText,
});

/**
 * /messaging/contacts: the contact book. The filter lives in the URL (a GET form), pages by keyset
 * cursors; "Add contact" and the delete confirmation are `?dialog=` states the server renders; bulk
 * actions are one form whose checkboxes sit in the table's rows.
 */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredUser(args);
  const organizationId = current.organization.id;
  const params = args.url.searchParams;
  const filterParams = readContactFilterParams(params);
  const filter = contactFilterOf(filterParams);
  const [page, matching, { tags, ads }, segments] = await Promise.all([
    contactsPage(organizationId, filter, { after: params.get("after"), before: params.get("before") }),
    countMatching(organizationId, filter),
    contactFilterChoices(organizationId),
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
    ads,
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
  const bulk = intent(BulkPostSchema, ({ value, user, intent: posted }) => bulkChange(actorOf(args, user), posted, value));
  return intentAction(args, {
    permission: "contacts:manage",
    intents: {
      add: intent(AddContactSchema, ({ value, submission, user }) => addContact(actorOf(args, user), value, submission), {
        invalid: (submission) => formFailure(submission.reply()),
      }),
      tag: bulk,
      untag: bulk,
      delete: bulk,
    },
    unknown: () => {
      throw data("Unknown action.", { status: 400 });
    },
  });
}

/** Who acts: the member's organisation, the member and the request (actorOf). */
type Actor = ReturnType<typeof actorOf>;

/** Tagging, untagging or deleting the ticked contacts, or every contact the filter matches. */
async function bulkChange(actor: Actor, intent: string, post: z.output<typeof BulkPostSchema>) {
  const filterParams = readContactFilterParams(
    new URLSearchParams({ q: post.q, tag: post.tag, optin: post.optin, seen: post.seen, ad: post.ad }),
  );
  const back = `${href("/messaging/contacts")}?${contactFilterQuery(filterParams)}`;
  const scope = post.scope === "all" ? "all" : "selected";
  const ids = post.id;
  const target: BulkTarget = scope === "all" ? { filter: contactFilterOf(filterParams) } : { ids };
  try {
    if (intent === "delete") {
      if (post.confirm !== "yes") {
        const confirm = new URLSearchParams(contactFilterQuery(filterParams));
        confirm.set("dialog", "delete");
        confirm.set("scope", scope);
        if (scope === "selected") for (const id of ids.slice(0, SELECTION_MAX)) confirm.append("id", id);
        if (scope === "selected" && !ids.length) return formFailure(null, 400, m.messaging_bulk_tick_first());
        return redirectWithToast(`${href("/messaging/contacts")}?${confirm}`, "info", m.messaging_bulk_confirm_deletion());
      }
      const deleted = await bulkDelete(actor, target);
      const count = formatNumber(deleted);
      return redirectWithToast(
        back,
        "success",
        byCount(
          deleted,
          () => m.messaging_bulk_deleted_one({ count }),
          () => m.messaging_bulk_deleted_other({ count }),
        ),
      );
    }
    const tags = splitTags(post.tags);
    const changed = intent === "tag" ? await bulkTag(actor, target, tags) : await bulkUntag(actor, target, tags);
    const said = { count: formatNumber(changed), tags: tags.join(", ") };
    const toast =
      intent === "tag"
        ? byCount(
            changed,
            () => m.messaging_bulk_tagged_one(said),
            () => m.messaging_bulk_tagged_other(said),
          )
        : byCount(
            changed,
            () => m.messaging_bulk_untagged_one(said),
            () => m.messaging_bulk_untagged_other(said),
          );
    return redirectWithToast(back, "success", toast);
  } catch (error) {
    const refusal = refusalOf(error);
    return refusalToast(refusal, undefined, refusal.status === 404 ? 400 : refusal.status);
  }
}

async function addContact(
  actor: Actor,
  { name, phone, tags, consent, evidence }: z.output<typeof AddContactSchema>,
  submission: SubmissionOf<typeof AddContactSchema>,
) {
  try {
    const { contact } = await saveContact(
      actor,
      { name, phone, tags: splitTags(tags) },
      consent ? { consent: { status: consent === "yes" ? "opted_in" : "opted_out", source: "form", evidence } } : {},
    );
    return redirectWithToast(
      href("/messaging/contacts/:id", { id: contact.id }),
      "success",
      m.messaging_contacts_added_toast({ name: contact.name, phone: contact.phone ?? "" }),
    );
  } catch (error) {
    const refusal = refusalOf(error);
    return refusalReply(submission, refusal, { status: refusal.status === 404 ? 400 : refusal.status });
  }
}

export default function Contacts({ loaderData, actionData }: Route.ComponentProps) {
  const { filterParams, filterQuery, filtered, page, matching, tags, ads, segments, canManage, importLink, confirmDelete } = loaderData;
  const [search] = useSearchParams();
  const navigation = useNavigation();
  const canMessage = useCan("inbox:reply");
  const busy = (intent: string) => navigation.state === "submitting" && navigation.formData?.get("intent") === intent;
  const matchingText = `${formatNumber(matching.count)}${matching.more ? "+" : ""}`;
  const exportHref = `/messaging/contacts/export.csv${filterQuery ? `?${filterQuery}` : ""}`;
  const actions = canManage ? <ContactBookActions importLink={importLink} exportHref={exportHref} search={search} /> : null;

  return (
    <MessageCenter tab="contacts" actions={actions}>
      {actionData?.toast ? <Toast key={actionData.toast.id} toast={actionData.toast} /> : null}
      <ContactFilters filterParams={filterParams} tags={tags} ads={ads} />
      <SegmentBar segments={segments} filterQuery={filterQuery} filtered={filtered} canManage={canManage} />

      <Card padding="none">
        <p className="px-4 pt-4 text-sm text-slate-600" id="contacts-count">
          {matching.count === 0 && !matching.more
            ? filtered
              ? m.messaging_contacts_count_none_match()
              : m.messaging_contacts_count_none()
            : countWords(matching.count, matching.more, matchingText, filtered)}
        </p>
        {canManage && page.contacts.length ? <BulkBar filterParams={filterParams} matchingText={matchingText} busy={busy} /> : null}
        <Table
          caption={m.messaging_center_tab_contacts()}
          columns={contactColumns({ canManage, canMessage })}
          rows={page.contacts}
          rowKey={(row) => row.id}
          empty={
            filtered ? (
              m.messaging_contacts_empty_filtered()
            ) : (
              <>
                {m.messaging_contacts_count_none()}{" "}
                {canManage ? (
                  <TextLink to={dialogHref(search, "add")} weight="semibold">
                    {m.messaging_contacts_empty_add_first()}
                  </TextLink>
                ) : null}
              </>
            )
          }
        />
        <div className="px-4 pb-4">
          <Pager searchParams={search} newer={page.newer} older={page.older} label={m.messaging_contacts_pager_label()} />
        </div>
      </Card>

      {canManage ? <AddContactDialog search={search} lastResult={actionData?.result} busy={busy("add")} /> : null}
      {canManage && confirmDelete ? (
        <DeleteContactsDialog
          search={search}
          confirm={confirmDelete}
          filterParams={filterParams}
          filterQuery={filterQuery}
          matchingText={matchingText}
          busy={busy("delete")}
        />
      ) : null}
    </MessageCenter>
  );
}

/** "1,204 contacts match.", "10,000+ contacts.": the count above the list (one contact only when exactly one). */
function countWords(count: number, more: boolean, text: string, filtered: boolean) {
  const one = count === 1 && !more;
  if (filtered)
    return one ? m.messaging_contacts_count_match_one({ count: text }) : m.messaging_contacts_count_match_other({ count: text });
  return one ? m.messaging_contacts_count_one({ count: text }) : m.messaging_contacts_count_other({ count: text });
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
