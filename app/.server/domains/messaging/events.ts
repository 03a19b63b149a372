import { enqueueMessageEvents } from "../webhooks-out";
import type { StatusChange } from "./statuses";
import { logMessageEvents } from "./conversation-events";
import { chargeAccepted, settleFailed } from "../billing";
import { campaignMessagesFailed, figuresMoved } from "./campaign-figures";
import { announceStatusChanges } from "./status-reactions";
import type { Executor } from "../../infrastructure/db/client";

const EVENT_OF: Record<string, "message.delivered" | "message.read" | "message.failed" | undefined> = {
  delivered: "message.delivered",
  read: "message.read",
  failed: "message.failed",
};

/**
 * The tenant's webhook events for messages whose status moved (delivered, read, failed), the
 * inbox's ticks for those in a conversation, and their campaigns' figures marked out of date, in
 * the writer's transaction.
 */
export async function messageEventsFor(tx: Executor, changes: StatusChange[]) {
  await figuresMoved(
    tx,
    changes.map((c) => c.campaignId),
  );
  // A failure Meta reports after its campaign finished is told in the bell and the activity log.
  await campaignMessagesFailed(
    tx,
    changes.filter((c) => c.status === "failed").map((c) => c.campaignId),
  );
  // Billing follows the status: a message first seen accepted here (its answer was lost) is
  // charged; a failed one is released or refunded. Each is guarded, so repeats change nothing.
  await chargeAccepted(
    tx,
    changes.filter((c) => c.previous === "queued" && c.status !== "failed"),
  );
  await settleFailed(
    tx,
    changes.filter((c) => c.status === "failed"),
  );
  // Higher domains' reactions (an SMS fallback queued or cancelled, decision 152).
  await announceStatusChanges(tx, changes);
  await enqueueMessageEvents(
    tx,
    changes.flatMap((c) => {
      const type = EVENT_OF[c.status];
      return type ? [{ organizationId: c.organizationId, type, messageId: c.id }] : [];
    }),
  );
  // The inbox's change log last: its lock is held from here to the commit.
  await logMessageEvents(tx, "status", changes);
}

/** message.received for inbound messages just stored, in the writer's transaction. */
export async function receivedEventsFor(tx: Executor, messages: { id: string; organizationId: string }[]) {
  await enqueueMessageEvents(
    tx,
    messages.map((m) => ({ organizationId: m.organizationId, type: "message.received" as const, messageId: m.id })),
  );
}
