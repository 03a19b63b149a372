import { sql, type SQL } from "drizzle-orm";
import { db } from "../../../infrastructure/db/client";
import { queryRows } from "../../../infrastructure/db/query";
import { HubspotError, type HubspotContact } from "../../../infrastructure/clients/hubspot";
import { hubspotCall, type HubspotConnection } from "./calls";

/** Contacts sent per HubSpot batch call (HubSpot's batch limit). */
export const OUT_BATCH = 100;

/** The moment a Jumbe contact last changed, as the conflict rule compares it: its details or its consent. */
export const JUMBE_CHANGED_AT = sql`date_trunc('milliseconds', greatest(c.updated_at, coalesce(c.opt_in_changed_at, c.updated_at)))`;

interface OutRow {
  id: string;
  name: string;
  phone: string | null;
  email: string | null;
  opt_in: string;
  changed_at: Date | string;
  hubspot_id: string | null;
}

/**
 * A contact's name as a person's name, or null for a nameless one: Jumbe names a customer who shares
 * no WhatsApp profile name by their number (`+2547…`, or "WhatsApp user" without one), and a number
 * is not a first name (issue 74).
 */
export function personalName(name: string): string | null {
  const trimmed = name.trim();
  if (!trimmed || trimmed === "WhatsApp user" || /^[+\d\s().-]+$/.test(trimmed)) return null;
  return trimmed;
}

/**
 * A Jumbe contact as HubSpot's properties: the name split, the WhatsApp number, the opt-out, its Jumbe
 * id. A nameless contact sends no name at all, so HubSpot shows it by its number and keeps a name a
 * HubSpot user typed.
 */
export function hubspotPropertiesOf(row: Pick<OutRow, "id" | "name" | "phone" | "email" | "opt_in">, creating: boolean) {
  const properties: Record<string, string> = { jumbe_whatsapp_opt_out: row.opt_in === "opted_out" ? "true" : "false" };
  const name = personalName(row.name);
  if (name) {
    const [first, ...rest] = name.split(/\s+/);
    properties.firstname = first!;
    properties.lastname = rest.join(" ");
  }
  if (row.phone) {
    properties.phone = row.phone;
    properties.hs_whatsapp_phone_number = row.phone;
  }
  if (creating) {
    properties.jumbe_contact_id = row.id;
    if (row.email) properties.email = row.email;
  }
  return properties;
}

const iso = (value: Date | string) => new Date(value).toISOString();

async function saveLinks(
  connection: HubspotConnection,
  links: { contactId: string; hubspotId: string; jumbeAt: string; hubspotAt: string }[],
) {
  if (!links.length) return;
  await db().execute(sql`
    insert into hubspot_contact_links (organization_id, hub_id, contact_id, hubspot_id, jumbe_synced_at, hubspot_modified_at)
    select ${connection.organizationId}, ${connection.hubId}, c, h, j::timestamptz, m::timestamptz
    from unnest(${sql.param(links.map((l) => l.contactId))}::uuid[], ${sql.param(links.map((l) => l.hubspotId))}::text[],
                ${sql.param(links.map((l) => l.jumbeAt))}::text[], ${sql.param(links.map((l) => l.hubspotAt))}::text[]) as x(c, h, j, m)
    on conflict (organization_id, hub_id, contact_id) do update set hubspot_id = excluded.hubspot_id,
      jumbe_synced_at = excluded.jumbe_synced_at, hubspot_modified_at = excluded.hubspot_modified_at`);
}

/**
 * Contacts read with their links, joined by hashing (decision 091). PGlite keeps no statistics, so
 * its planner takes both tables for a handful of rows: as a nested loop it read every link of the
 * portal for each contact, even through a lateral probe (it picks the HubSpot-id index with the
 * contact as a filter), 4.5 s for 10,000 contacts against 50 ms hashed. With statistics PostgreSQL
 * hashes this join anyway.
 */
function withLinks(connection: HubspotConnection, which: SQL) {
  return db().transaction(async (tx) => {
    await tx.execute(sql`set local enable_nestloop = off`);
    return queryRows<OutRow>(
      tx,
      sql`
      select c.id, c.name, c.phone, c.attributes->>'email' as email, c.opt_in, ${JUMBE_CHANGED_AT} as changed_at, l.hubspot_id
      from contacts c
      left join hubspot_contact_links l on l.organization_id = c.organization_id and l.hub_id = ${connection.hubId} and l.contact_id = c.id
      where c.organization_id = ${connection.organizationId} and ${which}
      order by ${JUMBE_CHANGED_AT}, c.id`,
    );
  });
}

/**
 * The Jumbe contacts HubSpot has not seen as they are now (new ones, and linked ones changed since),
 * oldest change first, in one pass over the organisation's contacts and links.
 */
const changedContactRows = (connection: HubspotConnection) =>
  withLinks(connection, sql`(l.contact_id is null or ${JUMBE_CHANGED_AT} > l.jumbe_synced_at)`);

/** One batch of them as they are now, with their links. */
const changedContacts = (connection: HubspotConnection, ids: string[]) => withLinks(connection, sql`c.id = any(${sql.param(ids)}::uuid[])`);

/**
 * A previous attempt may have created some of these in HubSpot and stopped before storing the links:
 * they are found by their `jumbe_contact_id` and linked, not created twice.
 */
async function alreadyCreated(connection: HubspotConnection, rows: OutRow[]) {
  const page = await hubspotCall(connection, (client, token) =>
    client.searchContacts(token, {
      filterGroups: [{ filters: [{ propertyName: "jumbe_contact_id", operator: "IN", values: rows.map((r) => r.id) }] }],
      properties: ["jumbe_contact_id"],
      limit: 200,
    }),
  );
  return new Map(page.items.map((c) => [c.properties.jumbe_contact_id ?? "", c]));
}

/** One by one, after a batch met a 409: "Contact already exists. Existing ID: N" links to N. */
async function createOneByOne(connection: HubspotConnection, rows: OutRow[], skipped: string[]) {
  const links = [];
  for (const row of rows) {
    try {
      const created = await hubspotCall(connection, (client, token) => client.createContact(token, hubspotPropertiesOf(row, true)));
      if (created.kind === "created")
        links.push({
          contactId: row.id,
          hubspotId: created.contact.id,
          jumbeAt: iso(row.changed_at),
          hubspotAt: modifiedAt(created.contact),
        });
      // Linked to the existing contact, as never synced: the next pass sends Jumbe's values to it.
      else links.push({ contactId: row.id, hubspotId: created.existingId, jumbeAt: "epoch", hubspotAt: "epoch" });
    } catch (error) {
      if (!(error instanceof HubspotError) || error.kind !== "refused") throw error;
      skipped.push(row.id);
    }
  }
  return links;
}

const modifiedAt = (contact: HubspotContact) => iso(contact.properties.lastmodifieddate ?? contact.updatedAt);

/**
 * Sends every new or changed Jumbe contact to HubSpot, 100 a call: new ones created (a 409 links to
 * the existing contact), linked ones updated; each link stored with both sides' change marks.
 * Contacts HubSpot refuses (an invalid e-mail) are counted and tried again at the next sync.
 * Answers how many were sent and refused.
 */
export async function sendContacts(connection: HubspotConnection, options: { retrying: boolean }) {
  const skipped: string[] = [];
  let sent = 0;
  const pending = await changedContactRows(connection);
  // A contact linked by a 409 in this pass is sent again (Jumbe's values to the existing contact).
  const again: string[] = [];
  const sendBatch = async (rows: OutRow[]) => {
    const links = await sendRows(connection, rows, options, skipped);
    await saveLinks(connection, links);
    again.push(...links.filter((l) => l.jumbeAt === "epoch").map((l) => l.contactId));
    sent += links.filter((l) => l.jumbeAt !== "epoch").length;
  };
  // A few batches in flight, so one's database work overlaps another's call; the pacer keeps the rate.
  const batches: OutRow[][] = [];
  for (let at = 0; at < pending.length; at += OUT_BATCH) batches.push(pending.slice(at, at + OUT_BATCH));
  await Promise.all(
    Array.from({ length: Math.min(OUT_IN_FLIGHT, batches.length) }, async () => {
      for (let batch = batches.shift(); batch; batch = batches.shift()) await sendBatch(batch);
    }),
  );
  while (again.length) {
    const rows = await changedContacts(connection, again.splice(0, OUT_BATCH));
    if (rows.length) await sendBatch(rows);
  }
  return { sent, refused: skipped.length };
}

/** Batches of contacts sent at once by one sync. */
const OUT_IN_FLIGHT = 4;

/** One batch: new ones created (a 409 links), linked ones updated; answers the links to store. */
async function sendRows(connection: HubspotConnection, rows: OutRow[], options: { retrying: boolean }, skipped: string[]) {
  const fresh = rows.filter((r) => !r.hubspot_id);
  const linked = rows.filter((r) => r.hubspot_id);
  const links: Parameters<typeof saveLinks>[1] = [];
  if (fresh.length) {
    const found = options.retrying ? await alreadyCreated(connection, fresh) : new Map<string, HubspotContact>();
    for (const row of fresh) {
      const earlier = found.get(row.id);
      if (earlier) links.push({ contactId: row.id, hubspotId: earlier.id, jumbeAt: "epoch", hubspotAt: "epoch" });
    }
    const toCreate = fresh.filter((r) => !found.has(r.id));
    if (toCreate.length) {
      try {
        const created = await hubspotCall(connection, (client, token) =>
          client.batchCreateContacts(
            token,
            toCreate.map((r) => hubspotPropertiesOf(r, true)),
          ),
        );
        const byJumbeId = new Map(created.map((c) => [c.properties.jumbe_contact_id ?? "", c]));
        for (const row of toCreate) {
          const contact = byJumbeId.get(row.id);
          if (contact)
            links.push({ contactId: row.id, hubspotId: contact.id, jumbeAt: iso(row.changed_at), hubspotAt: modifiedAt(contact) });
        }
      } catch (error) {
        if (!(error instanceof HubspotError) || (error.kind !== "conflict" && error.kind !== "refused")) throw error;
        links.push(...(await createOneByOne(connection, toCreate, skipped)));
      }
    }
  }
  if (linked.length) links.push(...(await updateLinked(connection, linked, skipped)));
  return links;
}

async function updateLinked(connection: HubspotConnection, rows: OutRow[], skipped: string[]) {
  const inputs = rows.map((r) => ({ id: r.hubspot_id!, properties: hubspotPropertiesOf(r, false) }));
  try {
    const updated = await hubspotCall(connection, (client, token) => client.batchUpdateContacts(token, inputs));
    const byId = new Map(updated.map((c) => [c.id, c]));
    return rows.flatMap((row) => {
      const contact = byId.get(row.hubspot_id!);
      return contact ? [{ contactId: row.id, hubspotId: contact.id, jumbeAt: iso(row.changed_at), hubspotAt: modifiedAt(contact) }] : [];
    });
  } catch (error) {
    if (!(error instanceof HubspotError) || (error.kind !== "not_found" && error.kind !== "refused" && error.kind !== "conflict"))
      throw error;
  }
  // One of them was deleted in HubSpot (or refused): one by one; a deleted one loses its link and is created anew.
  const links = [];
  for (const row of rows) {
    try {
      const contact = await hubspotCall(connection, (client, token) =>
        client.updateContact(token, row.hubspot_id!, hubspotPropertiesOf(row, false)),
      );
      links.push({ contactId: row.id, hubspotId: contact.id, jumbeAt: iso(row.changed_at), hubspotAt: modifiedAt(contact) });
    } catch (error) {
      if (!(error instanceof HubspotError)) throw error;
      if (error.kind === "not_found")
        await db().execute(sql`delete from hubspot_contact_links where organization_id = ${connection.organizationId}
          and hub_id = ${connection.hubId} and contact_id = ${row.id}`);
      else if (error.kind === "refused" || error.kind === "conflict") skipped.push(row.id);
      else throw error;
    }
  }
  return links;
}
