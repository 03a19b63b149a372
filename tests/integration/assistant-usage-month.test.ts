import { describe, expect, it } from "vitest";
import { addUsage, monthUsage } from "~/.server/domains/automations/assistant/usage";
import { createVerifiedUser } from "../support/accounts";

// Issue 72: one definition of a month, Nairobi's. The assistant's monthly usage (and its cap) counts
// the Africa/Nairobi calendar month, as billing and the partner programme do: 21:30 UTC on
// 30 November is 00:30 on 1 December in Nairobi, December's.

describe("the assistant's monthly usage", () => {
  it("counts a reply at 00:30 on 1 December in Nairobi (21:30 UTC on 30 November) in December", async () => {
    const { organization } = await createVerifiedUser({ businessName: "Nanyuki Outfitters" });
    await addUsage(organization.id, new Date("2026-11-30T20:59:00Z"), { promptTokens: 100, replies: 1, costMicrocents: 1_000_000 });
    await addUsage(organization.id, new Date("2026-11-30T21:30:00Z"), { promptTokens: 40, replies: 1, costMicrocents: 3_000_000 });

    const december = await monthUsage(organization.id, new Date("2026-12-01T09:00:00Z"));
    expect(december).toMatchObject({ month: "2026-12-01", promptTokens: 40, replies: 1, costCents: 3 });
    // 23:59 on 30 November in Nairobi is still November.
    const november = await monthUsage(organization.id, new Date("2026-11-30T20:59:59Z"));
    expect(november).toMatchObject({ month: "2026-11-01", promptTokens: 100, replies: 1, costCents: 1 });
    // The same instant read at the boundary: December already.
    expect((await monthUsage(organization.id, new Date("2026-11-30T21:30:00Z"))).month).toBe("2026-12-01");
  });
});
