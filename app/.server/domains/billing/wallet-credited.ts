import { processState } from "../../infrastructure/process-state";

/**
 * What other domains do when money reaches a wallet (campaigns paused for an empty wallet resume).
 * Billing sits below them and does not know them: the composition root registers each reaction by
 * name (composition/domain-events.ts), once per process, and billing announces the credit after it
 * commits.
 */
type Reaction = (organizationId: string) => Promise<unknown>;
const reactions = processState("billing.wallet-credited", () => new Map<string, Reaction>());

export function onWalletCredited(name: string, reaction: Reaction) {
  reactions.set(name, reaction);
}

export async function announceWalletCredited(organizationId: string) {
  for (const reaction of reactions.values()) await reaction(organizationId);
}
