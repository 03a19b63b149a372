import { sql } from "drizzle-orm";
import { db } from "../../infrastructure/db/client";
import { queryRows } from "../../infrastructure/db/query";

export const TIMELINE_PAGE_SIZE = 30;

export type TimelineEntry =
  | { kind: "message"; id: string; at: string; direction: "inbound" | "outbound"; status: string; body: string; messageType: string }
  | { kind: "consent"; id: string; at: string; status: "opted_in" | "opted_out"; source: string; evidence: string };

interface TimelineRow {
  kind: "message" | "consent";
  id: string;
  at: string;
  direction: string | null;
  status: string;
  body: string | null;
  message_type: string | null;
  source: string | null;
}

const encode = (row: TimelineRow) => Buffer.from(`${row.at}|${row.kind}|${row.id}`).toString("base64url");
function decode(cursor: string | null | undefined) {
  if (!cursor || cursor.length > 200) return null;
  const [at, kind, id] = Buffer.from(cursor, "base64url").toString().split("|");
  if (!at || Number.isNaN(Date.parse(at)) || (kind !== "message" && kind !== "consent") || !id || id.length > 40) return null;
  return { at, kind, id };
}

/**
 * A contact's messages and consent events, newest first, a page after `cursor`: each side read by
 * its index (messages_contact_idx, consent_events_contact_idx), then merged. The caller has checked
 * that the contact is the tenant's.
 */
export async function contactTimeline(organizationId: string, contactId: string, cursor?: string | null) {
  const after = decode(cursor);
  const bound = after ? sql` and (at, kind, id) < (${after.at}::timestamptz, ${after.kind}, ${after.id})` : sql``;
  const limit = TIMELINE_PAGE_SIZE + 1;
  const rows = await queryRows<TimelineRow>(
    db(),
    sql`
      select * from (
        (select 'message' as kind, id::text as id, created_at as at, direction, status, body, message_type, null as source
           from messages where contact_id = ${contactId} and organization_id = ${organizationId}
           ${after ? sql`and created_at <= ${after.at}::timestamptz` : sql``}
           order by created_at desc limit ${limit * 2})
        union all
        (select 'consent', id::text, created_at, null, status, evidence, null, source
           from consent_events where contact_id = ${contactId} and organization_id = ${organizationId}
           ${after ? sql`and created_at <= ${after.at}::timestamptz` : sql``}
           order by created_at desc, id desc limit ${limit * 2})
      ) t where true${bound}
      order by at desc, kind desc, id desc limit ${limit}`,
  );
  const shown = rows.slice(0, TIMELINE_PAGE_SIZE);
  const last = shown.at(-1);
  return {
    entries: shown.map(entryOf),
    older: rows.length > TIMELINE_PAGE_SIZE && last ? encode({ ...last, at: new Date(last.at).toISOString() }) : null,
  };
}

function entryOf(row: TimelineRow): TimelineEntry {
  const at = new Date(row.at).toISOString();
  if (row.kind === "consent")
    return {
      kind: "consent",
      id: row.id,
      at,
      status: row.status as "opted_in" | "opted_out",
      source: row.source ?? "",
      evidence: row.body ?? "",
    };
  return {
    kind: "message",
    id: row.id,
    at,
    direction: row.direction === "inbound" ? "inbound" : "outbound",
    status: row.status,
    body: row.body ?? "",
    messageType: row.message_type ?? "text",
  };
}
