/** A contact as pages and the API show it. */
export interface ContactView {
  id: string;
  name: string;
  phone: string | null;
  waId: string | null;
  tags: string[];
  attributes: Record<string, string | number | boolean>;
  notes: string | null;
  language: string | null;
  optIn: "opted_in" | "opted_out" | "unknown";
  optInChangedAt: string | null;
  lastSeenAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface ContactRow {
  id: string;
  name: string;
  phone: string | null;
  wa_id: string | null;
  tags: string[] | null;
  attributes: Record<string, string | number | boolean> | null;
  notes: string | null;
  language: string | null;
  opt_in: ContactView["optIn"];
  opt_in_changed_at: Date | string | null;
  last_seen_at: Date | string | null;
  created_at: Date | string;
  updated_at: Date | string;
}

const iso = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString());

/** A contact as a line of the contact book shows it: the list's own columns, not the contact's page. */
export type ContactLine = Pick<ContactView, "id" | "name" | "phone" | "tags" | "optIn" | "lastSeenAt">;

export function contactLineOf(row: Pick<ContactRow, "id" | "name" | "phone" | "tags" | "opt_in" | "last_seen_at">): ContactLine {
  return { id: row.id, name: row.name, phone: row.phone, tags: row.tags ?? [], optIn: row.opt_in, lastSeenAt: iso(row.last_seen_at) };
}

export function contactView(row: ContactRow): ContactView {
  return {
    id: row.id,
    name: row.name,
    phone: row.phone,
    waId: row.wa_id,
    tags: row.tags ?? [],
    attributes: row.attributes ?? {},
    notes: row.notes,
    language: row.language,
    optIn: row.opt_in,
    optInChangedAt: iso(row.opt_in_changed_at),
    lastSeenAt: iso(row.last_seen_at),
    createdAt: iso(row.created_at)!,
    updatedAt: iso(row.updated_at)!,
  };
}
