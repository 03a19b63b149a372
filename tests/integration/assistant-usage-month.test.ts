import { describe, expect, it } from "vitest";
import { addUsage, monthUsage } from "~/.server/domains/automations/assistant/usage";
import { openApiDocument } from "~/.server/adapters/api-v1/openapi";
import { inLocale } from "~/.server/infrastructure/http/display-zone";
import { m } from "~/paraglide/messages";
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

  // The words that say which month it is: the Billing page's card, the assistant's page and the API's
  // description said "since the 1st (UTC)" after the month became Nairobi's.
  it("tells its readers the month is Nairobi's: the Billing page, the assistant's page and the API, never UTC", async () => {
    for (const locale of ["en", "sw", "fr"] as const) {
      const said = await inLocale(locale, async () => [m.billing_assistant_description(), m.automations_assistant_usage_description()]);
      for (const text of said) {
        expect(text, locale).toContain("Nairobi");
        expect(text, locale).not.toContain("UTC");
      }
    }
    const document = openApiDocument() as {
      components: { schemas: Record<string, { properties: Record<string, { properties?: Record<string, { description?: string }> }> }> };
    };
    const month = document.components.schemas.AssistantSettings!.properties.usage!.properties!.month!.description!;
    expect(month).toContain("Nairobi");
    expect(month).not.toContain("UTC");
  });
});
