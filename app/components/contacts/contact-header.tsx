import { href } from "react-router";
import type { ContactView } from "~/.server/domains/contacts/views";
import { Send } from "~/components/ui/icons";
import { BackLink } from "~/components/ui/back-link";
import { Badge } from "~/components/ui/badge";
import { ButtonLink } from "~/components/ui/button";
import { ConfirmPanel } from "~/components/ui/confirm-panel";
import { formatWhen } from "~/lib/dates";
import { OPT_IN_LABELS } from "./labels";

/** The contact's name, consent state, number and dates, and a Message button for whoever replies. */
export function ContactHeader({ contact, canMessage }: { contact: ContactView; canMessage: boolean }) {
  return (
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
  );
}

interface ContactConfirmationProps {
  contact: ContactView;
  confirm: string | null;
  other: { id: string; name: string; phone: string | null } | null;
}

/** The `?confirm=` states: delete, erase or merge, each asked once more before it is done. */
export function ContactConfirmation({ contact, confirm, other }: ContactConfirmationProps) {
  const here = href("/messaging/contacts/:id", { id: contact.id });
  if (confirm === "delete")
    return (
      <ConfirmPanel title={`Delete ${contact.name}?`} intent="delete" confirmLabel="Yes, delete" cancelTo={here}>
        Their consent records go with them; their messages stay in your history, no longer linked to a contact.
      </ConfirmPanel>
    );
  if (confirm === "erase")
    return (
      <ConfirmPanel title={`Erase ${contact.name}?`} intent="erase" confirmLabel="Yes, erase everything" cancelTo={here}>
        For a person who asked to be forgotten (Data Protection Act 2019, s.40): the contact, their consent ledger and the content of their
        messages are removed for good; the message counts stay. They can be added again only with their fresh consent.
      </ConfirmPanel>
    );
  if (confirm === "merge" && other)
    return (
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
    );
  return null;
}
