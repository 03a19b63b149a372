import { sql } from "drizzle-orm";
import { db } from "../../../infrastructure/db/client";
import { queryRows } from "../../../infrastructure/db/query";
import { Refusal } from "../../../infrastructure/refusal";
import type { HubspotFilter } from "../../../infrastructure/clients/hubspot";
import { saveSegment } from "../../contacts";
import { hubspotCall, type HubspotConnection } from "./calls";
import { m } from "~/paraglide/messages";

export interface SegmentSource {
  id: string;
  segmentId: string;
  kind: "list" | "search";
  listId: string | null;
  search: { filters: HubspotFilter[] }[] | null;
  name: string;
  tag: string;
}

/** The tag a followed list's or search's members carry in Jumbe (the segment filters on it). */
export function segmentTag(name: string) {
  const slug = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "")
    .slice(0, 30);
  return `hubspot-${slug || "list"}`;
}

export async function segmentSources(organizationId: string): Promise<SegmentSource[]> {
  const rows = await queryRows<{
    id: string;
    segment_id: string;
    kind: "list" | "search";
    list_id: string | null;
    search: unknown;
    name: string;
    tag: string;
  }>(
    db(),
    sql`select id, segment_id, kind, list_id, search, name, tag from hubspot_segment_sources
        where organization_id = ${organizationId} order by created_at`,
  );
  return rows.map((r) => ({
    id: r.id,
    segmentId: r.segment_id,
    kind: r.kind,
    listId: r.list_id,
    search: (r.search as SegmentSource["search"]) ?? null,
    name: r.name,
    tag: r.tag,
  }));
}

/**
 * Follows a HubSpot list or search as a Jumbe segment: a segment filtering on the source's tag is
 * saved (its name checked as any segment's) and the source stored; the next sync tags the members.
 */
export async function followSource(
  actor: { organizationId: string; userId: string },
  source: { kind: "list"; listId: string; name: string } | { kind: "search"; search: { filters: HubspotFilter[] }[]; name: string },
) {
  const tag = segmentTag(source.name);
  const [taken] = await queryRows<{ one: number }>(
    db(),
    sql`select 1 as one from hubspot_segment_sources where organization_id = ${actor.organizationId} and tag = ${tag}`,
  );
  if (taken)
    throw new Refusal({ domain: "integration", status: 409, code: "source_taken", message: m.hubspot_source_taken({ name: source.name }) });
  const segment = await saveSegment(actor, { name: `HubSpot: ${source.name}`, filter: { tag } });
  await db().execute(sql`
    insert into hubspot_segment_sources (organization_id, segment_id, kind, list_id, search, name, tag)
    values (${actor.organizationId}, ${segment.id}, ${source.kind}, ${source.kind === "list" ? source.listId : null},
            ${source.kind === "search" ? JSON.stringify(source.search) : null}::jsonb, ${source.name}, ${tag})
    on conflict do nothing`);
  return segment;
}

/** Stops following a source (the segment stays, its tag too): 404 for another organisation's. */
export async function unfollowSource(organizationId: string, sourceId: string) {
  const rows = await queryRows<{ id: string }>(
    db(),
    sql`delete from hubspot_segment_sources where organization_id = ${organizationId}
        and id::text = ${sourceId} returning id`,
  );
  if (!rows.length) throw new Refusal({ domain: "integration", status: 404, code: "unknown_source", message: m.hubspot_source_unknown() });
}

/** The HubSpot contact ids a source has now: the list's members, or the search's results. */
async function memberIds(connection: HubspotConnection, source: SegmentSource) {
  const ids: string[] = [];
  let after: string | undefined;
  do {
    if (source.kind === "list") {
      const page = await hubspotCall(connection, (client, token) => client.listMembers(token, source.listId!, after));
      ids.push(...page.items);
      after = page.after;
    } else {
      const page = await hubspotCall(connection, (client, token) =>
        client.searchContacts(token, {
          filterGroups: source.search ?? [],
          properties: ["hs_object_id"],
          limit: 200,
          ...(after ? { after } : {}),
        }),
      );
      ids.push(...page.items.map((c) => c.id));
      after = page.after;
    }
  } while (after);
  return ids;
}

/**
 * Each followed source's members carry its tag in Jumbe, and only they: the linked contacts of the
 * list's or search's HubSpot contacts gain it, the others lose it. Answers how many contacts are in
 * the segments in all.
 */
export async function refreshSegments(connection: HubspotConnection) {
  let members = 0;
  for (const source of await segmentSources(connection.organizationId)) {
    const hubspotIds = await memberIds(connection, source);
    const contactIds = (
      await queryRows<{ contact_id: string }>(
        db(),
        sql`select contact_id from hubspot_contact_links where organization_id = ${connection.organizationId}
            and hub_id = ${connection.hubId} and hubspot_id = any(${sql.param(hubspotIds)}::text[])`,
      )
    ).map((r) => r.contact_id);
    await db().transaction(async (tx) => {
      await tx.execute(sql`
        update contacts set tags = array_append(tags, ${source.tag})
        where organization_id = ${connection.organizationId} and id = any(${sql.param(contactIds)}::uuid[]) and not (tags @> array[${source.tag}])`);
      await tx.execute(sql`
        update contacts set tags = array_remove(tags, ${source.tag})
        where organization_id = ${connection.organizationId} and tags @> array[${source.tag}] and id <> all(${sql.param(contactIds)}::uuid[])`);
    });
    members += contactIds.length;
  }
  return members;
}
