import { describe, expect, it } from "vitest";
import { createRule, getRule, updateRule } from "~/.server/domains/automations/rules";
import { saveAutomationSettings } from "~/.server/domains/automations/settings";
import { isRefusal } from "~/.server/infrastructure/refusal";
import type { InboundAd } from "@jumbe/sandbox/meta/types";
import { loader as ruleLoader } from "~/routes/app/automations/rule";
import { getRequest, run } from "../support/http";
import { createVerifiedUser, signedInCookie } from "../support/accounts";
import { metaSandboxForFile } from "../support/meta-harness";
import { inboundCount, outbound, runs, until } from "../support/automation-harness";

// Issue 77: a rule may answer only the message a customer sends from a Click-to-WhatsApp ad (any ad,
// or one by its id), with no keywords (every message from it): the ad's customers are welcomed with
// the ad's own reply. Another ad's message, or one from no ad, is answered as before (the welcome).

const meta = metaSandboxForFile();

async function tenant(name: string) {
  const user = await createVerifiedUser({ businessName: name });
  const actor = { organizationId: user.organization.id, userId: user.user.id };
  return { ...actor, actor, email: user.email, password: user.password, ...(await meta.graph.connect(user.organization.id, name)) };
}

const MAJI: InboundAd = { sourceId: "120226305854810726", headline: "Maji safi kwa nyumba yako", body: "Bei ya leo." };
const TANKI: InboundAd = { sourceId: "120226305854810999", headline: "Tanki la lita 1000", body: "Tanki bora." };

type Tenant = Awaited<ReturnType<typeof tenant>>;

async function writes(t: Tenant, from: string, text: string, ad?: InboundAd) {
  const before = await inboundCount(t.organizationId);
  await meta.sandbox.sendInbound({ phoneNumberId: t.phoneNumberId, from, name: "Achieng Otieno", text, ...(ad ? { ad } : {}) });
  await until(
    () => inboundCount(t.organizationId),
    (n) => n === before + 1,
  );
}

const allOpen = { 0: [], 1: [], 2: [], 3: [], 4: [], 5: [], 6: [] } as Record<0 | 1 | 2 | 3 | 4 | 5 | 6, { from: string; to: string }[]>;
for (const day of [0, 1, 2, 3, 4, 5, 6] as const) allOpen[day] = [{ from: "00:00", to: "24:00" }];

describe("a rule for customers who came from an ad", () => {
  it("answers a message from its ad, not one from another ad or none, which the welcome greets", async () => {
    const t = await tenant("Maji Safi Ltd");
    await saveAutomationSettings(
      t.actor,
      { welcomeEnabled: true, welcomeText: "Karibu!", awayEnabled: false, awayText: "", days: allOpen, holidays: [], holidayMode: false },
      "Africa/Nairobi",
    );
    // Naming an ad nobody came from yet is refused: the form offers only the ads seen.
    const refused = await createRule(t.actor, {
      name: "Maji",
      matchType: "contains",
      keywords: [],
      fromAd: MAJI.sourceId,
      reply: "x",
    }).catch((e: unknown) => e);
    expect(isRefusal(refused) && refused.field).toBe("fromAd");
    // Without an ad, a rule still needs keywords.
    const noKeywords = await createRule(t.actor, { name: "None", matchType: "contains", keywords: [], reply: "x" }).catch(
      (e: unknown) => e,
    );
    expect(isRefusal(noKeywords) && noKeywords.field).toBe("keywords");

    // A first customer from Maji: no rule yet, the welcome greets them; now the ad is known.
    await writes(t, "254712000301", "Habari", MAJI);
    const rule = await createRule(t.actor, {
      name: "Maji welcome",
      matchType: "contains",
      keywords: [],
      fromAd: MAJI.sourceId,
      reply: "Karibu! Maji safi ni KES 50 kwa lita 20.",
    });
    expect((await getRule(t.organizationId, rule.id)).fromAd).toBe(MAJI.sourceId);

    await writes(t, "254712000302", "Habari", MAJI);
    await writes(t, "254712000303", "Habari", TANKI);
    await writes(t, "254712000304", "Habari");
    expect((await outbound(t.organizationId)).map((m) => m.body)).toEqual([
      "Karibu!",
      "Karibu! Maji safi ni KES 50 kwa lita 20.",
      "Karibu!",
      "Karibu!",
    ]);
    expect((await runs(t.organizationId)).map((r) => [r.kind, r.rule_id])).toEqual([
      ["welcome", null],
      ["rule", rule.id],
      ["welcome", null],
      ["welcome", null],
    ]);
    // The same customer writes again without the ad's referral: the rule keeps to the ad's message.
    await writes(t, "254712000302", "Asante");
    expect(await outbound(t.organizationId)).toHaveLength(4);

    // "Any ad" with keywords: a Tanki customer asking for the price is answered, one from no ad is not.
    await updateRule(t.actor, rule.id, {
      name: "Ad prices",
      matchType: "contains",
      keywords: ["bei"],
      fromAd: "any",
      reply: "Bei: KES 50.",
    });
    await writes(t, "254712000305", "Bei gani?", TANKI);
    await writes(t, "254712000306", "Bei gani?");
    expect((await outbound(t.organizationId)).slice(4).map((m) => m.body)).toEqual(["Bei: KES 50.", "Karibu!"]);
  });

  it("offers the tenant's own ads in the rule form, never another tenant's", async () => {
    const t = await tenant("Tanki Bora");
    const other = await tenant("Other Ltd");
    await writes(t, "254712000311", "Habari", TANKI);
    await writes(other, "254712000312", "Habari", MAJI);
    const page = await run<{ choices: { ads: { id: string; label: string }[] } }>(
      ruleLoader,
      getRequest("/automations/new", { cookie: await signedInCookie(t.email, t.password) }),
    );
    expect(page.data.choices.ads).toEqual([{ id: TANKI.sourceId, label: `${TANKI.headline} (${TANKI.sourceId})` }]);
    // The other tenant's ad is unknown here.
    const refused = await createRule(t.actor, {
      name: "Maji",
      matchType: "contains",
      keywords: [],
      fromAd: MAJI.sourceId,
      reply: "x",
    }).catch((e: unknown) => e);
    expect(isRefusal(refused) && refused.field).toBe("fromAd");
  });
});
