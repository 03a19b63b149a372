import { href, Link } from "react-router";
import type { ContactLine as ContactRow } from "~/.server/domains/contacts/views";
import { Badge } from "~/components/ui/badge";
import { type Column } from "~/components/ui/table";
import { TextLink } from "~/components/ui/text-link";
import { formatWhen } from "~/lib/dates";

import { OPT_IN_LABELS } from "./labels";

export { OPT_IN_LABELS };

export const SEEN_LABELS: [string, string][] = [
  ["7", "Last 7 days"],
  ["30", "Last 30 days"],
  ["90", "Last 90 days"],
  ["never", "Never"],
];

/** The contact book's columns: a tick box for whoever manages contacts, a Message link for whoever replies. */
export function contactColumns({ canManage, canMessage }: { canManage: boolean; canMessage: boolean }): Column<ContactRow>[] {
  return [
    ...(canManage ? [SELECT_COLUMN] : []),
    {
      key: "name",
      header: "Name",
      cell: (row) => (
        <Link to={href("/messaging/contacts/:id", { id: row.id })} className="cell-link">
          {row.name}
        </Link>
      ),
    },
    { key: "phone", header: "Phone", cell: (row) => <span className="tabular-nums">{row.phone ?? "No number"}</span> },
    { key: "tags", header: "Tags", hideOnPhone: true, cell: (row) => <ContactTags tags={row.tags} /> },
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
    ...(canMessage ? [MESSAGE_COLUMN] : []),
  ];
}

// Its boxes belong to the bulk form above the table (form="contacts-bulk").
const SELECT_COLUMN: Column<ContactRow> = {
  key: "select",
  header: <span className="sr-only">Select</span>,
  cell: (row) => <input type="checkbox" name="id" value={row.id} form="contacts-bulk" aria-label={`Select ${row.name}`} className="tick" />,
};

const MESSAGE_COLUMN: Column<ContactRow> = {
  key: "message",
  header: <span className="sr-only">Message</span>,
  cell: (row) =>
    row.phone ? (
      <TextLink to={`${href("/chat/new")}?contact=${row.id}`} weight="medium" underline="hover" aria-label={`Message ${row.name}`}>
        Message
      </TextLink>
    ) : null,
};

function ContactTags({ tags }: { tags: string[] }) {
  if (!tags.length) return <span className="text-slate-400">None</span>;
  return (
    <span className="flex flex-wrap gap-1">
      {tags.map((t) => (
        <Badge key={t}>{t}</Badge>
      ))}
    </span>
  );
}
