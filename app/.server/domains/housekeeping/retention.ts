import { sql } from "drizzle-orm";
import { db } from "../../infrastructure/db/client";
import { countAffected, queryRows } from "../../infrastructure/db/query";
import { fileStorage } from "../../infrastructure/storage";
import { log } from "../../infrastructure/log";
import { recordActivity } from "../activity";
import { englishOf, words } from "../../infrastructure/words/said";

/**
 * Each organisation's retention (decision 165): message bodies and payloads, the media customers
 * sent, and logs (activity, webhook deliveries out) older than the organisation keeps them are
 * removed, in bounded set-based statements. Money documents (invoices, credit notes, wallet entries,
 * payments, M-Pesa receipts) are accounting records kept as the law asks: nothing here reads them.
 */
export const RETENTION_QUEUE = "retention";
/** Daily, once across all instances (a recurring job). */
export const RETENTION_EVERY_SECONDS = 24 * 60 * 60;

/** Rows a statement changes at most: each holds its locks briefly and sends go on beside it. */
const CHUNK = 5000;

export interface RetentionRemoved {
  bodies: number;
  media: number;
  logs: number;
}

/** Runs `chunk` (a statement answering the rows it changed) until it changes fewer than CHUNK rows; answers them all. */
async function inChunks(chunk: () => Promise<number>) {
  let total = 0;
  for (;;) {
    const n = await chunk();
    total += n;
    if (n < CHUNK) return total;
  }
}

/**
 * Message bodies past the retention lose their words: body emptied, payload (what Meta sent: text,
 * captions, media ids) cleared, body_expired_at set. The row stays: statuses, prices, the
 * conversation's order and the counts of analytics. A message still waiting to be sent is left alone.
 */
function expireBodies(organizationId: string, days: number) {
  return inChunks(() =>
    countAffected(
      db(),
      sql`
      update messages m set body = '', payload = null, body_expired_at = now()
      from (select id, created_at from messages
            where organization_id = ${organizationId} and body_expired_at is null
              and created_at < now() - make_interval(days => ${days})
              and not (direction = 'outbound' and accepted_at is null and failed_at is null)
            limit ${CHUNK}) expired
      where m.id = expired.id and m.created_at = expired.created_at`,
    ),
  );
}

/**
 * The files customers sent past the media retention, a chunk at a time: the objects first, through
 * the storage layer, then their rows (their messages' links are cleared by the foreign key). A store
 * that fails leaves the rows for the next run, never a row without its object's removal tried.
 */
async function deleteMedia(organizationId: string, days: number) {
  let total = 0;
  for (;;) {
    const rows = await queryRows<{ id: string; storage_key: string }>(
      db(),
      sql`select id, storage_key from media_files
          where organization_id = ${organizationId} and direction = 'inbound' and created_at < now() - make_interval(days => ${days})
          order by created_at limit ${CHUNK}`,
    );
    if (!rows.length) return total;
    for (const row of rows) await fileStorage().delete(row.storage_key);
    total += await countAffected(
      db(),
      sql`delete from media_files where organization_id = ${organizationId} and id = any(${sql.param(rows.map((row) => row.id))}::uuid[])`,
    );
    if (rows.length < CHUNK) return total;
  }
}

/**
 * Activity records and finished webhook deliveries out older than the log retention. Both tables are
 * partitioned by month, but an organisation's retention is its own rows of months every tenant shares:
 * deletes in chunks (the deliveries' keys go with them, by the table's statement trigger, decision 169).
 */
async function deleteLogs(organizationId: string, days: number) {
  const activity = await inChunks(() =>
    countAffected(
      db(),
      sql`
      delete from activity_logs where (id, created_at) in (
        select id, created_at from activity_logs
        where organization_id = ${organizationId} and created_at < now() - make_interval(days => ${days})
        limit ${CHUNK})`,
    ),
  );
  const deliveries = await inChunks(() =>
    countAffected(
      db(),
      sql`
      delete from webhook_deliveries where (id, created_at) in (
        select id, created_at from webhook_deliveries
        where organization_id = ${organizationId} and created_at < now() - make_interval(days => ${days}) and status <> 'pending'
        limit ${CHUNK})`,
    ),
  );
  return activity + deliveries;
}

/** One organisation's retention, now; what it removed is in its activity log (nothing removed, nothing written). */
export async function enforceRetention(organization: {
  id: string;
  messageDays: number;
  mediaDays: number;
  logDays: number;
}): Promise<RetentionRemoved> {
  const removed = {
    bodies: await expireBodies(organization.id, organization.messageDays),
    media: await deleteMedia(organization.id, organization.mediaDays),
    logs: await deleteLogs(organization.id, organization.logDays),
  };
  if (removed.bodies || removed.media || removed.logs)
    await recordActivity({
      organizationId: organization.id,
      type: "settings",
      status: "success",
      action: "Retention removed old data",
      details: englishOf(words("retention_activity_detail_removed", { ...removed })),
    });
  return removed;
}

/** Every organisation's retention, one after another. Answers the totals. */
export async function enforceAllRetention(): Promise<RetentionRemoved & { organisations: number }> {
  const organisations = await queryRows<{ id: string; messageDays: number; mediaDays: number; logDays: number }>(
    db(),
    sql`select id, message_retention_days as "messageDays", media_retention_days as "mediaDays", log_retention_days as "logDays"
        from organizations order by id`,
  );
  const total = { bodies: 0, media: 0, logs: 0, organisations: organisations.length };
  for (const organization of organisations) {
    const removed = await enforceRetention(organization);
    total.bodies += removed.bodies;
    total.media += removed.media;
    total.logs += removed.logs;
  }
  log().info(total, "retention");
  return total;
}
