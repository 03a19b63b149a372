import { sql } from "drizzle-orm";
import { db } from "../../infrastructure/db/client";
import { queryRow, queryRows } from "../../infrastructure/db/query";
import { recordActivity } from "../activity";
import type { RequestMeta } from "../../infrastructure/http/request-meta";
import { contactFilterOf, contactFilterQuery, readContactFilterParams, type ContactFilterParams } from "~/lib/contact-filter";
import type { Actor } from "./manage";
import { countMatching } from "./page";
import { refuseContact } from "./refusals";
import { m } from "~/paraglide/messages";

export const SEGMENT_NAME_MAX = 80;
export const SEGMENTS_MAX = 200;

export interface Segment {
  id: string;
  name: string;
  filter: ContactFilterParams;
  /** The filter as the Contacts tab's query string. */
  query: string;
  createdAt: string;
}

interface SegmentRow {
  id: string;
  name: string;
  filter: Record<string, unknown>;
  created_at: string | Date;
}

/** A stored filter read back through the same checks as the URL's, so an odd row cannot widen it. */
function segmentOf(row: SegmentRow): Segment {
  const filter = readContactFilterParams(new URLSearchParams(Object.entries(row.filter ?? {}).map(([k, v]) => [k, String(v)])));
  return { id: row.id, name: row.name, filter, query: contactFilterQuery(filter), createdAt: new Date(row.created_at).toISOString() };
}

function segmentName(input: string) {
  const name = input.replace(/\s+/g, " ").trim();
  if (!name || [...name].length > SEGMENT_NAME_MAX)
    throw refuseContact(422, "invalid_name", m.messaging_segment_name_required({ max: SEGMENT_NAME_MAX }));
  return name;
}

/** Saves a filter as a named segment; a name is used once per tenant. */
export async function saveSegment(actor: Actor & { meta?: RequestMeta }, input: { name: string; filter: ContactFilterParams }) {
  const name = segmentName(input.name);
  const filter = readContactFilterParams(new URLSearchParams(contactFilterQuery(input.filter)));
  const row = await db().transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`segments:${actor.organizationId}`}))`);
    const existing = (await queryRow<{ n: number; same: number }>(
      tx,
      sql`select count(*)::int as n, count(*) filter (where lower(name) = lower(${name}))::int as same from segments where organization_id = ${actor.organizationId}`,
    ))!;
    if (existing.same) throw refuseContact(409, "invalid_name", m.messaging_segment_name_taken({ name }));
    if (existing.n >= SEGMENTS_MAX) throw refuseContact(409, "invalid_name", m.messaging_segment_too_many({ max: SEGMENTS_MAX }));
    return (await queryRow<SegmentRow>(
      tx,
      sql`insert into segments (organization_id, name, filter, created_by)
        values (${actor.organizationId}, ${name}, ${JSON.stringify(filter)}::jsonb, ${actor.userId ?? null}) returning id, name, filter, created_at`,
    ))!;
  });
  await recordActivity({
    organizationId: actor.organizationId,
    userId: actor.userId,
    type: "settings",
    status: "success",
    action: "Segment saved",
    details: name,
    meta: actor.meta,
  });
  return segmentOf(row);
}

/** The tenant's segments by name; with `counts`, each with its live (capped) count. */
export async function listSegments(organizationId: string, options: { counts: boolean }) {
  const rows = (
    await queryRows<SegmentRow>(
      db(),
      sql`select id, name, filter, created_at from segments where organization_id = ${organizationId} order by lower(name) limit ${SEGMENTS_MAX}`,
    )
  ).map(segmentOf);
  if (!options.counts) return rows.map((s) => ({ ...s, count: null as null | { count: number; more: boolean } }));
  return Promise.all(rows.map(async (s) => ({ ...s, count: await countMatching(organizationId, contactFilterOf(s.filter)) })));
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const notFound = () => refuseContact(404, "contact_not_found", m.messaging_segment_not_found());

export async function getSegment(organizationId: string, id: string) {
  if (!UUID.test(id)) throw notFound();
  const row = await queryRow<SegmentRow>(
    db(),
    sql`select id, name, filter, created_at from segments where organization_id = ${organizationId} and id = ${id}`,
  );
  if (!row) throw notFound();
  return segmentOf(row);
}

export async function deleteSegment(actor: Actor & { meta?: RequestMeta }, id: string) {
  if (!UUID.test(id)) throw notFound();
  const row = await queryRow<{ name: string }>(
    db(),
    sql`delete from segments where organization_id = ${actor.organizationId} and id = ${id} returning name`,
  );
  if (!row) throw notFound();
  await recordActivity({
    organizationId: actor.organizationId,
    userId: actor.userId,
    type: "settings",
    status: "success",
    action: "Segment deleted",
    details: row.name,
    meta: actor.meta,
  });
}
