import { sql } from "drizzle-orm";
import type { Job } from "../../infrastructure/jobs/queue";
import { log } from "../../infrastructure/log";
import { parseEnvelope, type WebhookChange } from "./parse";
import { applyChanges, storeUnrouted } from "./route";
import { rows } from "./write";
import { gatheringInboxLog, writeInboxLog, type InboxLogEntry } from "../../domains/messaging/conversation-events";
import type { Executor } from "../../infrastructure/db/client";
import { isRace, isTransientFault } from "../../infrastructure/db/errors";
import { isDatabaseUnavailableError } from "../../infrastructure/db/availability";

/**
 * The webhook queue's job handler: turns stored deliveries into tenant data. Parsing lives in
 * parse.ts, routing to tenants in route.ts, the writes in write.ts.
 */

export { REFRESH_PHONE_QUEUE } from "./write";
export { replayUnroutedChanges, applyChanges } from "./route";
export { parseEnvelope, cleanJson, type WebhookChange } from "./parse";

/** The job handler of the webhook queue: each job points at a group of stored deliveries. */
export async function processWebhookJobs(jobs: Job<{ eventIds: number[] }>[], tx: Executor) {
  const ids = jobs.flatMap((job) => job.payload.eventIds ?? []).map(Number);
  if (!ids.length) return;
  const events = await rows<{ id: number | string; body: string }>(
    tx,
    sql`select id, body from webhook_events where id = any(${sql.param(ids)}::bigint[]) and processed_at is null order by id`,
  );
  const changes: WebhookChange[] = [];
  const invalid: number[] = [];
  for (const event of events) {
    const parsed = parseEnvelope(Number(event.id), event.body);
    if (parsed) changes.push(...parsed);
    else invalid.push(Number(event.id));
  }
  const { failed, inboxLog } = await applyIsolated(tx, changes);
  await tx.execute(sql`
    update webhook_events
    set processed_at = now(),
        outcome = case when id = any(${sql.param(invalid)}::bigint[]) then 'invalid'
                       when id = any(${sql.param(failed)}::bigint[]) then 'failed' else 'processed' end
    where id = any(${sql.param(ids)}::bigint[])`);
  // The inbox's change log last: its organisation's lock is then held from here to the commit only,
  // not through the batch's writes (every inbox write of the organisation waits for it).
  await writeInboxLog(tx, inboxLog);
  if (invalid.length) log().warn({ eventIds: invalid }, "webhook deliveries that are not WhatsApp envelopes were kept and skipped");
}

/**
 * Applies the changes of a job together, inside a savepoint; if that fails, applies them again one
 * delivery at a time, so one delivery the database refuses fails alone (returned, to be marked
 * failed) instead of parking the deliveries committed with it, which Meta will not send again.
 */
async function applyIsolated(tx: Executor, changes: WebhookChange[]): Promise<{ failed: number[]; inboxLog: InboxLogEntry[] }> {
  // The change-log entries of what was applied (not of what a savepoint rolled back).
  const inboxLog: InboxLogEntry[] = [];
  const apply = async (list: WebhookChange[]) => {
    const entries = await gatheringInboxLog(tx, async () => {
      const unrouted = await applyChanges(tx, list);
      if (unrouted.length) await storeUnrouted(tx, unrouted);
    });
    inboxLog.push(...entries);
  };
  for (let attempt = 1; ; attempt++) {
    try {
      await inSavepoint(tx, () => apply(changes));
      return { failed: [], inboxLog };
    } catch (error) {
      // A deadlock or a race with another batch (the same new customer inserted by both) passes: the
      // savepoint's rollback let go of every lock the batch took, so it is tried again whole. One by
      // one would hold each delivery's locks while taking the next one's, out of the batches' order.
      if (attempt < BATCH_ATTEMPTS && isRace(error)) {
        log().warn({ err: error, attempt }, "webhook batch met another transaction; trying it again");
        continue;
      }
      log().warn({ err: error }, "webhook batch failed; applying its deliveries one by one");
      break;
    }
  }
  const byEvent = new Map<number, WebhookChange[]>();
  for (const change of changes) byEvent.set(change.eventId, [...(byEvent.get(change.eventId) ?? []), change]);
  const failed: number[] = [];
  let lastError: unknown;
  for (const [eventId, list] of byEvent) {
    try {
      await inSavepoint(tx, () => apply(list));
    } catch (error) {
      // A fault of the moment says nothing about the delivery: the whole job is tried again later.
      // That includes a connection the driver dropped, which has no SQLSTATE (PgBouncer killed:
      // docs/fault-runs.md).
      if (isTransientFault(error) || isDatabaseUnavailableError(error)) throw error;
      failed.push(eventId);
      lastError = error;
      log().error({ eventId, err: error }, "webhook delivery could not be applied; kept and marked failed");
    }
  }
  // Every one failing is no bad delivery but a fault of the moment (database, conflict): retry the job.
  if (failed.length && failed.length === byEvent.size) throw lastError;
  return { failed, inboxLog };
}

/** Tries of a whole batch that met another transaction, before its deliveries go one by one. */
const BATCH_ATTEMPTS = 3;

/** Runs `work` so that its failure undoes only its own writes and leaves `tx` usable. */
async function inSavepoint(tx: Executor, work: () => Promise<void>) {
  await tx.execute(sql`savepoint webhook_apply`);
  try {
    await work();
  } catch (error) {
    await tx.execute(sql`rollback to savepoint webhook_apply`);
    await tx.execute(sql`release savepoint webhook_apply`);
    throw error;
  }
  await tx.execute(sql`release savepoint webhook_apply`);
}
