import { deflateSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { env, setEnv } from "~/.server/infrastructure/config/env";
import { decryptSecret } from "~/.server/infrastructure/security/crypto";
import { isRefusal } from "~/.server/infrastructure/refusal";
import {
  readAssistantSettings,
  saveAssistantSettings,
  type AssistantSettingsInput,
} from "~/.server/domains/automations/assistant/settings";
import { addArticle, deleteArticle, getArticle, listArticles, updateArticle } from "~/.server/domains/automations/assistant/knowledge";
import { importFaqCsv, importPdf } from "~/.server/domains/automations/assistant/upload";
import { retrievePassages } from "~/.server/domains/automations/assistant/retrieve";
import { tryAssistant, decideAssistant } from "~/.server/domains/automations/assistant/answer";
import { assistantConfig } from "~/.server/domains/automations/assistant/settings";
import { monthUsage } from "~/.server/domains/automations/assistant/usage";
import { checkAssistantEndpoint } from "~/.server/domains/automations/assistant/endpoint";
import { startLlm, type LlmHarness } from "@jumbe/sandbox/llm/test-support";
import { chatCompletion, LLM_RETRIES } from "~/.server/infrastructure/clients/llm";
import { drainJobs } from "~/.server/infrastructure/jobs/worker";
import { createVerifiedUser } from "../support/accounts";
import { metaSandboxForFile } from "../support/meta-harness";
import { createRule } from "~/.server/domains/automations/rules";

// The AI assistant (issue 44): its settings with the key sealed, the knowledge base and its uploads,
// retrieval in English and Swahili, and what each of the model sandbox's outcomes becomes; tenants
// never read each other's knowledge.

let llm: LlmHarness;
beforeAll(async () => {
  llm = await startLlm();
});
afterAll(async () => {
  await llm.close();
});

async function tenant(name: string) {
  const user = await createVerifiedUser({ businessName: name });
  return { organizationId: user.organization.id, userId: user.user.id };
}
type Tenant = Awaited<ReturnType<typeof tenant>>;

const settings = (overrides: Partial<AssistantSettingsInput> = {}): AssistantSettingsInput => ({
  enabled: true,
  phoneNumberIds: [],
  instructions: "Be brief and warm. Never discuss politics.",
  baseUrl: llm.baseUrl,
  model: llm.model,
  apiKey: llm.apiKey,
  handoverText: "Asante! Mtu wa timu yetu atakujibu hapa hivi karibuni.",
  maxTurns: 6,
  monthlyCapCents: 0,
  inputPriceCents: 15_000,
  outputPriceCents: 60_000,
  ...overrides,
});

const KNOWLEDGE = [
  { title: "Paying by M-Pesa", body: "Pay through M-Pesa Paybill 522533, account number: your phone number. We confirm payment by SMS." },
  {
    title: "Delivery in Nairobi",
    body: "We deliver in Westlands, Kilimani, Kileleshwa and the CBD within one day. Delivery costs KES 200 inside Nairobi.",
  },
  { title: "Saa za kazi", body: "Tunafungua saa mbili asubuhi na kufunga saa kumi na mbili jioni, Jumatatu hadi Jumamosi." },
  { title: "Returns", body: "Goods can be returned within 7 days with the receipt, unused and in their box." },
];

async function withKnowledge(t: Tenant) {
  for (const article of KNOWLEDGE) await addArticle(t, article);
}

const requestsSeen = async () => (await llm.control("/requests")).json.requests.length;

async function refusal(work: Promise<unknown>) {
  try {
    await work;
  } catch (error) {
    if (isRefusal(error)) return { status: error.status, field: error.field, message: error.message };
    throw error;
  }
  throw new Error("not refused");
}

describe("assistant settings", () => {
  it("seals the key, shows only its last four characters, and keeps it when the field is left empty", async () => {
    const t = await tenant("Duka Bora Electronics");
    await saveAssistantSettings(t, settings({ apiKey: "sk-live-abcdefgh1234wxyz" }));
    const [row] = await rawQuery<{ api_key_sealed: string }>(`select api_key_sealed from assistant_settings where organization_id = $1`, [
      t.organizationId,
    ]);
    expect(row!.api_key_sealed).not.toContain("sk-live");
    // Sealed with the endpoint's origin it may be sent to (decision 099).
    expect(decryptSecret(row!.api_key_sealed)).toBe(`\u0001${new URL(llm.baseUrl).origin}\u0001sk-live-abcdefgh1234wxyz`);
    const view = await readAssistantSettings(t.organizationId);
    expect(view).toMatchObject({ keySaved: true, keyLast4: "wxyz", enabled: true });
    expect(JSON.stringify(view)).not.toContain("sk-live");

    await saveAssistantSettings(t, settings({ apiKey: "", instructions: "Short answers." }));
    expect((await assistantConfig(t.organizationId))!.apiKey).toBe("sk-live-abcdefgh1234wxyz");
    await saveAssistantSettings(t, settings({ apiKey: "", clearKey: true }));
    expect(await readAssistantSettings(t.organizationId)).toMatchObject({ keySaved: false, keyLast4: "" });
  });

  it("refuses a field by name and changes nothing", async () => {
    const t = await tenant("Mama Mboga Fresh");
    expect(await refusal(saveAssistantSettings(t, settings({ instructions: "x".repeat(2001) })))).toMatchObject({
      status: 400,
      field: "instructions",
    });
    expect(await refusal(saveAssistantSettings(t, settings({ handoverText: " " })))).toMatchObject({ field: "handoverText" });
    expect(await refusal(saveAssistantSettings(t, settings({ maxTurns: 0 })))).toMatchObject({ field: "maxTurns" });
    expect(await refusal(saveAssistantSettings(t, settings({ phoneNumberIds: ["999999"] })))).toMatchObject({ field: "phoneNumberIds" });
    expect(await refusal(saveAssistantSettings(t, settings({ baseUrl: "http://10.0.0.5:11434/v1" })))).toMatchObject({ field: "baseUrl" });
    expect((await readAssistantSettings(t.organizationId)).configured).toBe(false);
  });

  it("allows loopback outside production, never private networks or link-local", async () => {
    expect((await checkAssistantEndpoint("http://127.0.0.1:11434/v1")).ok).toBe(true);
    expect((await checkAssistantEndpoint("http://169.254.169.254/v1")).ok).toBe(false);
    expect((await checkAssistantEndpoint("http://192.168.1.10:8080/v1")).ok).toBe(false);
    expect((await checkAssistantEndpoint("https://user:pw@api.example.com/v1")).ok).toBe(false);
    expect((await checkAssistantEndpoint("ftp://api.example.com/v1")).ok).toBe(false);
    expect((await checkAssistantEndpoint("http://jumbe.test/sandbox/llm/v1")).ok).toBe(true);
  });
});

describe("the endpoint's key and address (decision 099)", () => {
  it("refuses moving the base URL to another origin with the saved key kept, and changes nothing", async () => {
    const t = await tenant("Origin Guard Hardware");
    await saveAssistantSettings(t, settings({ apiKey: "sk-bound-to-sandbox-9z9z" }));
    const moved = await refusal(saveAssistantSettings(t, settings({ baseUrl: "http://127.0.0.7:9000/v1", apiKey: "" })));
    expect(moved).toMatchObject({ status: 400, field: "apiKey" });
    expect(moved.message).toContain("give its key again");
    expect(await readAssistantSettings(t.organizationId)).toMatchObject({ baseUrl: llm.baseUrl, keySaved: true, keyLast4: "9z9z" });
    // Another port is another origin; the same origin on another path is not.
    const port = new URL(llm.baseUrl);
    port.port = String(Number(port.port) + 1);
    expect(await refusal(saveAssistantSettings(t, settings({ baseUrl: port.toString(), apiKey: "" })))).toMatchObject({ field: "apiKey" });
    await saveAssistantSettings(t, settings({ baseUrl: `${llm.baseUrl}/`, apiKey: "" }));
    expect((await assistantConfig(t.organizationId))!.apiKey).toBe("sk-bound-to-sandbox-9z9z");
    // Off with no base URL: the key goes nowhere and stays sealed with its own origin, back with it only.
    await saveAssistantSettings(t, settings({ enabled: false, baseUrl: "", apiKey: "" }));
    expect(await readAssistantSettings(t.organizationId)).toMatchObject({ baseUrl: "", keySaved: true });
    expect(await refusal(saveAssistantSettings(t, settings({ baseUrl: "http://127.0.0.7:9000/v1", apiKey: "" })))).toMatchObject({
      field: "apiKey",
    });
    await saveAssistantSettings(t, settings({ apiKey: "" }));
    expect((await assistantConfig(t.organizationId))!.apiKey).toBe("sk-bound-to-sandbox-9z9z");
  });

  it("never sends the key to an origin other than the one it was saved for, at the call", async () => {
    const other = await startLlm();
    try {
      const t = await tenant("Origin Guard Bakery");
      await withKnowledge(t);
      await saveAssistantSettings(t, settings({ apiKey: "sk-bound-to-first-4242" }));
      // The base URL changed behind the settings' back (a row copied, an old path): the key stays home.
      await rawQuery(`update assistant_settings set base_url = $2 where organization_id = $1`, [t.organizationId, other.baseUrl]);
      expect((await assistantConfig(t.organizationId))!.apiKey).toBe("");
      const outcome = await tryAssistant(t.organizationId, "What is the paybill number?", "en");
      // The sandbox refuses a call without a key: it was not given one.
      expect(outcome).toMatchObject({ kind: "handover", reason: "model_error", detail: "auth (HTTP 401)" });
      expect((await other.control("/requests")).json.requests).toMatchObject([{ status: 401 }]);
    } finally {
      await other.close();
    }
  });

  it("refuses http and private addresses in production at save and at the call; the sandbox's own URL stays allowed", async () => {
    const original = env();
    const t = await tenant("Production Rules Ltd");
    await withKnowledge(t);
    await saveAssistantSettings(t, settings({ baseUrl: "http://8.8.8.8/v1", apiKey: "" }));
    try {
      setEnv({ ...original, production: true });
      for (const baseUrl of [
        "http://8.8.8.8/x",
        "https://169.254.169.254/v1",
        "https://10.0.0.1/v1",
        "file:///etc/passwd",
        "gopher://8.8.8.8/v1",
      ])
        expect(await refusal(saveAssistantSettings(t, settings({ baseUrl, apiKey: "" }))), baseUrl).toMatchObject({ field: "baseUrl" });
      expect((await checkAssistantEndpoint("http://jumbe.test/sandbox/llm/v1")).ok).toBe(true);
      const before = await requestsSeen();
      // Saved under local rules, called under production's: handed over, nothing sent.
      expect(await tryAssistant(t.organizationId, "What is the paybill number?", "en")).toMatchObject({
        kind: "handover",
        reason: "model_error",
        detail: "endpoint refused",
      });
      expect(await requestsSeen()).toBe(before);
    } finally {
      setEnv(original);
    }
    expect((await readAssistantSettings(t.organizationId)).baseUrl).toBe("http://8.8.8.8/v1");
  });
});

describe("knowledge base", () => {
  it("ranks passages for English and Swahili questions, and never another organisation's", async () => {
    const t = await tenant("Kilimani Hardware");
    const other = await tenant("Nakuru Hardware");
    await withKnowledge(t);
    await addArticle(other, { title: "Paybill", body: "Our Paybill is 999999. Delivery is free in Nakuru." });

    const [paybill] = await retrievePassages(t.organizationId, "What is your paybill number?");
    expect(paybill!.text).toContain("522533");
    const [delivery] = await retrievePassages(t.organizationId, "how much is delivery to Westlands");
    expect(delivery!.title).toBe("Delivery in Nairobi");
    const [hours] = await retrievePassages(t.organizationId, "Mnafungua saa ngapi?");
    expect(hours!.title).toBe("Saa za kazi");
    const [typo] = await retrievePassages(t.organizationId, "delivry westlnds");
    expect(typo!.title).toBe("Delivery in Nairobi");
    expect(await retrievePassages(t.organizationId, "Do you sell cars?")).toEqual([]);
    const all = await retrievePassages(t.organizationId, "paybill delivery returns", 10);
    expect(all.every((p) => !p.text.includes("999999"))).toBe(true);
  });

  it("adds, changes and deletes articles, and another organisation's id is not found", async () => {
    const t = await tenant("Westlands Pharmacy");
    const other = await tenant("Eastleigh Pharmacy");
    const article = await addArticle(t, { title: "Opening hours", body: "Open 8 am to 9 pm every day." });
    expect((await updateArticle(t, article.id, { title: "Opening hours", body: "Open 7 am to 10 pm every day." })).body).toContain("7 am");
    expect((await retrievePassages(t.organizationId, "open 10 pm"))[0]!.text).toContain("7 am");
    expect(await refusal(getArticle(other.organizationId, article.id))).toMatchObject({ status: 404 });
    expect(await refusal(updateArticle(other, article.id, { title: "x", body: "y" }))).toMatchObject({ status: 404 });
    expect(await refusal(deleteArticle(other, article.id))).toMatchObject({ status: 404 });
    expect(await refusal(getArticle(t.organizationId, "not-a-uuid"))).toMatchObject({ status: 404 });
    expect(await refusal(addArticle(t, { title: "Too long", body: "x".repeat(20_001) }))).toMatchObject({ status: 400, field: "body" });
    await deleteArticle(t, article.id);
    expect(await listArticles(t.organizationId)).toEqual([]);
    const [passages] = await rawQuery<{ n: number }>(`select count(*)::int as n from knowledge_passages where organization_id = $1`, [
      t.organizationId,
    ]);
    expect(passages!.n).toBe(0);
  });

  it("imports a CSV of questions and answers, and a bad row refuses the whole file", async () => {
    const t = await tenant("Nyeri Dairy");
    const csv = 'question,answer\nDo you deliver milk?,"Yes, every morning in Nyeri town."\nBei ya lita moja?,KES 60 kwa lita.\n';
    const added = await importFaqCsv(t, Buffer.from(csv));
    expect(added.map((a) => [a.title, a.source])).toEqual([
      ["Do you deliver milk?", "csv"],
      ["Bei ya lita moja?", "csv"],
    ]);
    const bad = "question,answer\nA question?,An answer.\nOnly a question,\n";
    expect(await refusal(importFaqCsv(t, Buffer.from(bad)))).toMatchObject({ status: 400, field: "file" });
    expect((await refusal(importFaqCsv(t, Buffer.from(bad)))).message).toContain("Line 3");
    expect(await refusal(importFaqCsv(t, Buffer.alloc(1024 * 1024 + 1, 97)))).toMatchObject({ status: 413 });
    expect(await refusal(importFaqCsv(t, Buffer.from("question,answer\n")))).toMatchObject({ status: 400 });
    expect(await listArticles(t.organizationId)).toHaveLength(2);
  });

  it("reads a text PDF into an article and refuses a scan, storing nothing", async () => {
    const t = await tenant("Thika Road Motors");
    const pdf = (content: string) => {
      const stream = deflateSync(Buffer.from(content, "latin1"));
      return Buffer.concat([
        Buffer.from(`%PDF-1.4\n4 0 obj << /Length ${stream.length} /Filter /FlateDecode >>\nstream\n`),
        stream,
        Buffer.from("\nendstream\nendobj\n%%EOF\n"),
      ]);
    };
    const article = await importPdf(
      t,
      "Service_prices.pdf",
      pdf("BT (A full service costs KES 8,500.) Tj T* (Tyres from KES 6,000.) Tj ET"),
    );
    expect(article).toMatchObject({
      title: "Service prices",
      source: "pdf",
      body: "A full service costs KES 8,500.\nTyres from KES 6,000.",
    });
    expect(await refusal(importPdf(t, "scan.pdf", pdf("q 595 0 0 842 0 0 cm /Im0 Do Q")))).toMatchObject({ status: 400, field: "file" });
    expect(await refusal(importPdf(t, "notes.pdf", Buffer.from("plain text")))).toMatchObject({ status: 400 });
    expect(await listArticles(t.organizationId)).toHaveLength(1);
  });
});

describe("answering", () => {
  it("answers from the best passage, with the passages it read, and counts the tokens and their cost", async () => {
    const t = await tenant("Gikomba Textiles");
    await withKnowledge(t);
    await saveAssistantSettings(t, settings());
    const outcome = await tryAssistant(t.organizationId, "What is the paybill number?", "en");
    expect(outcome).toMatchObject({ kind: "answer", text: expect.stringContaining("522533") });
    expect(outcome!.kind !== "retry" && outcome!.passages[0]!.title).toBe("Paying by M-Pesa");
    const usage = await monthUsage(t.organizationId);
    expect(usage.promptTokens).toBeGreaterThan(0);
    expect(usage.completionTokens).toBeGreaterThan(0);
    expect(usage.costMicrocents).toBe(usage.promptTokens * 15_000 + usage.completionTokens * 60_000);
  });

  it("hands over before any model call when the customer asks for a person or nothing in the knowledge answers", async () => {
    const t = await tenant("Ngong Road Bakery");
    await withKnowledge(t);
    await saveAssistantSettings(t, settings());
    const before = await requestsSeen();
    expect(await tryAssistant(t.organizationId, "Nataka kuongea na mtu", "sw")).toMatchObject({
      kind: "handover",
      reason: "asked_for_person",
    });
    expect(await tryAssistant(t.organizationId, "Can I talk to an agent?", "en")).toMatchObject({
      kind: "handover",
      reason: "asked_for_person",
    });
    expect(await tryAssistant(t.organizationId, "Do you sell cars?", "en")).toMatchObject({ kind: "handover", reason: "no_knowledge" });
    expect(await requestsSeen()).toBe(before);
  });

  it("turns each of the model sandbox's failures into a handover, and a short rate limit into a wait", async () => {
    const t = await tenant("Kisumu Fish Traders");
    await withKnowledge(t);
    await saveAssistantSettings(t, settings());
    const config = (await assistantConfig(t.organizationId))!;
    const ask = (body: string, options: { attempt?: number; timeoutMs?: number } = {}) =>
      decideAssistant(config, { organizationId: t.organizationId, body, locale: "en", history: [] }, 0, new Date(), options);

    expect(await ask("delivery magic:429")).toEqual({ kind: "retry", afterMs: 2000 });
    expect(await ask("delivery magic:429", { attempt: 3 })).toMatchObject({
      kind: "handover",
      reason: "model_error",
      detail: "rate_limited",
    });
    expect(await ask("delivery magic:quota")).toMatchObject({ kind: "handover", reason: "model_error", detail: "quota (HTTP 429)" });
    expect(await ask("delivery magic:500")).toMatchObject({ kind: "handover", reason: "model_error", detail: "server (HTTP 500)" });
    expect(await ask("delivery magic:filter")).toMatchObject({ kind: "handover", reason: "model_error", detail: "filtered (HTTP 200)" });
    expect(await ask("delivery magic:timeout", { timeoutMs: 300 })).toMatchObject({
      kind: "handover",
      reason: "model_error",
      detail: "timeout",
    });
    expect(await ask("delivery Westlands")).toMatchObject({ kind: "answer" });
    expect(await ask("delivery Westlands", {})).toMatchObject({ kind: "answer" });

    const refusedKey = { ...config, apiKey: "sk-invalid" };
    expect(
      await decideAssistant(refusedKey, { organizationId: t.organizationId, body: "delivery", locale: "en", history: [] }, 0, new Date()),
    ).toMatchObject({ kind: "handover", reason: "model_error", detail: "auth (HTTP 401)" });
  });

  it("asks an overloaded model again within the reply's budget instead of handing over (503 with retry-after)", async () => {
    const t = await tenant("Nyeri Dairy");
    await withKnowledge(t);
    await saveAssistantSettings(t, settings());
    const config = (await assistantConfig(t.organizationId))!;
    // The waits are counted, not waited: the clock moves by what each asks.
    let now = 0;
    const waits: number[] = [];
    const clock = { now: () => now, sleep: async (ms: number) => void waits.push(ms, (now += ms)) };
    const complete: typeof chatCompletion = (input) => chatCompletion({ ...input, clock });
    const ask = (body: string) =>
      decideAssistant(config, { organizationId: t.organizationId, body, locale: "en", history: [] }, 0, new Date(), { complete });

    llm.sandbox.reset();
    llm.sandbox.fail("magic:503", 2);
    expect(await ask("delivery Westlands")).toMatchObject({ kind: "answer", text: expect.stringContaining("Westlands") });
    expect(llm.sandbox.requests().map((r) => r.outcome)).toEqual(["answer", "overloaded", "overloaded"]);
    expect(waits.filter((_, i) => i % 2 === 0)).toEqual([1000, 1000]);

    // Overloaded on every try: a person takes over once the tries are spent, with the status.
    llm.sandbox.reset();
    expect(await ask("delivery magic:500")).toMatchObject({ kind: "handover", reason: "model_error", detail: "server (HTTP 500)" });
    expect(llm.sandbox.requests()).toHaveLength(1 + LLM_RETRIES);
  });

  it("shows the endpoint's own words when a 200 carries an error, and counts estimated tokens when usage is missing", async () => {
    const t = await tenant("Thika Pineapples");
    await withKnowledge(t);
    await saveAssistantSettings(t, settings());
    expect(await tryAssistant(t.organizationId, "delivery magic:error-body", "en")).toMatchObject({
      kind: "handover",
      reason: "model_error",
      detail: "server (HTTP 200): The model jumbe-sandbox-1 is not loaded on this server.",
    });

    expect(await tryAssistant(t.organizationId, "delivery Westlands magic:no-usage", "en")).toMatchObject({ kind: "answer" });
    const usage = await monthUsage(t.organizationId);
    expect(usage.promptTokens).toBeGreaterThan(0);
    expect(usage.completionTokens).toBeGreaterThan(0);
    expect(usage.costMicrocents).toBe(usage.promptTokens * 15_000 + usage.completionTokens * 60_000);
  });

  it("hands over after the turn limit without calling the model", async () => {
    const t = await tenant("Eldoret Seeds");
    await withKnowledge(t);
    await saveAssistantSettings(t, settings({ maxTurns: 2 }));
    const config = (await assistantConfig(t.organizationId))!;
    const before = await requestsSeen();
    expect(
      await decideAssistant(config, { organizationId: t.organizationId, body: "delivery", locale: "en", history: [] }, 2, new Date()),
    ).toMatchObject({ kind: "handover", reason: "turn_limit" });
    expect(await requestsSeen()).toBe(before);
  });

  it("over the monthly cap: no model call, a handover, and owners told once", async () => {
    const t = await tenant("Mombasa Spice House");
    await withKnowledge(t);
    // One cent cap at a high price: the first answer passes it.
    await saveAssistantSettings(t, settings({ monthlyCapCents: 1, inputPriceCents: 100_000_000, outputPriceCents: 100_000_000 }));
    expect(await tryAssistant(t.organizationId, "paybill?", "en")).toMatchObject({ kind: "answer" });
    const before = await requestsSeen();
    expect(await tryAssistant(t.organizationId, "delivery Westlands?", "en")).toMatchObject({ kind: "handover", reason: "over_cap" });
    expect(await tryAssistant(t.organizationId, "returns?", "en")).toMatchObject({ kind: "handover", reason: "over_cap" });
    expect(await requestsSeen()).toBe(before);
    const notices = await rawQuery<{ n: number }>(
      `select count(*)::int as n from notifications where organization_id = $1 and event = 'assistant_cap'`,
      [t.organizationId],
    );
    // The tenant's one member (its owner) is told once.
    expect(notices[0]!.n).toBe(1);
  });
});

describe("the assistant in the automations runner", () => {
  const meta = metaSandboxForFile();

  async function connected(name: string) {
    const t = await tenant(name);
    return { ...t, ...(await meta.graph.connect(t.organizationId, name)) };
  }
  type Connected = Awaited<ReturnType<typeof connected>>;

  const inboundCount = async (organizationId: string) =>
    (
      await rawQuery<{ n: number }>(`select count(*)::int as n from messages where organization_id = $1 and direction = 'inbound'`, [
        organizationId,
      ])
    )[0]!.n;
  const outbound = (organizationId: string) =>
    rawQuery<{ body: string; source: string }>(
      `select body, source from messages where organization_id = $1 and direction = 'outbound' order by seq`,
      [organizationId],
    );

  async function customerWrites(t: Connected, from: string, text: string) {
    const before = await inboundCount(t.organizationId);
    await meta.sandbox.sendInbound({ phoneNumberId: t.phoneNumberId, from, name: "Wanjiru Kamau", text });
    await vi.waitFor(
      async () => {
        await drainJobs();
        if ((await inboundCount(t.organizationId)) !== before + 1) throw new Error("not yet");
      },
      { timeout: 30_000, interval: 25 },
    );
    await drainJobs();
  }

  it("answers from the knowledge, hands over on 'mtu' with the handover text, then stays silent while a person holds it", async () => {
    const t = await connected("Kariakor Shoe Market");
    await withKnowledge(t);
    await saveAssistantSettings(t, settings({ phoneNumberIds: [t.phoneNumberId] }));
    const customer = "254712300111";

    await customerWrites(t, customer, "What is your paybill number?");
    expect((await outbound(t.organizationId)).map((m) => m.body)).toEqual([expect.stringContaining("522533")]);

    await customerWrites(t, customer, "Sawa. Nataka kuongea na mtu");
    const sent = await outbound(t.organizationId);
    expect(sent.at(-1)!.body).toBe("Asante! Mtu wa timu yetu atakujibu hapa hivi karibuni.");
    const [conversation] = await rawQuery<{ held: boolean }>(
      `select person_held_at is not null as held from conversations where organization_id = $1`,
      [t.organizationId],
    );
    expect(conversation!.held).toBe(true);
    const runs = await rawQuery<{ kind: string }>(`select kind from automation_runs where organization_id = $1 order by created_at`, [
      t.organizationId,
    ]);
    expect(runs.map((r) => r.kind)).toEqual(["assistant", "assistant"]);

    await customerWrites(t, customer, "Delivery to Westlands?");
    expect(await outbound(t.organizationId)).toHaveLength(2);
    const usage = await monthUsage(t.organizationId);
    expect(usage).toMatchObject({ replies: 1, handovers: 1 });
  });

  it("is silent on a number it does not answer on", async () => {
    const t = await connected("Toi Market Stalls");
    await withKnowledge(t);
    await saveAssistantSettings(t, settings({ phoneNumberIds: [] }));
    await customerWrites(t, "254712300222", "What is your paybill number?");
    expect(await outbound(t.organizationId)).toEqual([]);
  });

  it("answers after a keyword rule whose 'then' is the assistant: the rule's reply, then the assistant's, in one run", async () => {
    const t = await connected("Gikomba Bales Depot");
    await withKnowledge(t);
    await saveAssistantSettings(t, settings({ phoneNumberIds: [t.phoneNumberId] }));
    const rule = await createRule(
      { organizationId: t.organizationId, userId: t.userId },
      {
        name: "Malipo",
        matchType: "contains",
        keywords: ["paybill", "lipa"],
        reply: "Karibu Gikomba Bales!",
        addTags: ["malipo"],
        then: "assistant",
      },
    );
    expect(rule.actions).toEqual([
      { type: "reply", text: "Karibu Gikomba Bales!" },
      { type: "tags", add: ["malipo"], remove: [] },
      { type: "assistant" },
    ]);
    await customerWrites(t, "254712300333", "What is your paybill number?");
    expect((await outbound(t.organizationId)).map((m) => m.body)).toEqual(["Karibu Gikomba Bales!", expect.stringContaining("522533")]);
    const runs = await rawQuery<{ kind: string; rule_id: string }>(`select kind, rule_id from automation_runs where organization_id = $1`, [
      t.organizationId,
    ]);
    expect(runs).toEqual([{ kind: "assistant", rule_id: rule.id }]);
    const [contact] = await rawQuery<{ tags: string[] }>(`select tags from contacts where organization_id = $1`, [t.organizationId]);
    expect(contact!.tags).toEqual(["malipo"]);
  });
});
