import { describe, expect, it, vi } from "vitest";

const resumed: string[] = [];
vi.mock("../domains/campaigns/wallet-resume", () => ({
  resumeWalletPausedCampaigns: async (organizationId: string) => {
    resumed.push(organizationId);
  },
}));

const { wireDomainEvents } = await import("./domain-events");
const { announceWalletCredited } = await import("../domains/billing/wallet-credited");

describe("the domain events' wiring", () => {
  it("has a credited wallet resume the campaigns paused for an empty wallet, once however often it is wired", async () => {
    await announceWalletCredited("org-before");
    expect(resumed).toEqual([]);

    wireDomainEvents();
    wireDomainEvents();
    await announceWalletCredited("org-1");
    expect(resumed).toEqual(["org-1"]);
  });
});
