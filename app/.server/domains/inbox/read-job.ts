import type { Job } from "../../infrastructure/jobs/queue";
import { log } from "../../infrastructure/log";
import { markInboundRead } from "../messaging";
import { latestUnreadInbound } from "./actions";
import { isRefusal } from "../../infrastructure/refusal";

export interface MarkReadPayload {
  organizationId: string;
  conversationId: string;
  /** Show the customer the typing indicator too (an agent is writing). */
  typing?: boolean;
}

/**
 * Marks a conversation's latest customer message read at Meta (which reads every earlier one), with
 * the typing indicator when asked. A number no longer connected is no fault of the moment: the job
 * ends with a line in the log. Graph's own failures are retried by the queue.
 */
export async function markConversationsRead(jobs: Job<MarkReadPayload>[]) {
  for (const job of jobs) {
    const { organizationId, conversationId, typing } = job.payload;
    const messageId = await latestUnreadInbound(organizationId, conversationId);
    if (!messageId) continue;
    try {
      await markInboundRead(organizationId, messageId, { typing: typing ?? false });
    } catch (error) {
      if (isRefusal(error, "send")) {
        log().info({ conversationId, reason: error.message }, "inbox: read receipt not sent");
        continue;
      }
      throw error;
    }
  }
}
