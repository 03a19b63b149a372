import { sql } from "drizzle-orm";
import { db, type Executor } from "../../../infrastructure/db/client";
import { queryRows } from "../../../infrastructure/db/query";
import type { HubspotContact } from "../../../infrastructure/clients/hubspot";
import { normalizePhone } from "~/lib/phone";
import { phoneHash } from "../../contacts";
import { hubspotCall, type HubspotConnection } from "./calls";
import { JUMBE_CHANGED_AT } from "./contacts-out";

const PULLED_PROPERTIES = [
  "firstname",
  "lastname",
  "email",
  "phone",
  "mobilephone",
  "hs_whatsapp_phone_number",
  "jumbe_contact_id",
  "lastmodifieddate",
];
const PAGE = 200;

interface LinkRow {
  hubspot_id: string;
  contact_id: string;
  jumbe_synced_at: Date | string;
  hubspot_modified_at: Date | string;
  changed_at: Date | string;
}

const ms = (value: Date | string) => new Date(value).getTime();
const modifiedMs = (contact: HubspotContact) => Date.parse(contact.properties.lastmodifieddate ?? contact.updatedAt);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The name HubSpot has for a contact, or null when it has none. */
function nameOf(contact: HubspotContact) {
  const name = [contact.properties.firstname, contact.properties.lastname].filter(Boolean).join(" ").replace(/\s+/g, " ").trim();
  return name ? name.slice(0, 120) : null;
}

/** The WhatsApp number HubSpot has for a contact, in E.164 (Kenya when it has no country code). */
function phoneOf(contact: HubspotContact) {
  for (const value of [contact.properties.hs_whatsapp_phone_number, contact.properties.mobilephone, contact.properties.phone]) {
    const phone = value ? normalizePhone(value, "KE") : null;
    if (phone) return phone;
  }
  return null;
}

/**
 * Which side wins when both changed since the last sync (decision 083): the later change; on a tie,
 * Jumbe. HubSpot's change is taken only when it is newer than what Jumbe last saw of it.
 */
export function hubspotWins(link: { jumbeSyncedAt: number; hubspotModifiedAt: number; jumbeChangedAt: number }, hubspotChangedAt: number) {
  if (hubspotChangedAt <= link.hubspotModifiedAt) return false;
  const jumbeChanged = link.jumbeChangedAt > link.jumbeSyncedAt;
  return !jumbeChanged || hubspotChangedAt > link.jumbeChangedAt;
}

/**
 * The page's linked contacts, one probe of the HubSpot-id index and one of the contact's key per
 * HubSpot contact (lateral subqueries with `limit 1`: PGlite keeps no statistics, and as a join the
 * planner read every link of the portal for each page, decision 091).
 */
async function linksOf(tx: Executor, connection: HubspotConnection, hubspotIds: string[]) {
  return queryRows<LinkRow>(
    tx,
    sql`
    select x.hubspot_id, l.contact_id, l.jumbe_synced_at, l.hubspot_modified_at, c.changed_at
    from unnest(${sql.param(hubspotIds)}::text[]) as x(hubspot_id)
    cross join lateral (
      select l.contact_id, l.jumbe_synced_at, l.hubspot_modified_at from hubspot_contact_links l
      where l.organization_id = ${connection.organizationId} and l.hub_id = ${connection.hubId} and l.hubspot_id = x.hubspot_id
      limit 1
    ) l
    cross join lateral (select ${JUMBE_CHANGED_AT} as changed_at from contacts c where c.id = l.contact_id limit 1) c`,
  );
}

/**
 * HubSpot's newer names (and e-mails) on their linked Jumbe contacts, in one statement: each link
 * then marks both sides as seen (Jumbe's change mark as the update left it, HubSpot's as read).
 */
async function takeHubspotValues(tx: Executor, connection: HubspotConnection, taken: { link: LinkRow; contact: HubspotContact }[]) {
  if (!taken.length) return;
  const rows = taken.map(({ link, contact }) => ({
    id: link.contact_id,
    name: nameOf(contact),
    email: contact.properties.email ?? null,
    m: new Date(modifiedMs(contact)).toISOString(),
  }));
  await tx.execute(sql`
    with x as (select * from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as x(id uuid, name text, email text, m timestamptz)),
    changed as (
      update contacts c set name = coalesce(x.name, c.name),
        attributes = case when x.email is null then c.attributes else c.attributes || jsonb_build_object('email', x.email) end,
        updated_at = now()
      from x
      where c.organization_id = ${connection.organizationId} and c.id = x.id
      returning c.id, ${JUMBE_CHANGED_AT} as changed_at, x.m)
    update hubspot_contact_links l set jumbe_synced_at = changed.changed_at, hubspot_modified_at = changed.m
    from changed
    where l.organization_id = ${connection.organizationId} and l.hub_id = ${connection.hubId} and l.contact_id = changed.id`);
}

/** Jumbe's change is the later one: only HubSpot's mark moves on, and the send that follows overwrites HubSpot. */
async function keepJumbeValues(tx: Executor, connection: HubspotConnection, kept: { link: LinkRow; contact: HubspotContact }[]) {
  if (!kept.length) return;
  const rows = kept.map(({ link, contact }) => ({ id: link.contact_id, m: new Date(modifiedMs(contact)).toISOString() }));
  await tx.execute(sql`
    update hubspot_contact_links l set hubspot_modified_at = x.m
    from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as x(id uuid, m timestamptz)
    where l.organization_id = ${connection.organizationId} and l.hub_id = ${connection.hubId} and l.contact_id = x.id`);
}

/**
 * HubSpot contacts Jumbe has no link for: each is linked to the Jumbe contact its
 * `jumbe_contact_id` names or that has its number, else made a Jumbe contact (consent unknown; an
 * erased number stays erased); one without a usable WhatsApp number stays in HubSpot only. A few
 * statements whatever the page's size. Answers how many were taken.
 */
async function takeNewContacts(tx: Executor, connection: HubspotConnection, found: HubspotContact[]) {
  if (!found.length) return 0;
  const org = connection.organizationId;
  const candidates = found.map((contact) => ({ contact, phone: phoneOf(contact), jumbeId: contact.properties.jumbe_contact_id ?? "" }));
  // By id (a key lookup), then by number (one probe of the organisation's number index each).
  const existing = await queryRows<{ id: string; phone: string | null; changed_at: Date | string }>(
    tx,
    sql`
    select c.id, c.phone, ${JUMBE_CHANGED_AT} as changed_at from contacts c
    where c.organization_id = ${org} and c.id = any(${sql.param(candidates.map((c) => c.jumbeId).filter((id) => UUID.test(id)))}::uuid[])
    union
    select c.id, c.phone, c.changed_at
    from unnest(${sql.param(candidates.flatMap((c) => (c.phone ? [c.phone] : [])))}::text[]) as x(phone)
    cross join lateral (
      select c.id, c.phone, ${JUMBE_CHANGED_AT} as changed_at from contacts c where c.organization_id = ${org} and c.phone = x.phone limit 1
    ) c`,
  );
  const byId = new Map(existing.map((row) => [row.id, row]));
  const byPhone = new Map(existing.filter((row) => row.phone).map((row) => [row.phone!, row]));
  const links: { contactId: string; hubspotId: string; jumbeAt: string; hubspotAt: string }[] = [];
  const fresh = new Map<string, { contact: HubspotContact; phone: string }>();
  for (const { contact, phone, jumbeId } of candidates) {
    const match = byId.get(jumbeId) ?? (phone ? byPhone.get(phone) : undefined);
    const hubspotAt = new Date(modifiedMs(contact)).toISOString();
    if (match) links.push({ contactId: match.id, hubspotId: contact.id, jumbeAt: new Date(match.changed_at).toISOString(), hubspotAt });
    else if (phone && !fresh.has(phone)) fresh.set(phone, { contact, phone });
  }
  if (fresh.size) {
    const erased = new Set(
      (
        await queryRows<{ phone_hash: string }>(
          tx,
          sql`select phone_hash from contact_tombstones where organization_id = ${org}
              and phone_hash = any(${sql.param([...fresh.keys()].map((phone) => phoneHash(org, phone)))}::text[])`,
        )
      ).map((row) => row.phone_hash),
    );
    const added = [...fresh.values()].filter(({ phone }) => !erased.has(phoneHash(org, phone)));
    const inserted = await queryRows<{ id: string; phone: string; changed_at: Date | string }>(
      tx,
      sql`
      insert into contacts as c (organization_id, name, phone, wa_id, attributes)
      select ${org}, x.name, x.phone, substr(x.phone, 2),
             case when x.email = '' then '{}'::jsonb else jsonb_build_object('email', x.email) end
      from unnest(${sql.param(added.map(({ contact, phone }) => nameOf(contact) ?? phone))}::text[],
                  ${sql.param(added.map(({ phone }) => phone))}::text[],
                  ${sql.param(added.map(({ contact }) => contact.properties.email ?? ""))}::text[]) as x(name, phone, email)
      on conflict (organization_id, wa_id) where wa_id is not null do nothing
      returning c.id, c.phone, ${JUMBE_CHANGED_AT} as changed_at`,
    );
    for (const row of inserted) {
      const { contact } = fresh.get(row.phone)!;
      links.push({
        contactId: row.id,
        hubspotId: contact.id,
        jumbeAt: new Date(row.changed_at).toISOString(),
        hubspotAt: new Date(modifiedMs(contact)).toISOString(),
      });
    }
  }
  if (links.length)
    await tx.execute(sql`
      insert into hubspot_contact_links (organization_id, hub_id, contact_id, hubspot_id, jumbe_synced_at, hubspot_modified_at)
      select ${org}, ${connection.hubId}, x.c, x.h, x.j::timestamptz, x.m::timestamptz
      from unnest(${sql.param(links.map((l) => l.contactId))}::uuid[], ${sql.param(links.map((l) => l.hubspotId))}::text[],
                  ${sql.param(links.map((l) => l.jumbeAt))}::text[], ${sql.param(links.map((l) => l.hubspotAt))}::text[]) as x(c, h, j, m)
      on conflict do nothing`);
  return links.length;
}

/**
 * One page of HubSpot's changes taken, in one transaction of a few statements whatever its size:
 * its new contacts, and its linked ones by the conflict rule (HubSpot's values taken, or only its
 * mark moved on).
 */
async function takePage(connection: HubspotConnection, items: HubspotContact[]) {
  if (!items.length) return 0;
  return db().transaction(async (tx) => {
    const links = await linksOf(
      tx,
      connection,
      items.map((c) => c.id),
    );
    const byHubspotId = new Map(links.map((l) => [l.hubspot_id, l]));
    let received = await takeNewContacts(
      tx,
      connection,
      items.filter((contact) => !byHubspotId.has(contact.id)),
    );
    const taken: { link: LinkRow; contact: HubspotContact }[] = [];
    const kept: { link: LinkRow; contact: HubspotContact }[] = [];
    for (const contact of items) {
      const link = byHubspotId.get(contact.id);
      if (!link) continue;
      const changed = modifiedMs(contact);
      const marks = {
        jumbeSyncedAt: ms(link.jumbe_synced_at),
        hubspotModifiedAt: ms(link.hubspot_modified_at),
        jumbeChangedAt: ms(link.changed_at),
      };
      if (changed <= marks.hubspotModifiedAt) continue;
      (hubspotWins(marks, changed) ? taken : kept).push({ link, contact });
    }
    await takeHubspotValues(tx, connection, taken);
    await keepJumbeValues(tx, connection, kept);
    received += taken.length;
    return received;
  });
}

/**
 * Takes HubSpot's changes since the cursor (its contacts by lastmodifieddate, oldest first): linked
 * contacts by the conflict rule, new ones with a WhatsApp number as Jumbe contacts. Answers how many
 * were taken and the new cursor (HubSpot's last change seen, in milliseconds).
 *
 * Pipelined (decision 089): the next page's call goes out (through the pacer, which keeps the rate)
 * as soon as a page arrives, while that page's database work runs, so neither waits for the other.
 * Taking a page changes nothing HubSpot's search answers, so the pages are the ones a sequential
 * pull reads; they are still taken one after another, in order.
 */
export async function receiveContacts(connection: HubspotConnection) {
  const since = Number(connection.syncState.hubspotCursor ?? 0) || 0;
  let cursor = since;
  let received = 0;
  const fetchPage = (after: string | undefined) =>
    hubspotCall(connection, (client, token) =>
      client.searchContacts(token, {
        filterGroups: [{ filters: [{ propertyName: "lastmodifieddate", operator: "GTE", value: String(since) }] }],
        sorts: [{ propertyName: "lastmodifieddate", direction: "ASCENDING" }],
        properties: PULLED_PROPERTIES,
        limit: PAGE,
        ...(after ? { after } : {}),
      }),
    );
  let next: ReturnType<typeof fetchPage> | null = fetchPage(undefined);
  while (next) {
    const page: Awaited<ReturnType<typeof fetchPage>> = await next;
    next = page.after ? fetchPage(page.after) : null;
    try {
      received += await takePage(connection, page.items);
    } catch (error) {
      // The page fetched ahead is not wanted any more: its failure, if any, is not this one's.
      next?.catch(() => {});
      throw error;
    }
    for (const contact of page.items) {
      const changed = modifiedMs(contact);
      if (Number.isFinite(changed)) cursor = Math.max(cursor, changed);
    }
  }
  return { received, cursor };
}
