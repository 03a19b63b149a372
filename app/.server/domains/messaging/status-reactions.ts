import type { Executor } from "../../infrastructure/db/client";
import { processState } from "../../infrastructure/process-state";
import type { StatusChange } from "./statuses";

/**
 * What higher domains do when outbound messages' statuses move (SMS falls back from a WhatsApp
 * message Meta could not deliver, and a late "delivered" cancels it: decision 152). Messaging sits
 * below them and does not know them: the composition root registers each reaction by name
 * (composition/domain-events.ts), and each runs in the transaction that moved the statuses, under
 * the messages' row locks, so a reaction sees the status exactly as it was written.
 */
type Reaction = (tx: Executor, changes: StatusChange[]) => Promise<unknown>;
const reactions = processState("messaging.status-changes", () => new Map<string, Reaction>());

export function onMessageStatusChanges(name: string, reaction: Reaction) {
  reactions.set(name, reaction);
}

export async function announceStatusChanges(tx: Executor, changes: StatusChange[]) {
  if (!changes.length) return;
  for (const reaction of reactions.values()) await reaction(tx, changes);
}
