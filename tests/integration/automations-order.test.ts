import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { startLlm, type LlmHarness } from "@jumbe/sandbox/llm/test-support";
import { seedAutomations } from "~/.server/demo/seed-automations";
import { readAutomationSettings, saveAutomationSettings } from "~/.server/domains/automations/settings";
import { saveAssistantSettings } from "~/.server/domains/automations/assistant/settings";
import { addArticles } from "~/.server/domains/automations/assistant/knowledge";
import { createRule } from "~/.server/domains/automations/rules";
import { greetingOf } from "~/.server/domains/automations/greeting";
import { metaSandboxForFile } from "../support/meta-harness";
import { automationHarness, outbound, runs } from "../support/automation-harness";

// The order automations answer in with everything on (issue 74, decision 113): consent words, then
// keyword rules and flows, then the welcome or away message, then the assistant for real questions; a
// greeting is no question for the knowledge base, and nothing speaks while a person holds the chat.

const meta = metaSandboxForFile();
const { tenant, customerWrites } = automationHarness(meta);

let llm: LlmHarness;
beforeAll(async () => {
  llm = await startLlm();
});
afterAll(async () => {
  await llm.close();
});

const HANDOVER_TEXT = "Asante! Afisa wetu atakujibu hapa hivi karibuni.";
const KNOWLEDGE = [
  {
    title: "ATM cards",
    body: "We deliver new ATM cards free within Nairobi (Westlands, Kilimani, Karen) in 3 working days. A replacement card costs KES 500.",
  },
  { title: "Loans", body: "An emergency loan is up to 3 times your savings, at 1% a month on the reducing balance." },
];

type Tenant = Awaited<ReturnType<typeof tenant>>;

/** The demo Sacco's automations (welcome, away, four keyword rules, a flow DHARURA starts) and its assistant with knowledge. */
async function everythingOn(t: Tenant, options: { closed: boolean }) {
  await seedAutomations(t.organizationId, t.userId);
  // Closed at every hour (holiday mode) or open at every hour: the away message does not depend on the clock.
  const settings = await readAutomationSettings(t.organizationId);
  const allDay = [{ from: "00:00", to: "23:59" }];
  await saveAutomationSettings(
    t.actor,
    {
      ...settings,
      holidayMode: options.closed,
      days: options.closed ? settings.days : { 0: allDay, 1: allDay, 2: allDay, 3: allDay, 4: allDay, 5: allDay, 6: allDay },
      holidays: [],
    },
    "Africa/Nairobi",
  );
  await addArticles(t.actor, KNOWLEDGE, "manual");
  await saveAssistantSettings(t.actor, {
    enabled: true,
    phoneNumberIds: [t.phoneNumberId],
    instructions: "Jibu kwa upole na kwa ufupi.",
    baseUrl: llm.baseUrl,
    model: llm.model,
    apiKey: llm.apiKey,
    handoverText: HANDOVER_TEXT,
    maxTurns: 6,
    monthlyCapCents: 0,
    inputPriceCents: 2_000,
    outputPriceCents: 8_000,
  });
  return settings;
}

const conversation = async (organizationId: string, phone: string) =>
  (
    await rawQuery<{ held: boolean; entries: number }>(
      `select v.person_held_at is not null as held,
              (select count(*)::int from conversation_entries e where e.conversation_id = v.id and e.kind = 'handover') as entries
       from conversations v join contacts c on c.id = v.contact_id where v.organization_id = $1 and c.phone = $2`,
      [organizationId, `+${phone}`],
    )
  )[0]!;

const bodies = async (organizationId: string) => (await outbound(organizationId)).map((m) => m.body);

describe("the order automations answer in, with everything on", () => {
  it("greets a new customer with the welcome, answers a keyword, a question after the away message, and hands over on 'mtu'", async () => {
    const t = await tenant("Nyota Order Sacco");
    const { welcomeText, awayText } = await everythingOn(t, { closed: true });
    const customer = "254712740001";

    // A new customer's greeting: the welcome, no handover, nobody holds the conversation.
    await customerWrites(t, customer, "Habari");
    expect(await bodies(t.organizationId)).toEqual([welcomeText]);
    expect(await conversation(t.organizationId, customer)).toEqual({ held: false, entries: 0 });

    // A keyword: its rule answers (quoting the customer).
    await customerWrites(t, customer, "Riba ya mkopo ni ngapi");
    expect((await bodies(t.organizationId)).at(-1)).toMatch(/^Riba ya mikopo ya Nyota ni 1%/);

    // A real question, outside hours: the away message once, then the assistant's answer from the knowledge.
    await customerWrites(t, customer, "Do you deliver ATM cards to Westlands?");
    expect((await bodies(t.organizationId)).slice(2)).toEqual([awayText, expect.stringContaining("3 working days")]);

    // A request for a person: the handover text, and a person holds the conversation.
    await customerWrites(t, customer, "Nataka kuongea na mtu");
    expect((await bodies(t.organizationId)).at(-1)).toBe(HANDOVER_TEXT);
    expect(await conversation(t.organizationId, customer)).toEqual({ held: true, entries: 1 });

    // Held: nothing automated speaks, not even a keyword rule.
    await customerWrites(t, customer, "riba?");
    expect(await bodies(t.organizationId)).toHaveLength(5);
    expect((await runs(t.organizationId)).map((r) => r.kind)).toEqual(["welcome", "rule", "away", "assistant"]);

    // Another customer's keyword starts the flow: the flow answers, not the assistant.
    await customerWrites(t, "254712740002", "DHARURA");
    expect((await bodies(t.organizationId)).at(-1)).toBe("Karibu kwenye mkopo wa dharura wa Nyota. Andika nambari yako ya uanachama.");
    expect(await conversation(t.organizationId, "254712740002")).toMatchObject({ held: false });
  });

  it("inside hours with the welcome off: a greeting gets a greeting back in its language, never a handover, and rules still answer", async () => {
    const t = await tenant("Kilimani Order Pharmacy");
    const settings = await everythingOn(t, { closed: false });
    await saveAutomationSettings(t.actor, { ...(await readAutomationSettings(t.organizationId)), welcomeEnabled: false }, "Africa/Nairobi");
    expect(settings.welcomeEnabled).toBe(true);

    await customerWrites(t, "254712740011", "Habari yako");
    expect(await bodies(t.organizationId)).toEqual(["Habari! Asante kwa kuwasiliana na Kilimani Order Pharmacy. Tukusaidie na nini leo?"]);
    await customerWrites(t, "254712740012", "Bonjour");
    expect((await bodies(t.organizationId)).at(-1)).toBe(
      "Bonjour ! Merci d'avoir écrit à Kilimani Order Pharmacy. Comment pouvons-nous vous aider aujourd'hui ?",
    );
    expect(await conversation(t.organizationId, "254712740011")).toEqual({ held: false, entries: 0 });

    // Inside hours, the question goes straight to the assistant (no away message).
    await customerWrites(t, "254712740011", "How much is a replacement ATM card?");
    expect((await bodies(t.organizationId)).at(-1)).toContain("KES 500");
    await customerWrites(t, "254712740011", "balance yangu");
    expect((await bodies(t.organizationId)).at(-1)).toMatch(/^Kwa usalama wako/);
    expect(await outbound(t.organizationId)).toHaveLength(4);
  });

  it("a greeting and a question in one message is a question; a greeting with a keyword is the keyword's", async () => {
    const t = await tenant("Westlands Order Bakery");
    await everythingOn(t, { closed: false });
    await createRule(t.actor, { name: "Bei", matchType: "contains", keywords: ["bei"], reply: "Bei zetu ziko kwenye tovuti." });
    await customerWrites(t, "254712740021", "Habari, bei ya mkate?");
    expect(await bodies(t.organizationId)).toEqual(["Bei zetu ziko kwenye tovuti."]);
  });
});

describe("what a greeting is", () => {
  it("knows greetings in English, Swahili, Sheng and French, and not questions or requests", () => {
    for (const [message, language] of [
      ["Habari", "sw"],
      ["habari za asubuhi", "sw"],
      ["Mambo vipi", "sw"],
      ["Sasa boss", "sw"],
      ["Jambo!", "sw"],
      ["Niaje msee", null],
      ["Hi there", "en"],
      ["Hello 👋", "en"],
      ["Good morning team", "en"],
      ["Bonjour madame", "fr"],
      ["Salut à tous", "fr"],
      ["Habari, nataka kuongea na mtu", null],
      ["Hi, what is your paybill?", null],
      ["Hello?", null],
      ["Asante", null],
      ["Sasa nataka mkopo", null],
      ["", null],
    ] as const)
      expect([message, greetingOf(message)]).toEqual([message, language]);
  });
});
