import { describe, expect, it } from "vitest";
import { processState } from "../infrastructure/process-state";
import { wireDomainEvents } from "./domain-events";
import { announceWalletCredited, onWalletCredited } from "../domains/billing/wallet-credited";
import { resumeWalletPausedCampaigns } from "../domains/campaigns/wallet-resume";

// Billing's registry of reactions, as wallet-credited.ts keeps it (once per process).
const reactions = processState("billing.wallet-credited", () => new Map<string, (organizationId: string) => Promise<unknown>>());

describe("the domain events' wiring", () => {
  it("has a credited wallet resume the campaigns paused for an empty wallet, once however often it is wired", async () => {
    reactions.clear();
    wireDomainEvents();
    wireDomainEvents();
    expect([...reactions.entries()]).toEqual([["campaigns.resume-wallet-paused", resumeWalletPausedCampaigns]]);

    // Billing announces a credit to every reaction registered, each once.
    reactions.clear();
    const heard: string[] = [];
    onWalletCredited("test.listener", async (organizationId) => void heard.push(organizationId));
    onWalletCredited("test.listener", async (organizationId) => void heard.push(organizationId));
    await announceWalletCredited("org-1");
    expect(heard).toEqual(["org-1"]);
    reactions.clear();
    wireDomainEvents();
  });
});
