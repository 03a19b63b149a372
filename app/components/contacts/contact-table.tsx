import { href } from "react-router";
import { Link } from "~/components/ui/link";
import type { ContactLine as ContactRow } from "~/.server/domains/contacts/views";
import { Badge } from "~/components/ui/badge";
import { type Column } from "~/components/ui/table";
import { TextLink } from "~/components/ui/text-link";
import { formatWhen } from "~/lib/dates";
import { m } from "~/paraglide/messages";

import { optInLabels } from "./labels";

export { optInLabels };

/** The Last seen filter's choices, in the request's language. */
export const seenLabels = (): [string, string][] => [
  ["7", m.messaging_contacts_seen_days({ days: 7 })],
  ["30", m.messaging_contacts_seen_days({ days: 30 })],
  ["90", m.messaging_contacts_seen_days({ days: 90 })],
  ["never", m.messaging_contacts_seen_never()],
];

/** The contact book's columns: a tick box for whoever manages contacts, a Message link for whoever replies. */
export function contactColumns({ canManage, canMessage }: { canManage: boolean; canMessage: boolean }): Column<ContactRow>[] {
  const optIn = optInLabels();
  return [
    ...(canManage ? [selectColumn()] : []),
    {
      key: "name",
      header: m.messaging_contact_col_name(),
      cell: (row) => (
        <Link to={href("/messaging/contacts/:id", { id: row.id })} className="cell-link">
          {row.name}
        </Link>
      ),
    },
    {
      key: "phone",
      header: m.messaging_contact_col_phone(),
      cell: (row) => <span className="tabular-nums">{row.phone ?? m.messaging_no_number()}</span>,
    },
    { key: "tags", header: m.messaging_contact_field_tags(), hideOnPhone: true, cell: (row) => <ContactTags tags={row.tags} /> },
    {
      key: "optin",
      header: m.messaging_contacts_filter_optin(),
      cell: (row) => (
        <Badge tone={row.optIn === "opted_in" ? "success" : row.optIn === "opted_out" ? "danger" : "neutral"}>{optIn[row.optIn]}</Badge>
      ),
    },
    {
      key: "seen",
      header: m.messaging_contacts_filter_seen(),
      hideOnPhone: true,
      cell: (row) => (row.lastSeenAt ? formatWhen(row.lastSeenAt) : m.messaging_contacts_seen_never()),
    },
    ...(canMessage ? [messageColumn()] : []),
  ];
}

// Its boxes belong to the bulk form above the table (form="contacts-bulk").
const selectColumn = (): Column<ContactRow> => ({
  key: "select",
  header: <span className="sr-only">{m.messaging_contact_col_select()}</span>,
  cell: (row) => (
    <input
      type="checkbox"
      name="id"
      value={row.id}
      form="contacts-bulk"
      aria-label={m.messaging_contact_select_label({ name: row.name })}
      className="tick"
    />
  ),
});

const messageColumn = (): Column<ContactRow> => ({
  key: "message",
  header: <span className="sr-only">{m.messaging_contact_message()}</span>,
  cell: (row) =>
    row.phone ? (
      <TextLink
        to={`${href("/chat/new")}?contact=${row.id}`}
        weight="medium"
        underline="hover"
        aria-label={m.messaging_contact_message_label({ name: row.name })}
      >
        {m.messaging_contact_message()}
      </TextLink>
    ) : null,
});

function ContactTags({ tags }: { tags: string[] }) {
  if (!tags.length) return <span className="text-slate-400">{m.messaging_contact_no_tags()}</span>;
  return (
    <span className="flex flex-wrap gap-1">
      {tags.map((t) => (
        <Badge key={t}>{t}</Badge>
      ))}
    </span>
  );
}
