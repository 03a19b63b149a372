import { href } from "react-router";
import type { ContactView } from "~/.server/domains/contacts/views";
import type { ErasedCopy } from "~/.server/domains/contacts/rights";
import { Send } from "~/components/ui/icons";
import { BackLink } from "~/components/ui/back-link";
import { Badge } from "~/components/ui/badge";
import { ButtonLink } from "~/components/ui/button";
import { ConfirmPanel } from "~/components/ui/confirm-panel";
import { formatWhen } from "~/lib/dates";
import { m } from "~/paraglide/messages";
import { optInLabels } from "./labels";

/** The contact's name, consent state, number and dates, and a Message button for whoever replies. */
export function ContactHeader({ contact, canMessage }: { contact: ContactView; canMessage: boolean }) {
  return (
    <div>
      <BackLink to={href("/messaging/contacts")}>{m.messaging_center_tab_contacts()}</BackLink>
      <h1 className="mt-2 flex flex-wrap items-center gap-3 text-2xl font-bold tracking-tight wrap-anywhere">
        {contact.name}
        <Badge tone={contact.optIn === "opted_in" ? "success" : contact.optIn === "opted_out" ? "danger" : "neutral"}>
          {optInLabels()[contact.optIn]}
        </Badge>
      </h1>
      <p className="text-slate-600">
        <span className="tabular-nums">{contact.phone ?? m.messaging_no_number()}</span> ·{" "}
        {m.messaging_contact_added_on({ when: formatWhen(contact.createdAt) })} ·{" "}
        {contact.lastSeenAt
          ? m.messaging_contact_last_seen_on({ when: formatWhen(contact.lastSeenAt) })
          : m.messaging_contact_last_seen_never()}
      </p>
      {canMessage && contact.phone ? (
        <ButtonLink to={`${href("/chat/new")}?contact=${contact.id}`} size="sm" className="mt-3">
          <Send size={16} aria-hidden /> {m.messaging_contact_message()}
        </ButtonLink>
      ) : null}
    </div>
  );
}

interface ContactConfirmationProps {
  contact: ContactView;
  confirm: string | null;
  other: { id: string; name: string; phone: string | null } | null;
  /** With `confirm=erase`: what Jumbe put in connected tools and what the erasure does there. */
  copies?: ErasedCopy[] | null;
}

/** One copy in a connected tool, as the erase confirmation lists it. */
export function erasedCopyWords(copy: ErasedCopy) {
  if (copy.outcome === "by_hand") return m.messaging_contact_erase_copy_by_hand({ tool: copy.tool, where: copy.where });
  return copy.tool === "HubSpot"
    ? m.messaging_contact_erase_copy_hubspot({ where: copy.where })
    : m.messaging_contact_erase_copy_sheets({ where: copy.where });
}

/** The `?confirm=` states: delete, erase or merge, each asked once more before it is done. */
export function ContactConfirmation({ contact, confirm, other, copies }: ContactConfirmationProps) {
  const here = href("/messaging/contacts/:id", { id: contact.id });
  if (confirm === "delete")
    return (
      <ConfirmPanel
        title={m.messaging_contact_delete_title({ name: contact.name })}
        intent="delete"
        confirmLabel={m.messaging_yes_delete()}
        cancelTo={here}
      >
        {m.messaging_contact_delete_body()}
      </ConfirmPanel>
    );
  if (confirm === "erase")
    return (
      <ConfirmPanel
        title={m.messaging_contact_erase_title({ name: contact.name })}
        intent="erase"
        confirmLabel={m.messaging_contact_erase_confirm()}
        cancelTo={here}
      >
        <p>{m.messaging_contact_erase_body()}</p>
        {copies?.length ? (
          <>
            <p className="mt-2">{m.messaging_contact_erase_copies_intro()}</p>
            <ul className="mt-1 list-disc ps-5" data-testid="erase-copies">
              {copies.map((copy) => (
                <li key={`${copy.tool}:${copy.where}`}>{erasedCopyWords(copy)}</li>
              ))}
            </ul>
          </>
        ) : (
          <p className="mt-2">{m.messaging_contact_erase_no_copies()}</p>
        )}
      </ConfirmPanel>
    );
  if (confirm === "merge" && other)
    return (
      <ConfirmPanel
        title={m.messaging_contact_merge_title({
          other: other.name,
          phone: other.phone ?? m.messaging_no_number_lower(),
          name: contact.name,
        })}
        intent="merge"
        confirmLabel={m.messaging_contact_merge_confirm()}
        cancelTo={here}
        fields={{ other: other.id }}
      >
        {m.messaging_contact_merge_body({ name: contact.name, other: other.name })}
      </ConfirmPanel>
    );
  return null;
}
