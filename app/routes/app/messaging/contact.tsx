import { data, href, useSearchParams } from "react-router";
import * as z from "zod/mini";
import { useCan } from "~/components/layout/shell-role";
import type { Route } from "./+types/contact";
import { can, requireDeclaredUser, type CurrentUser } from "~/.server/domains/auth/guards";
import { intent, intentAction } from "~/.server/domains/auth/form-actions";
import type { SubmissionOf } from "~/.server/infrastructure/http/intents";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";
import { formFailure } from "~/.server/infrastructure/http/forms";
import { postedText } from "~/.server/infrastructure/http/posted-fields";
import { redirectWithToast } from "~/.server/infrastructure/http/toast";
import { attributeDefinitions } from "~/.server/domains/contacts/attributes";
import { deleteContact, getContact, listContacts, setConsent, updateContact } from "~/.server/domains/contacts/manage";
import { mergeContacts } from "~/.server/domains/contacts/merge";
import { eraseContact, type ErasedCopy } from "~/.server/domains/contacts/rights";
import { copiesToErase } from "~/.server/domains/integrations/erasure";
import { contactTimeline } from "~/.server/domains/contacts/timeline";
import { requestPaymentFromContact, shortcodeChoices } from "~/.server/domains/payments";
import { PaymentRequestFormSchema } from "~/lib/schemas/payment-requests";
import { PaymentRequestForm } from "~/components/payment-requests/payment-request-panel";
import { Card, CardHeader } from "~/components/ui/card";
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
  const current = await requireDeclaredUser(args);
  const organizationId = current.organization.id;
  const params = args.url.searchParams;
  const contact = await getContact(organizationId, args.params.id).catch((error) => {
    throwIfNotFound(refusalOf(error), m.messaging_contact_not_found());
    throw error;
  });
  const mergeQuery = params.get("merge")?.trim().slice(0, 200) ?? "";
  const otherId = params.get("other");
  const asksPayment = canAskPayment(current);
  const [definitions, timeline, candidates, other, shortcodes] = await Promise.all([
    attributeDefinitions(organizationId),
    contactTimeline(organizationId, contact.id, params.get("older")),
    mergeQuery ? listContacts(organizationId, { search: mergeQuery }, { limit: 11 }) : null,
    otherId ? getContact(organizationId, otherId).catch(() => null) : null,
    asksPayment ? shortcodeChoices(organizationId) : null,
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
    shortcodes,
  };
}

/** "Request payment" is for those who write to customers and see the organisation's shortcodes (as in the inbox). */
const canAskPayment = (current: CurrentUser) => can(current.role, "inbox:reply") && can(current.role, "payments:view");

/** A payment request refused: the form again as sent, the words at its field. */
function paymentFailure(errors: Record<string, string>, values: Record<string, string>, status: number) {
  return data({ form: "payment" as const, toast: null, paymentErrors: errors, paymentValues: values }, { status });
}

// Deleting, erasing and merging ask for a confirmation first; merging names the other contact.
const ConfirmSchema = z.object({ confirm: postedText, other: postedText });

export async function action(args: Route.ActionArgs) {
  const id = args.params.id;
  const here = href("/messaging/contacts/:id", { id });
  const actorOf = (current: CurrentUser) => ({
    organizationId: current.organization.id,
    userId: current.user.id,
    meta: requestMeta(args.request, args.context),
  });
  const confirmed = intent(ConfirmSchema, async ({ value: { confirm, other }, user, intent: posted }) => {
    if (confirm !== "yes")
      return redirectWithToast(
        `${here}?confirm=${posted}${posted === "merge" ? `&other=${encodeURIComponent(other)}` : ""}`,
        "info",
        m.messaging_contact_confirm_first(),
      );
    if (posted === "delete") {
      await deleteContact(actorOf(user), id);
      return redirectWithToast(href("/messaging/contacts"), "success", m.messaging_contact_deleted_toast());
    }
    if (posted === "erase")
      return redirectWithToast(href("/messaging/contacts"), "success", erasedToast(await eraseContact(actorOf(user), id)));
    const merged = await mergeContacts(actorOf(user), id, other);
    return redirectWithToast(here, "success", m.messaging_contact_merged_toast({ name: merged.name }));
  });
  return intentAction(args, {
    permission: "contacts:manage",
    intents: {
      save: intent(
        EditContactSchema,
        ({ value, submission, form, user }) => saveContact(actorOf(user), id, value, submission, attributesOf(form)),
        { invalid: (submission) => formFailure(submission.reply(), 400, undefined, { form: "save" }) },
      ),
      consent: intent(
        ConsentSchema,
        async ({ value, user }) => {
          const contact = await setConsent(actorOf(user), id, value);
          return redirectWithToast(here, "success", m.messaging_consent_recorded_toast({ status: optInLabels()[contact.optIn] }));
        },
        { invalid: (submission) => formFailure(submission.reply(), 400, undefined, { form: "consent" }) },
      ),
      payment: intent(
        PaymentRequestFormSchema,
        async ({ value, user, submission }) => {
          if (!canAskPayment(user)) throw data(m.messaging_contact_payment_not_allowed(), { status: 403 });
          try {
            await requestPaymentFromContact({ organizationId: user.organization.id, userId: user.user.id }, id, value);
          } catch (error) {
            const refusal = refusalOf(error);
            if (refusal.status === 404) throwIfNotFound(refusal, m.messaging_contact_not_found());
            const values = submission.payload as Record<string, string>;
            return paymentFailure({ [refusal.field ?? "payment"]: refusal.message }, values, refusal.status);
          }
          return redirectWithToast(here, "success", m.payreq_form_sent());
        },
        {
          invalid: (submission) =>
            paymentFailure(
              Object.fromEntries(Object.entries(submission.reply().error ?? {}).map(([k, v]) => [k, v?.[0] ?? ""])),
              submission.payload as Record<string, string>,
              422,
            ),
        },
      ),
      delete: confirmed,
      erase: confirmed,
      merge: confirmed,
    },
    refused: (refusal, posted) => {
      // Merging, the other contact is the one not found: said on this contact's page.
      if (refusal.code === "contact_not_found" && posted !== "merge") throwIfNotFound(refusal, m.messaging_contact_not_found());
      return refusalToast(refusal, { form: posted }, refusal.status === 404 ? 400 : refusal.status);
    },
    unknown: () => {
      throw data("Unknown action.", { status: 400 });
    },
  });
}

/** The erasure's toast: what was erased here, and what happens to the copies in connected tools. */
function erasedToast(copies: ErasedCopy[]) {
  const place = (copy: ErasedCopy) => `${copy.tool} (${copy.where})`;
  const byHand = copies.filter((c) => c.outcome === "by_hand");
  if (byHand.length) return m.messaging_contact_erased_toast_by_hand({ places: byHand.map(place).join(", ") });
  if (copies.length) return m.messaging_contact_erased_toast_removing({ tools: copies.map(place).join(", ") });
  return m.messaging_contact_erased_toast();
}

/** The custom fields' values, posted as `attr.<key>` (a key the organisation defined; "" clears it). */
function attributesOf(form: FormData) {
  const attributes: Record<string, string> = {};
  for (const [key, value] of form) if (key.startsWith("attr.") && typeof value === "string") attributes[key.slice(5)] = value;
  return attributes;
}

async function saveContact(
  actor: { organizationId: string; userId: string },
  id: string,
  { name, phone, tags, language, notes }: z.output<typeof EditContactSchema>,
  submission: SubmissionOf<typeof EditContactSchema>,
  attributes: Record<string, string>,
) {
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
          <EditContactCard
            contact={contact}
            fields={fields}
            lastResult={actionData && "form" in actionData && actionData.form === "save" ? actionData.result : undefined}
          />
        ) : null}
        <div className="space-y-6">
          {canManage ? (
            <ConsentCard lastResult={actionData && "form" in actionData && actionData.form === "consent" ? actionData.result : undefined} />
          ) : null}
          {loaderData.shortcodes && canMessage ? (
            <Card id="contact-payment">
              <CardHeader title={m.messaging_contact_payment_title()} description={m.messaging_contact_payment_help()} />
              <PaymentRequestForm
                shortcodes={loaderData.shortcodes}
                errors={actionData && "paymentErrors" in actionData ? actionData.paymentErrors : undefined}
                values={actionData && "paymentValues" in actionData ? actionData.paymentValues : undefined}
              />
            </Card>
          ) : null}
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
