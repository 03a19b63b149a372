import type { Executor } from "../../infrastructure/db/client";
import type { Job } from "../../infrastructure/jobs/queue";
import { enqueueJob } from "../../infrastructure/jobs/queue";
import { log } from "../../infrastructure/log";
import { messageEventsFor } from "./events";
import { adoptLostAccepts, applyKeptStatusesFound } from "./statuses";

/**
 * Statuses that came before their send was settled, tried again (issue 77). Meta's status can arrive
 * while the dispatcher's settle (which writes the wamid) is not yet committed: the webhook batch then
 * finds no message for it, and the settle's own apply cannot see the batch's status (not committed
 * yet either). A message with later statuses is joined up by them, but one Meta only fails (131026,
 * "not on WhatsApp") has none: it stayed "sent" and its SMS fallback never came. The batch queues such
 * statuses here (only Jumbe's own sends: Meta echoes their id), and this job applies them once both
 * transactions have committed, trying a few times while a settle is slow.
 */
export const LATE_STATUSES_QUEUE = "messaging.late-statuses";
/** Tries, 2 s apart and doubling: the last about a minute after the status. */
export const LATE_STATUS_TRIES = 5;
const FIRST_WAIT_MS = 2000;

export interface EarlyStatus {
  organizationId: string;
  wamid: string;
  /** Jumbe's message id, echoed by Meta (biz_opaque_callback_data). */
  messageId: string;
  /** Its created_at (the key's other half, decision 183); null from a send older than the key in the callback data, absent in a job queued before it. */
  createdAt?: string | null;
}

/** In the webhook batch's transaction: the statuses no message had yet, kept for a later try. */
export async function queueLateStatuses(tx: Executor, statuses: EarlyStatus[], attempt = 1) {
  if (!statuses.length) return;
  await enqueueJob(LATE_STATUSES_QUEUE, { statuses, attempt }, { executor: tx, delayMs: FIRST_WAIT_MS * 2 ** (attempt - 1) });
}

/** The job: the answer adopted if it was lost, the kept statuses applied with their events; still early, once more. */
export async function runLateStatuses(jobs: Job<{ statuses: EarlyStatus[]; attempt: number }>[], tx: Executor) {
  for (const job of jobs) {
    const statuses = job.payload.statuses ?? [];
    await adoptLostAccepts(tx, statuses);
    const { changes, unmatched } = await applyKeptStatusesFound(tx, statuses);
    await messageEventsFor(tx, changes);
    const left = new Set(unmatched.map((p) => `${p.organizationId}|${p.wamid}`));
    const still = statuses.filter((s) => left.has(`${s.organizationId}|${s.wamid}`));
    if (!still.length) continue;
    const attempt = (job.payload.attempt ?? 1) + 1;
    if (attempt <= LATE_STATUS_TRIES) await queueLateStatuses(tx, still, attempt);
    else log().warn({ statuses: still.length }, "statuses whose message never took its wamid: left kept in message_statuses");
  }
}
