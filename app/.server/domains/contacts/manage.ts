import { createHmac } from "node:crypto";
import { sql } from "drizzle-orm";
import { db, rawQuery, type Executor } from "../../infrastructure/db/client";
import { queryRow, queryRows } from "../../infrastructure/db/query";
import { env } from "../../infrastructure/config/env";
import { attributeDefinitions, checkAttributes } from "./attributes";
import { recordConsent, type ConsentSource, type ConsentStatus } from "./consent";
import { contactName, contactPhone, contactTags, NOTES_MAX } from "./fields";
import { refuseContact } from "./refusals";
import { contactView, type ContactRow, type ContactView } from "./views";
import type { ContactFilter } from "~/lib/contact-filter";
import { m } from "~/paraglide/messages";
import { enqueueContactsCreated } from "../webhooks-out";

/** What a caller may set on a contact; anything left out stays as it is. */
export interface ContactChanges {
  name?: string;
  phone?: string;
  tags?: string[];
  attributes?: Record<string, unknown>;
  notes?: string | null;
  language?: "en" | "sw" | null;
}

export interface Actor {
  organizationId: string;
  userId?: string | null;
}

/** The tombstone key of an erased number: keyed, so the table names nobody to whoever reads it. */
export function phoneHash(organizationId: string, e164: string) {
  return createHmac("sha256", env().ENCRYPTION_KEY).update(`${organizationId}|${e164}`).digest("base64url");
}

async function isErased(executor: Executor, organizationId: string, e164: string) {
  const rows = await queryRows<unknown>(
    executor,
    sql`select 1 from contact_tombstones where organization_id = ${organizationId} and phone_hash = ${phoneHash(organizationId, e164)}`,
  );
  return rows.length > 0;
}

/** The fields as stored: each checked, attributes against the tenant's definitions. */
async function checked(organizationId: string, changes: ContactChanges) {
  const notes = changes.notes === undefined ? undefined : (changes.notes ?? "").trim() || null;
  if (notes && notes.length > NOTES_MAX)
    throw refuseContact(422, "invalid_name", m.messaging_contact_notes_too_long({ max: NOTES_MAX }), "notes");
  const attributes =
    changes.attributes === undefined ? undefined : checkAttributes(await attributeDefinitions(organizationId), changes.attributes);
  return {
    name: changes.name === undefined ? undefined : contactName(changes.name),
    phone: changes.phone === undefined ? undefined : contactPhone(changes.phone),
    tags: changes.tags === undefined ? undefined : contactTags(changes.tags),
    attributes,
    notes,
    language: changes.language,
  };
}

const isUniquePhone = (error: unknown) =>
  (error as { code?: string; cause?: { code?: string; constraint?: string } })?.cause?.code === "23505" ||
  (error as { code?: string })?.code === "23505";

/**
 * A new contact, or the one with that phone updated (`upsert`): one contact per phone per tenant.
 * An erased number comes back only with fresh consent (`consent.status` opted_in).
 */
export async function saveContact(
  actor: Actor,
  changes: ContactChanges & { name: string; phone: string },
  options: { upsert?: boolean; consent?: { status: ConsentStatus; source: ConsentSource; evidence?: string } } = {},
): Promise<{ contact: ContactView; created: boolean }> {
  const fields = await checked(actor.organizationId, changes);
  const phone = fields.phone!;
  try {
    return await db().transaction(async (tx) => {
      const [existing] = await queryRows<{ id: string }>(
        tx,
        sql`select id from contacts where organization_id = ${actor.organizationId} and phone = ${phone} for update`,
      );
      if (existing && !options.upsert) throw refuseContact(409, "duplicate_phone", m.messaging_contact_duplicate_phone({ phone }));
      let id = existing?.id;
      let created = false;
      if (!id) {
        if (options.consent?.status !== "opted_in" && (await isErased(tx, actor.organizationId, phone)))
          throw refuseContact(409, "erased_contact", m.messaging_contact_erased_phone({ phone }));
        const inserted = (await queryRow<{ id: string; inserted: boolean }>(
          tx,
          sql`
            insert into contacts (organization_id, name, phone, wa_id, tags, attributes, notes, language)
            values (${actor.organizationId}, ${fields.name!}, ${phone}, ${phone.slice(1)}, ${sql.param(fields.tags ?? [])}::text[],
                    ${JSON.stringify(fields.attributes?.set ?? {})}::jsonb, ${fields.notes ?? null}, ${fields.language ?? null})
            on conflict (organization_id, wa_id) where wa_id is not null do update set phone = excluded.phone
            returning id, (xmax = 0) as inserted`,
        ))!;
        id = inserted.id;
        created = inserted.inserted;
        if (created)
          await enqueueContactsCreated(tx, [{ organizationId: actor.organizationId, id, name: fields.name!, phone, waId: phone.slice(1) }]);
        if (!created) await applyChanges(tx, actor.organizationId, id, fields);
      } else await applyChanges(tx, actor.organizationId, id, fields);
      if (options.consent)
        await recordConsent(tx, [
          {
            organizationId: actor.organizationId,
            contactId: id,
            status: options.consent.status,
            source: options.consent.source,
            evidence: options.consent.evidence ?? "",
            recordedBy: actor.userId ?? null,
          },
        ]);
      return { contact: (await readContact(tx, actor.organizationId, id))!, created };
    });
  } catch (error) {
    // Two requests for one new number at once: the second is the first's update.
    if (isUniquePhone(error) && options.upsert) return saveContact(actor, changes, options);
    if (isUniquePhone(error)) throw refuseContact(409, "duplicate_phone", m.messaging_contact_duplicate_phone_short({ phone }));
    throw error;
  }
}

async function applyChanges(tx: Executor, organizationId: string, id: string, fields: Awaited<ReturnType<typeof checked>>) {
  const attributes = fields.attributes;
  await tx.execute(sql`
    update contacts set
      name = coalesce(${fields.name ?? null}, name),
      phone = coalesce(${fields.phone ?? null}, phone),
      wa_id = coalesce(${fields.phone?.slice(1) ?? null}, wa_id),
      tags = coalesce(${fields.tags === undefined ? null : sql.param(fields.tags)}::text[], tags),
      attributes = case when ${attributes === undefined} then attributes
                        else (attributes - ${sql.param(attributes?.remove ?? [])}::text[]) || ${JSON.stringify(attributes?.set ?? {})}::jsonb end,
      notes = case when ${fields.notes === undefined} then notes else ${fields.notes ?? null} end,
      language = case when ${fields.language === undefined} then language else ${fields.language ?? null} end,
      updated_at = now()
    where organization_id = ${organizationId} and id = ${id}`);
}

/** Changes a contact; another tenant's id, or none, is contact_not_found. */
export async function updateContact(actor: Actor, id: string, changes: ContactChanges): Promise<ContactView> {
  const fields = await checked(actor.organizationId, changes);
  try {
    return await db().transaction(async (tx) => {
      const found = await readContact(tx, actor.organizationId, id, true);
      if (!found) throw notFound();
      await applyChanges(tx, actor.organizationId, id, fields);
      return (await readContact(tx, actor.organizationId, id))!;
    });
  } catch (error) {
    if (isUniquePhone(error))
      throw refuseContact(409, "duplicate_phone", m.messaging_contact_duplicate_phone_other({ phone: String(fields.phone) }));
    throw error;
  }
}

const notFound = () => refuseContact(404, "contact_not_found", m.messaging_contact_id_not_found());

export async function readContact(executor: Executor, organizationId: string, id: string, lock = false): Promise<ContactView | null> {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) return null;
  const rows = await queryRows<ContactRow>(
    executor,
    sql`select * from contacts where organization_id = ${organizationId} and id = ${id} ${lock ? sql`for update` : sql``}`,
  );
  return rows[0] ? contactView(rows[0]) : null;
}

export async function getContact(organizationId: string, id: string): Promise<ContactView> {
  const contact = await readContact(db(), organizationId, id);
  if (!contact) throw notFound();
  return contact;
}

/** Records a consent event for one contact (the ledger's entry and the contact's state). */
export async function setConsent(
  actor: Actor,
  id: string,
  consent: { status: ConsentStatus; source: ConsentSource; evidence?: string },
): Promise<ContactView> {
  return db().transaction(async (tx) => {
    if (!(await readContact(tx, actor.organizationId, id, true))) throw notFound();
    await recordConsent(tx, [
      {
        organizationId: actor.organizationId,
        contactId: id,
        status: consent.status,
        source: consent.source,
        evidence: consent.evidence ?? "",
        recordedBy: actor.userId ?? null,
      },
    ]);
    return (await readContact(tx, actor.organizationId, id))!;
  });
}

/** Deletes a contact (their messages stay, no longer linked). Answers whether there was one. */
export async function deleteContact(actor: Actor, id: string) {
  if (!/^[0-9a-f-]{36}$/i.test(id)) throw notFound();
  const rows = await rawQuery(`delete from contacts where organization_id = $1 and id = $2 returning id`, [actor.organizationId, id]);
  if (!rows.length) throw notFound();
}

export type { ContactFilter } from "~/lib/contact-filter";

/** The filter as SQL conditions on `c` (contacts). */
export function contactConditions(organizationId: string, filter: ContactFilter) {
  const parts = [sql`c.organization_id = ${organizationId}`];
  const search = filter.search?.trim();
  if (search) {
    const digits = search.replace(/[^\d]/g, "");
    // The name, the number or an attribute's value, all in search_text (one trigram index). A number
    // in any form ("0712 345 678") also finds its E.164 digits.
    const byPhone = digits.length >= 3 ? sql` or c.search_text like ${`%${digits.replace(/^0/, "")}%`}` : sql``;
    // lower() on both sides: the database's, not JavaScript's, so a collation's rules agree.
    parts.push(sql`(c.search_text like lower(${`%${escapeLike(search)}%`})${byPhone})`);
  }
  if (filter.tag) parts.push(sql`c.tags @> array[${filter.tag.trim().toLowerCase()}]::text[]`);
  if (filter.optIn) parts.push(sql`c.opt_in = ${filter.optIn}`);
  if (filter.seenSince) parts.push(sql`c.last_seen_at >= ${filter.seenSince.toISOString()}::timestamptz`);
  if (filter.neverSeen) parts.push(sql`c.last_seen_at is null`);
  if (filter.language) parts.push(sql`c.language = ${filter.language}`);
  // Came from an ad (decision 154): any, or the people one ad brought (first touch or later).
  if (filter.ad === "any") parts.push(sql`c.first_ad_referral_id is not null`);
  else if (filter.ad)
    parts.push(
      sql`c.id in (select r.contact_id from ad_referrals r where r.organization_id = ${organizationId} and r.source_id = ${filter.ad})`,
    );
  return sql.join(parts, sql` and `);
}

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** One page of contacts, newest first, after `cursor` (keyset: created_at, id). */
export async function listContacts(
  organizationId: string,
  filter: ContactFilter,
  page: { limit: number; cursor?: { at: string; id: string } },
) {
  const after = page.cursor ? sql` and (c.created_at, c.id) < (${page.cursor.at}::timestamptz, ${page.cursor.id}::uuid)` : sql``;
  const rows = await queryRows<ContactRow & { cursor_at: string }>(
    db(),
    sql`
      select c.*, c.created_at::text as cursor_at from contacts c
      where ${contactConditions(organizationId, filter)}${after}
      order by c.created_at desc nulls last, c.id desc nulls last
      limit ${page.limit + 1}`,
  );
  const more = rows.length > page.limit;
  const shown = rows.slice(0, page.limit);
  const last = shown.at(-1);
  return { contacts: shown.map(contactView), next: more && last ? { at: last.cursor_at, id: last.id } : null };
}
