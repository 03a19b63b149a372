import { sql } from "drizzle-orm";
import { db, type Executor } from "../../infrastructure/db/client";
import { recordActivity } from "../activity";
import { englishOf, words } from "../../infrastructure/words/said";
import type { RequestMeta } from "../../infrastructure/http/request-meta";
import { MAX_TAGS } from "./fields";
import { readContact, type Actor } from "./manage";
import { refuseContact } from "./refusals";
import { m } from "~/paraglide/messages";
import type { ContactView } from "./views";

const notFound = () => refuseContact(404, "contact_not_found", m.messaging_contact_id_not_found());

/**
 * Merges `otherId` into `survivorId`, in one transaction: the survivor keeps its own fields and
 * gains the other's tags (up to MAX_TAGS), the attributes it lacks, a missing phone, notes or
 * language; the other's messages, consent events and conversations move over; the other is removed.
 * The survivor's opt-in is then its latest consent event, whoever's it was.
 */
export async function mergeContacts(actor: Actor & { meta?: RequestMeta }, survivorId: string, otherId: string): Promise<ContactView> {
  if (survivorId === otherId) throw refuseContact(400, "contact_not_found", m.messaging_contact_merge_self());
  const merged = await db().transaction(async (tx) => {
    // Locked in id order, so two merges of the same pair cannot deadlock.
    const [first, second] = [survivorId, otherId].sort();
    const a = await readContact(tx, actor.organizationId, first!, true);
    const b = await readContact(tx, actor.organizationId, second!, true);
    if (!a || !b) throw notFound();
    const survivor = a.id === survivorId ? a : b;
    const other = a.id === survivorId ? b : a;
    await moveHistory(tx, actor.organizationId, survivor.id, other.id);
    await tx.execute(sql`delete from contacts where organization_id = ${actor.organizationId} and id = ${other.id}`);
    const tags = [...survivor.tags, ...other.tags.filter((t) => !survivor.tags.includes(t))].slice(0, MAX_TAGS);
    await tx.execute(sql`
      update contacts set
        tags = ${sql.param(tags)}::text[],
        attributes = ${JSON.stringify(other.attributes)}::jsonb || attributes,
        phone = coalesce(phone, ${other.phone}),
        wa_id = coalesce(wa_id, ${other.waId}),
        notes = case when notes is null then ${other.notes} when ${other.notes}::text is null then notes else notes || E'\n\n' || ${other.notes} end,
        language = coalesce(language, ${other.language}),
        last_seen_at = greatest(last_seen_at, ${other.lastSeenAt}::timestamptz),
        opt_in = coalesce((select status from consent_events where contact_id = ${survivor.id} order by created_at desc, id desc limit 1), opt_in),
        opt_in_changed_at = coalesce((select created_at from consent_events where contact_id = ${survivor.id} order by created_at desc, id desc limit 1), opt_in_changed_at),
        updated_at = now()
      where organization_id = ${actor.organizationId} and id = ${survivor.id}`);
    return { survivor: (await readContact(tx, actor.organizationId, survivor.id))!, other };
  });
  await recordActivity({
    organizationId: actor.organizationId,
    userId: actor.userId,
    type: "settings",
    status: "success",
    action: "Contacts merged",
    details: englishOf(words("app_activity_detail_contacts_merged", { other: merged.other.name, survivor: merged.survivor.name })),
    meta: actor.meta,
  });
  return merged.survivor;
}

/** The other's messages, consent events and conversations become the survivor's. */
async function moveHistory(tx: Executor, organizationId: string, survivorId: string, otherId: string) {
  await tx.execute(
    sql`update messages set contact_id = ${survivorId} where organization_id = ${organizationId} and contact_id = ${otherId}`,
  );
  await tx.execute(
    sql`update consent_events set contact_id = ${survivorId} where organization_id = ${organizationId} and contact_id = ${otherId}`,
  );
  // One conversation per business number and person: where both had one, the survivor's keeps the later times.
  await tx.execute(sql`
    update conversations s set
      last_inbound_at = greatest(s.last_inbound_at, o.last_inbound_at),
      last_message_at = greatest(s.last_message_at, o.last_message_at)
    from conversations o
    where s.organization_id = ${organizationId} and s.contact_id = ${survivorId} and o.contact_id = ${otherId} and o.phone_number_id = s.phone_number_id`);
  await tx.execute(sql`
    update conversations o set contact_id = ${survivorId}
    where o.organization_id = ${organizationId} and o.contact_id = ${otherId}
      and not exists (select 1 from conversations s where s.contact_id = ${survivorId} and s.phone_number_id = o.phone_number_id)`);
}
