import { sql } from "drizzle-orm";
import { db } from "../../infrastructure/db/client";
import { queryRows } from "../../infrastructure/db/query";
import { recordActivity } from "../activity";
import { englishOf, words } from "../../infrastructure/words/said";
import type { RequestMeta } from "../../infrastructure/http/request-meta";
import { fileStorage } from "../../infrastructure/storage";
import { log } from "../../infrastructure/log";
import type { Executor } from "../../infrastructure/db/client";
import { processState } from "../../infrastructure/process-state";
import { phoneHash, readContact, type Actor } from "./manage";
import { refuseContact } from "./refusals";
import { m } from "~/paraglide/messages";

const notFound = () => refuseContact(404, "contact_not_found", m.messaging_contact_id_not_found());
/** A subject access export holds at most this many messages (a person's whole history in practice). */
export const EXPORT_MESSAGES_MAX = 100_000;

/**
 * Everything held about one person (DPA 2019 s.26): their profile, their consent ledger and their
 * messages, as one JSON document. Recorded in the activity log (by id: the log names nobody).
 */
export async function contactDataExport(actor: Actor & { meta?: RequestMeta }, id: string) {
  const contact = await readContact(db(), actor.organizationId, id);
  if (!contact) throw notFound();
  const consent = await queryRows<unknown>(
    db(),
    sql`
      select status, source, evidence, created_at as "recordedAt" from consent_events
      where organization_id = ${actor.organizationId} and contact_id = ${id} order by created_at, id`,
  );
  const messages = await queryRows<unknown>(
    db(),
    sql`
      select id, direction, status, message_type as "type", body, payload, coalesce(sent_at, created_at) as "at",
             delivered_at as "deliveredAt", read_at as "readAt", failed_at as "failedAt"
      from messages where organization_id = ${actor.organizationId} and contact_id = ${id}
      order by created_at, seq limit ${EXPORT_MESSAGES_MAX}`,
  );
  await recordActivity({
    organizationId: actor.organizationId,
    userId: actor.userId,
    type: "security",
    status: "success",
    action: "Contact data downloaded",
    details: englishOf(words("app_activity_detail_contact_data_downloaded", { id })),
    meta: actor.meta,
  });
  return {
    exportedAt: new Date().toISOString(),
    law: "Kenya Data Protection Act 2019, section 26: the right of access",
    profile: contact,
    consent,
    messages,
  };
}

/** The right of access as a file to download: the document above, and its name. */
export async function contactDataFile(actor: Actor & { meta?: RequestMeta }, id: string) {
  const document = await contactDataExport(actor, id);
  return { fileName: `contact-${id}.json`, body: JSON.stringify(document, null, 2) };
}

/**
 * A copy of the person that Jumbe put in a connected tool (HubSpot, Google Sheets…), as an erasure
 * reaches it: `removing` when a queued job takes it out there, `by_hand` when the tool cannot and
 * the business must (issue 74).
 */
export interface ErasedCopy {
  tool: string;
  where: string;
  outcome: "removing" | "by_hand";
}

/**
 * What other domains do when a person is erased: the integrations queue the removal of their copies
 * in connected tools. Contacts sit below them and do not know them: the composition root registers
 * each reaction by name (composition/domain-events.ts); it runs in the erasure's transaction, before
 * the contact is gone, so the job exists exactly when the erasure does.
 */
type ErasureReaction = (tx: Executor, erased: { organizationId: string; contactId: string }) => Promise<ErasedCopy[]>;
const erasureReactions = processState("contacts.erasing", () => new Map<string, ErasureReaction>());

export function onContactErasing(name: string, reaction: ErasureReaction) {
  erasureReactions.set(name, reaction);
}

/**
 * Erases a person (DPA 2019 s.40), in one transaction: their messages stay as rows (the counts and
 * bills are the business's) with every personal part blanked (text, Meta's payload, numbers, wamids,
 * media); their consent events and conversations go with the contact; a tombstone keyed by a hash of
 * the number keeps a later import from adding them again without fresh consent.
 */
export async function eraseContact(actor: Actor & { meta?: RequestMeta }, id: string): Promise<ErasedCopy[]> {
  const { mediaKeys, copies } = await db().transaction(async (tx) => {
    const contact = await readContact(tx, actor.organizationId, id, true);
    if (!contact) throw notFound();
    const copies: ErasedCopy[] = [];
    for (const reaction of erasureReactions.values())
      copies.push(...(await reaction(tx, { organizationId: actor.organizationId, contactId: id })));
    const numbers = [...new Set([contact.phone, contact.waId ? `+${contact.waId}` : null].filter((n): n is string => !!n))];
    for (const number of numbers)
      await tx.execute(sql`insert into contact_tombstones (organization_id, phone_hash) values (${actor.organizationId}, ${phoneHash(actor.organizationId, number)})
        on conflict do nothing`);
    const digits = numbers.map((n) => n.slice(1));
    // Messages sent to the number before it was a contact are theirs too.
    const theirs = sql`organization_id = ${actor.organizationId} and (contact_id = ${id} or recipient_phone = any(${sql.param(numbers)}::text[]) or recipient_wa_id = any(${sql.param(digits)}::text[]))`;
    const media = await queryRows<{ storage_key: string }>(
      tx,
      sql`delete from media_files where organization_id = ${actor.organizationId} and direction = 'inbound'
        and id in (select media_file_id from messages where ${theirs} and media_file_id is not null) returning storage_key`,
    );
    // Nothing more goes to them: messages not yet sent are withdrawn, and campaigns leave them out.
    await tx.execute(sql`delete from messages where ${theirs} and direction = 'outbound' and accepted_at is null and failed_at is null
        and (locked_until is null or locked_until < now())`);
    await tx.execute(sql`
      update campaign_recipients set phone = null, contact_id = null,
             state = case when state = 'pending' or (state = 'queued' and not exists (select 1 from messages m where m.id = message_id)) then 'left_out' else state end,
             reason = case when state = 'pending' or (state = 'queued' and not exists (select 1 from messages m where m.id = message_id)) then 'erased' else reason end
      where organization_id = ${actor.organizationId} and (contact_id = ${id} or phone = any(${sql.param(numbers)}::text[]))`);
    await tx.execute(sql`update messages set contact_id = null, body = '', payload = null, recipient_phone = null, recipient_wa_id = null,
        wamid = null, context_wamid = null, error_details = null, media_file_id = null where ${theirs}`);
    await tx.execute(sql`delete from contacts where organization_id = ${actor.organizationId} and id = ${id}`);
    return { mediaKeys: media.map((m) => m.storage_key), copies };
  });
  for (const key of mediaKeys)
    await fileStorage()
      .delete(key)
      .catch((error) => log().warn({ error }, "an erased contact's media file was not deleted"));
  await recordActivity({
    organizationId: actor.organizationId,
    userId: actor.userId,
    type: "security",
    status: "success",
    action: "Contact erased",
    details: englishOf(words("app_activity_detail_contact_erased", { id })),
    meta: actor.meta,
  });
  return copies;
}
