import { registerJobHandler } from "../../infrastructure/jobs/worker";
import { INBOX_MARK_READ_QUEUE } from "./actions";
import { markConversationsRead, type MarkReadPayload } from "./read-job";

/** The inbox's read receipts at Meta: a Graph call each, outside a transaction. */
export function registerInboxJobs() {
  registerJobHandler<MarkReadPayload>({
    queue: INBOX_MARK_READ_QUEUE,
    batchSize: 1,
    maxAttempts: 5,
    concurrency: 2,
    transactional: false,
    run: (jobs) => markConversationsRead(jobs),
  });
}
