import { data, Form, href, Link, useNavigation, useSearchParams } from "react-router";
import { getInputProps, getSelectProps, getTextareaProps } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { Download, GitMerge, Send, Trash2, UserX } from "~/components/ui/icons";
import { useCan } from "~/components/layout/shell-role";
import type { Route } from "./+types/contact";
import { can, requireUserWithPermission } from "~/.server/domains/auth/guards";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";
import { formFailure, readForm } from "~/.server/infrastructure/http/forms";
import { redirectWithToast } from "~/.server/infrastructure/http/toast";
import { attributeDefinitions } from "~/.server/domains/contacts/attributes";
import { deleteContact, getContact, listContacts, setConsent, updateContact } from "~/.server/domains/contacts/manage";
import { mergeContacts } from "~/.server/domains/contacts/merge";
import { eraseContact } from "~/.server/domains/contacts/rights";
import { contactTimeline } from "~/.server/domains/contacts/timeline";
import { refusalOf, refusalReply, refusalToast, throwIfNotFound } from "~/.server/infrastructure/http/refusal-reply";
import { ConsentSchema, EditContactSchema, splitTags } from "~/lib/schemas/contacts";
import { formatWhen } from "~/lib/dates";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { ContactIdentityFields } from "~/components/messaging/contact-fields";
import { BackLink } from "~/components/ui/back-link";
import { Badge } from "~/components/ui/badge";
import { Button, ButtonLink, buttonClass } from "~/components/ui/button";
import { Card, CardHeader } from "~/components/ui/card";
import { ConfirmPanel } from "~/components/ui/confirm-panel";
import { Field, FilterInput, SelectField, TextareaField } from "~/components/ui/field";
import { Toast } from "~/components/ui/toast";
import { useSchemaForm } from "~/components/ui/use-schema-form";
import type { PermissionHandle } from "~/lib/permissions";
import { TextLink } from "~/components/ui/text-link";

export const handle: PermissionHandle = { permission: "contacts:view" };

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: `${loaderData?.contact.name ?? "Contact"} | Contacts | Jumbe` }];

const OPT_IN_LABELS = { opted_in: "Opted in", opted_out: "Opted out", unknown: "Not asked" } as const;
const SOURCE_LABELS = {
  form: "A form",
  manual: "Told us in person",
  import: "An import",
  api: "The API",
  keyword: "A keyword message",
  meta: "WhatsApp (Meta)",
} as const;

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
    throwIfNotFound(refusalOf(error), "Contact not found.");
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
    canManage: can(current.role, "contacts:manage"),
  };
}

export async function action(args: Route.ActionArgs) {
  const current = await requireUserWithPermission(args, "contacts:manage");
  const form = await readForm(args.request);
  const actor = { organizationId: current.organization.id, userId: current.user.id, meta: requestMeta(args.request, args.context) };
  const id = args.params.id;
  const here = href("/messaging/contacts/:id", { id });
  const intent = String(form.get("intent") ?? "");
  try {
    switch (intent) {
      case "save":
        return await saveContactForm(actor, id, form);
      case "consent":
        return await recordConsentForm(actor, id, form);
      case "delete":
      case "erase":
      case "merge": {
        const other = String(form.get("other") ?? "");
        if (form.get("confirm") !== "yes")
          return redirectWithToast(
            `${here}?confirm=${intent}${intent === "merge" ? `&other=${encodeURIComponent(other)}` : ""}`,
            "info",
            "Confirm first.",
          );
        if (intent === "delete") await deleteContact(actor, id);
        if (intent === "erase") await eraseContact(actor, id);
        if (intent === "delete" || intent === "erase")
          return redirectWithToast(
            href("/messaging/contacts"),
            "success",
            intent === "erase" ? "Contact erased. Their messages are kept without personal content." : "Contact deleted.",
          );
        const merged = await mergeContacts(actor, id, other);
        return redirectWithToast(here, "success", `Merged: ${merged.name} now holds both contacts' tags, fields, messages and consent.`);
      }
    }
  } catch (error) {
    const refusal = refusalOf(error);
    // Merging, the other contact is the one not found: said on this contact's page.
    if (refusal.code === "contact_not_found" && intent !== "merge") throwIfNotFound(refusal, "Contact not found.");
    return refusalToast(refusal, { form: intent }, refusal.status === 404 ? 400 : refusal.status);
  }
  throw data("Unknown action.", { status: 400 });
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
    return redirectWithToast(href("/messaging/contacts/:id", { id }), "success", `${contact.name} saved.`);
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
    `${OPT_IN_LABELS[contact.optIn]}: recorded in the consent ledger.`,
  );
}

export default function ContactPage({ loaderData, actionData }: Route.ComponentProps) {
  const { contact, fields, timeline, mergeQuery, candidates, other, confirm, canManage } = loaderData;
  const here = href("/messaging/contacts/:id", { id: contact.id });
  const canMessage = useCan("inbox:reply");
  const navigation = useNavigation();
  const [search] = useSearchParams();
  const olderHref = timeline.older ? `?${new URLSearchParams({ ...Object.fromEntries(search), older: timeline.older })}` : null;
  return (
    <div className="space-y-6">
      {actionData?.toast ? <Toast key={actionData.toast.id} toast={actionData.toast} /> : null}
      <div>
        <BackLink to={href("/messaging/contacts")}>Contacts</BackLink>
        <h1 className="mt-2 flex flex-wrap items-center gap-3 text-2xl font-bold tracking-tight">
          {contact.name}
          <Badge tone={contact.optIn === "opted_in" ? "success" : contact.optIn === "opted_out" ? "danger" : "neutral"}>
            {OPT_IN_LABELS[contact.optIn]}
          </Badge>
        </h1>
        <p className="text-slate-600">
          <span className="tabular-nums">{contact.phone ?? "No number"}</span> · Added {formatWhen(contact.createdAt)} · Last seen{" "}
          {contact.lastSeenAt ? formatWhen(contact.lastSeenAt) : "never"}
        </p>
        {canMessage && contact.phone ? (
          <ButtonLink to={`${href("/chat/new")}?contact=${contact.id}`} size="sm" className="mt-3">
            <Send size={16} aria-hidden /> Message
          </ButtonLink>
        ) : null}
      </div>

      {confirm === "delete" ? (
        <ConfirmPanel title={`Delete ${contact.name}?`} intent="delete" confirmLabel="Yes, delete" cancelTo={here}>
          Their consent records go with them; their messages stay in your history, no longer linked to a contact.
        </ConfirmPanel>
      ) : null}
      {confirm === "erase" ? (
        <ConfirmPanel title={`Erase ${contact.name}?`} intent="erase" confirmLabel="Yes, erase everything" cancelTo={here}>
          For a person who asked to be forgotten (Data Protection Act 2019, s.40): the contact, their consent ledger and the content of
          their messages are removed for good; the message counts stay. They can be added again only with their fresh consent.
        </ConfirmPanel>
      ) : null}
      {confirm === "merge" && other ? (
        <ConfirmPanel
          title={`Merge ${other.name} (${other.phone ?? "no number"}) into ${contact.name}?`}
          intent="merge"
          confirmLabel="Yes, merge"
          cancelTo={here}
          fields={{ other: other.id }}
        >
          {contact.name} keeps its own fields and gains the other&apos;s tags, missing fields, messages and consent events; {other.name} is
          removed.
        </ConfirmPanel>
      ) : null}

      <div className="grid gap-6 lg:grid-cols-2">
        {canManage ? (
          <EditCard
            contact={contact}
            fields={fields}
            lastResult={actionData?.form === "save" ? actionData.result : undefined}
            busy={navigation.state === "submitting"}
          />
        ) : null}
        <div className="space-y-6">
          {canManage ? <ConsentCard lastResult={actionData?.form === "consent" ? actionData.result : undefined} /> : null}
          <Card>
            <CardHeader title="Timeline" description="Messages and consent events, newest first." />
            <ol className="mt-4 space-y-3" aria-label="Timeline">
              {timeline.entries.length ? (
                timeline.entries.map((entry) => (
                  <li key={`${entry.kind}-${entry.id}`} className="rounded-lg border border-slate-100 p-3 text-sm">
                    <p className="text-xs text-slate-500">{formatWhen(entry.at)}</p>
                    {entry.kind === "consent" ? (
                      <p>
                        <span className="font-medium">{OPT_IN_LABELS[entry.status]}</span> (
                        {SOURCE_LABELS[entry.source as keyof typeof SOURCE_LABELS] ?? entry.source})
                        {entry.evidence ? `: ${entry.evidence}` : ""}
                      </p>
                    ) : (
                      <p>
                        <span className="font-medium">{entry.direction === "inbound" ? "Received" : "Sent"}</span>{" "}
                        <Badge status={entry.status}>{entry.status}</Badge>{" "}
                        <span className="break-words whitespace-pre-line">{entry.body || `(${entry.messageType})`}</span>
                      </p>
                    )}
                  </li>
                ))
              ) : (
                <li className="text-sm text-slate-600">No messages or consent events yet.</li>
              )}
            </ol>
            {olderHref ? (
              <Link to={olderHref} className="mt-3 inline-block text-sm font-semibold text-brand-700 underline">
                Older events
              </Link>
            ) : null}
          </Card>
        </div>
      </div>

      {canManage ? (
        <>
          <Card>
            <CardHeader
              title="Merge with a duplicate"
              description="Find the other contact by name or number; it is merged into this one."
            />
            <Form method="get" className="mt-4 flex flex-wrap items-end gap-3">
              <FilterInput label="Find the duplicate" type="search" name="merge" defaultValue={mergeQuery} placeholder="Name or number" />
              <Button type="submit" variant="secondary">
                Search
              </Button>
            </Form>
            {candidates ? (
              candidates.length ? (
                <ul className="mt-3 divide-y divide-slate-100" aria-label="Possible duplicates">
                  {candidates.map((c) => (
                    <li key={c.id} className="flex items-center justify-between gap-3 py-2 text-sm">
                      <span>
                        {c.name} <span className="text-slate-500 tabular-nums">{c.phone}</span>
                      </span>
                      <ButtonLink to={`${here}?confirm=merge&other=${c.id}`} variant="secondary" size="sm">
                        <GitMerge className="size-4" aria-hidden /> Merge into {contact.name}
                      </ButtonLink>
                    </li>
                  ))}
                </ul>
              ) : (
                <p className="mt-3 text-sm text-slate-600">No other contact matches.</p>
              )
            ) : null}
          </Card>
          <Card>
            <CardHeader
              title="Their rights and removal"
              description="The Data Protection Act 2019: a copy of what you hold about them (s.26), and erasure (s.40)."
            />
            <div className="mt-4 flex flex-wrap gap-2">
              {/* A file: a plain link the browser downloads, with or without JavaScript. */}
              <a href={href("/messaging/contacts/:id/data.json", { id: contact.id })} download className={buttonClass("secondary")}>
                <Download className="size-4" aria-hidden /> Download their data
              </a>
              <ButtonLink to={`${here}?confirm=erase`} variant="secondary">
                <UserX className="size-4" aria-hidden /> Erase
              </ButtonLink>
              <ButtonLink to={`${here}?confirm=delete`} variant="danger">
                <Trash2 className="size-4" aria-hidden /> Delete
              </ButtonLink>
            </div>
          </Card>
        </>
      ) : null}
    </div>
  );
}

type Contact = Route.ComponentProps["loaderData"]["contact"];
type FieldDefinition = Route.ComponentProps["loaderData"]["fields"][number];

function EditCard({
  contact,
  fields,
  lastResult,
  busy,
}: {
  contact: Contact;
  fields: FieldDefinition[];
  lastResult: Parameters<typeof useSchemaForm>[1];
  busy: boolean;
}) {
  const [form, inputs] = useSchemaForm(EditContactSchema, lastResult, {
    id: "edit-contact",
    defaultValue: {
      name: contact.name,
      phone: contact.phone ?? "",
      tags: contact.tags.join(", "),
      language: contact.language ?? "",
      notes: contact.notes ?? "",
    },
  });
  return (
    <Card>
      <CardHeader title="Details" />
      <Form method="post" id={form.id} onSubmit={form.onSubmit} noValidate className="mt-4 space-y-1">
        <ContactIdentityFields formErrors={form.errors} fields={inputs} />
        {fields.map((field) => {
          const value = contact.attributes[field.key];
          const name = `attr.${field.key}`;
          if (field.type === "boolean")
            return (
              <SelectField
                key={field.key}
                label={field.label}
                name={name}
                defaultValue={value === true ? "yes" : value === false ? "no" : ""}
              >
                <option value="">Not known</option>
                <option value="yes">Yes</option>
                <option value="no">No</option>
              </SelectField>
            );
          return (
            <Field
              key={field.key}
              label={field.label}
              name={name}
              type={field.type === "number" ? "number" : field.type === "date" ? "date" : "text"}
              step={field.type === "number" ? "any" : undefined}
              defaultValue={value === undefined ? "" : String(value)}
            />
          );
        })}
        <SelectField
          label="Language for replies"
          errors={inputs.language.errors}
          {...getSelectProps(inputs.language)}
          key={inputs.language.key}
        >
          <option value="">Not known</option>
          <option value="en">English</option>
          <option value="sw">Swahili</option>
        </SelectField>
        <TextareaField label="Notes" rows={3} errors={inputs.notes.errors} {...getTextareaProps(inputs.notes)} key={inputs.notes.key} />
        <p className="text-sm">
          <TextLink to={href("/messaging/contacts/fields")}>Manage contact fields</TextLink>
        </p>
        <div className="flex justify-end pt-2">
          <Button type="submit" name="intent" value="save" pending={busy} pendingText="Saving...">
            Save contact
          </Button>
        </div>
      </Form>
    </Card>
  );
}

function ConsentCard({ lastResult }: { lastResult: Parameters<typeof useSchemaForm>[1] }) {
  const [form, inputs] = useSchemaForm(ConsentSchema, lastResult, { id: "consent", defaultValue: { status: "opted_in", source: "form" } });
  return (
    <Card>
      <CardHeader
        title="Record consent"
        description="Each record is kept in the consent ledger; the latest decides whether marketing may go to them."
      />
      <Form method="post" id={form.id} onSubmit={form.onSubmit} noValidate className="mt-4 space-y-1">
        <SelectField label="Status" errors={inputs.status.errors} {...getSelectProps(inputs.status)} key={inputs.status.key}>
          <option value="opted_in">Opted in</option>
          <option value="opted_out">Opted out</option>
        </SelectField>
        <SelectField label="Source" errors={inputs.source.errors} {...getSelectProps(inputs.source)} key={inputs.source.key}>
          {Object.entries(SOURCE_LABELS).map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </SelectField>
        <Field
          label="Evidence"
          markRequired
          hint="How they agreed or refused."
          errors={inputs.evidence.errors}
          {...getInputProps(inputs.evidence, { type: "text" })}
          key={inputs.evidence.key}
        />
        <div className="flex justify-end pt-2">
          <Button type="submit" name="intent" value="consent">
            Record consent
          </Button>
        </div>
      </Form>
    </Card>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
