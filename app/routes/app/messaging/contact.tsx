import { data, href, useSearchParams } from "react-router";
import { parseWithZod } from "@conform-to/zod/v4";
import { useCan } from "~/components/layout/shell-role";
import type { Route } from "./+types/contact";
import { can, requireUserWithPermission } from "~/.server/domains/auth/guards";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";
import { formFailure, readForm } from "~/.server/infrastructure/http/forms";
import { postedTexts } from "~/.server/infrastructure/http/posted-fields";
import { redirectWithToast } from "~/.server/infrastructure/http/toast";
import { attributeDefinitions } from "~/.server/domains/contacts/attributes";
import { deleteContact, getContact, listContacts, setConsent, updateContact } from "~/.server/domains/contacts/manage";
import { mergeContacts } from "~/.server/domains/contacts/merge";
import { eraseContact, type ErasedCopy } from "~/.server/domains/contacts/rights";
import { copiesToErase } from "~/.server/domains/integrations/erasure";
import { contactTimeline } from "~/.server/domains/contacts/timeline";
import { refusalOf, refusalReply, refusalToast, throwIfNotFound } from "~/.server/infrastructure/http/refusal-reply";
import { ConsentSchema, EditContactSchema } from "~/lib/schemas/contacts";
import { splitTags } from "~/lib/schemas/contacts-rules";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { ContactConfirmation, ContactHeader } from "~/components/contacts/contact-header";
import { ConsentCard, EditContactCard } from "~/components/contacts/contact-forms";
import { MergeCard, RightsCard } from "~/components/contacts/contact-manage";
import { ContactTimeline } from "~/components/contacts/contact-timeline";
import { optInLabels } from "~/components/contacts/labels";
import { Toast } from "~/components/ui/toast";
import type { PermissionHandle } from "~/lib/permissions";
import type { PageHandle } from "~/root";
import { loadAsDocument, menuDocumentPage } from "~/components/layout/document-page";
import { m } from "~/paraglide/messages";

// A contact, its fields, consent and history: sent as a document without React (decision 066); the server checks every field.
export const handle: PermissionHandle & PageHandle = { permission: "contacts:view", ...menuDocumentPage };

// Reached by a client-side navigation, it loads as a document.
export const clientLoader = loadAsDocument;

export const meta: Route.MetaFunction = ({ loaderData }) => [
  { title: m.messaging_contact_meta_title({ name: loaderData?.contact.name ?? m.messaging_contact_meta_fallback() }) },
];

/**
 * /messaging/contacts/:id: a contact, its edit form, consent, timeline, merge, delete and the
 * person's rights (their data is a file from ./contact-data.ts). Confirmations are `?confirm=`
 * states the server renders (no script needed).
 */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireUserWithPermission(args, "contacts:view");
  const organizationId = current.organization.id;
  const params = args.url.searchParams;
  const contact = await getContact(organizationId, args.params.id).catch((error) => {
    throwIfNotFound(refusalOf(error), m.messaging_contact_not_found());
    throw error;
  });
  const mergeQuery = params.get("merge")?.trim().slice(0, 200) ?? "";
  const otherId = params.get("other");
  const [definitions, timeline, candidates, other] = await Promise.all([
    attributeDefinitions(organizationId),
    contactTimeline(organizationId, contact.id, params.get("older")),
    mergeQuery ? listContacts(organizationId, { search: mergeQuery }, { limit: 11 }) : null,
    otherId ? getContact(organizationId, otherId).catch(() => null) : null,
  ]);
  const confirm = params.get("confirm");
  return {
    contact,
    fields: [...definitions.values()],
    timeline,
    mergeQuery,
    candidates: candidates?.contacts.filter((c) => c.id !== contact.id).slice(0, 10) ?? null,
    other: other && other.id !== contact.id ? { id: other.id, name: other.name, phone: other.phone } : null,
    confirm: confirm === "delete" || confirm === "erase" || confirm === "merge" ? confirm : null,
    copies: confirm === "erase" ? await copiesToErase(current.organization.id, contact.id) : null,
    canManage: can(current.role, "contacts:manage"),
  };
}

export async function action(args: Route.ActionArgs) {
  const current = await requireUserWithPermission(args, "contacts:manage");
  const form = await readForm(args.request);
  const actor = { organizationId: current.organization.id, userId: current.user.id, meta: requestMeta(args.request, args.context) };
  const id = args.params.id;
  const here = href("/messaging/contacts/:id", { id });
  const { intent, other, confirm } = postedTexts(form, ["intent", "other", "confirm"]);
  try {
    switch (intent) {
      case "save":
        return await saveContactForm(actor, id, form);
      case "consent":
        return await recordConsentForm(actor, id, form);
      case "delete":
      case "erase":
      case "merge": {
        if (confirm !== "yes")
          return redirectWithToast(
            `${here}?confirm=${intent}${intent === "merge" ? `&other=${encodeURIComponent(other)}` : ""}`,
            "info",
            m.messaging_contact_confirm_first(),
          );
        if (intent === "delete") {
          await deleteContact(actor, id);
          return redirectWithToast(href("/messaging/contacts"), "success", m.messaging_contact_deleted_toast());
        }
        if (intent === "erase")
          return redirectWithToast(href("/messaging/contacts"), "success", erasedToast(await eraseContact(actor, id)));
        const merged = await mergeContacts(actor, id, other);
        return redirectWithToast(here, "success", m.messaging_contact_merged_toast({ name: merged.name }));
      }
    }
  } catch (error) {
    const refusal = refusalOf(error);
    // Merging, the other contact is the one not found: said on this contact's page.
    if (refusal.code === "contact_not_found" && intent !== "merge") throwIfNotFound(refusal, m.messaging_contact_not_found());
    return refusalToast(refusal, { form: intent }, refusal.status === 404 ? 400 : refusal.status);
  }
  throw data("Unknown action.", { status: 400 });
}

/** The erasure's toast: what was erased here, and what happens to the copies in connected tools. */
function erasedToast(copies: ErasedCopy[]) {
  const place = (copy: ErasedCopy) => `${copy.tool} (${copy.where})`;
  const byHand = copies.filter((c) => c.outcome === "by_hand");
  if (byHand.length) return m.messaging_contact_erased_toast_by_hand({ places: byHand.map(place).join(", ") });
  if (copies.length) return m.messaging_contact_erased_toast_removing({ tools: copies.map(place).join(", ") });
  return m.messaging_contact_erased_toast();
}

async function saveContactForm(actor: { organizationId: string; userId: string }, id: string, form: FormData) {
  const submission = parseWithZod(form, { schema: EditContactSchema });
  if (submission.status !== "success") return formFailure(submission.reply(), 400, undefined, { form: "save" });
  const attributes: Record<string, string> = {};
  for (const [key, value] of form) if (key.startsWith("attr.") && typeof value === "string") attributes[key.slice(5)] = value;
  const { name, phone, tags, language, notes } = submission.value;
  try {
    const contact = await updateContact(actor, id, {
      name,
      phone,
      tags: splitTags(tags),
      attributes,
      notes: notes ?? null,
      language: language ?? null,
    });
    return redirectWithToast(href("/messaging/contacts/:id", { id }), "success", m.messaging_contact_saved_toast({ name: contact.name }));
  } catch (error) {
    const refusal = refusalOf(error);
    if (refusal.status === 404) throw refusal;
    return refusalReply(submission, refusal, { extra: { form: "save" } });
  }
}

async function recordConsentForm(actor: { organizationId: string; userId: string }, id: string, form: FormData) {
  const submission = parseWithZod(form, { schema: ConsentSchema });
  if (submission.status !== "success") return formFailure(submission.reply(), 400, undefined, { form: "consent" });
  const contact = await setConsent(actor, id, submission.value);
  return redirectWithToast(
    href("/messaging/contacts/:id", { id }),
    "success",
    m.messaging_consent_recorded_toast({ status: optInLabels()[contact.optIn] }),
  );
}

export default function ContactPage({ loaderData, actionData }: Route.ComponentProps) {
  const { contact, fields, timeline, mergeQuery, candidates, other, confirm, canManage } = loaderData;
  const canMessage = useCan("inbox:reply");
  const [search] = useSearchParams();
  const olderHref = timeline.older ? `?${new URLSearchParams({ ...Object.fromEntries(search), older: timeline.older })}` : null;
  return (
    <div className="space-y-6">
      {actionData?.toast ? <Toast key={actionData.toast.id} toast={actionData.toast} /> : null}
      <ContactHeader contact={contact} canMessage={canMessage} />
      <ContactConfirmation contact={contact} confirm={confirm} other={other} copies={loaderData.copies} />

      <div className="grid gap-6 lg:grid-cols-2">
        {canManage ? (
          <EditContactCard contact={contact} fields={fields} lastResult={actionData?.form === "save" ? actionData.result : undefined} />
        ) : null}
        <div className="space-y-6">
          {canManage ? <ConsentCard lastResult={actionData?.form === "consent" ? actionData.result : undefined} /> : null}
          <ContactTimeline entries={timeline.entries} olderHref={olderHref} />
        </div>
      </div>

      {canManage ? (
        <>
          <MergeCard contact={contact} mergeQuery={mergeQuery} candidates={candidates} />
          <RightsCard contactId={contact.id} />
        </>
      ) : null}
    </div>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
