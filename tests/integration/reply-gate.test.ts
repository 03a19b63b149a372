import { once } from "node:events";
import type { AddressInfo } from "node:net";
import express from "express";
import { sql } from "drizzle-orm";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { db, rawQuery } from "~/.server/infrastructure/db/client";
import { users } from "~/.server/infrastructure/db/schema";
import { hashPassword } from "~/.server/domains/auth/password";
import { createRule, setRuleEnabled } from "~/.server/domains/automations/rules";
import { saveAssistantSettings, type AssistantSettingsInput } from "~/.server/domains/automations/assistant/settings";
import { addArticle } from "~/.server/domains/automations/assistant/knowledge";
import { AUTOMATION_QUEUE, runAutomation, runAutomations } from "~/.server/domains/automations/run";
import { CONVERSATION_HOURLY_CAP } from "~/.server/domains/automations/reply-gate";
import { admitAutomatedReplies, NUMBER_HOURLY_CAP, type ReplyAsk } from "~/.server/domains/automations/reply-gate";
import { conversationLockKey, lockConversations } from "~/.server/domains/messaging/conversation-lock";
import { assignConversation, sendReply } from "~/.server/domains/inbox/actions";
import { findConversation } from "~/.server/domains/inbox/list";
import { startLlm, type LlmHarness } from "@jumbe/sandbox/llm/test-support";
import { metaSandboxForFile } from "../support/meta-harness";
import { testDatabaseUrl } from "../support/database";
import { automationHarness, inboundCount, outbound, until } from "../support/automation-harness";

// The reply gate (issue 71, decision 097): every automated reply is checked at the moment it is
// queued, under the conversation's lock a person takes to hold it: a member who answers or is
// assigned the conversation while the model thinks, or while a batch is deciding, silences what
// was decided before. Each of the gate's checks, and each earlier check that only saves work, has a
// test of its own.

const meta = metaSandboxForFile();
const { tenant, customerWrites } = automationHarness(meta);

let llm: LlmHarness;
/** The model's endpoint as Jumbe calls it: the sandbox's answer, after whatever the test does meanwhile. */
let duringModelCall: (() => Promise<void>) | null = null;
let modelCalls = 0;
let proxy: { baseUrl: string; close: () => Promise<void> };

beforeAll(async () => {
  llm = await startLlm();
  const app = express();
  app.use(express.json({ limit: "1mb" }));
  app.post("/v1/chat/completions", async (req, res) => {
    modelCalls += 1;
    const work = duringModelCall;
    duringModelCall = null;
    if (work) await work();
    const answer = await fetch(`${llm.baseUrl}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: String(req.headers.authorization ?? "") },
      body: JSON.stringify(req.body),
    });
    res
      .status(answer.status)
      .type("application/json")
      .send(await answer.text());
  });
  const server = app.listen(0, "127.0.0.1");
  await once(server, "listening");
  proxy = {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
});
afterAll(async () => {
  await proxy.close();
  await llm.close();
});

const priceRule = { name: "Bei", matchType: "contains", keywords: ["bei"], reply: "Bei zetu ziko kwenye tovuti." };

async function agent(organizationId: string) {
  const [user] = await db()
    .insert(users)
    .values({
      organizationId,
      email: `agent-${crypto.randomUUID()}@example.co.ke`,
      firstName: "Wanjiru",
      lastName: "Mwangi",
      orgRole: "agent",
      passwordHash: await hashPassword("Member#Pass12"),
      isVerified: true,
    })
    .returning();
  return user!.id;
}

type Tenant = Awaited<ReturnType<typeof tenant>>;

async function withAssistant(t: Tenant) {
  await addArticle(t.actor, {
    title: "Paying by M-Pesa",
    body: "Pay through M-Pesa Paybill 522533, account number: your phone number. We confirm payment by SMS.",
  });
  const settings: AssistantSettingsInput = {
    enabled: true,
    phoneNumberIds: [t.phoneNumberId],
    instructions: "Be brief and warm.",
    baseUrl: proxy.baseUrl,
    model: llm.model,
    apiKey: llm.apiKey,
    handoverText: "Asante! Mtu wa timu yetu atakujibu hapa hivi karibuni.",
    maxTurns: 6,
    monthlyCapCents: 0,
    inputPriceCents: 15_000,
    outputPriceCents: 60_000,
  };
  await saveAssistantSettings(t.actor, settings);
}

/** A customer's message stored while nothing answers (the organisation has no automation yet): its id. */
async function storedQuietly(t: Tenant, from: string, text: string) {
  const before = await inboundCount(t.organizationId);
  await meta.sandbox.sendInbound({ phoneNumberId: t.phoneNumberId, from, name: "Achieng Otieno", text });
  await until(
    () => inboundCount(t.organizationId),
    (n) => n === before + 1,
  );
  const [row] = await rawQuery<{ id: string; conversation_id: string }>(
    `select m.id, v.id as conversation_id from messages m
     join conversations v on v.organization_id = m.organization_id and v.contact_id = m.contact_id and v.phone_number_id = m.phone_number_id
     where m.organization_id = $1 and m.direction = 'inbound' order by m.seq desc limit 1`,
    [t.organizationId],
  );
  return row!;
}

const job = (t: Tenant, messageId: string, id: number) => ({
  id,
  queue: AUTOMATION_QUEUE,
  attempts: 1,
  payload: { organizationId: t.organizationId, messageId },
});

const automated = async (organizationId: string) =>
  (await outbound(organizationId)).filter((m) => m.source === "automation").map((m) => m.body);

const conversationOf = async (organizationId: string, id: string) => (await findConversation(organizationId, id))!;

describe("the reply gate: a person who takes over silences what was decided before", () => {
  it("an agent answering during the model call: the assistant's answer is not queued", async () => {
    const t = await tenant("Kariakor Shoe Market");
    const member = await agent(t.organizationId);
    await withAssistant(t);
    duringModelCall = async () => {
      const [conversation] = await rawQuery<{ id: string }>(`select id from conversations where organization_id = $1`, [t.organizationId]);
      await sendReply({ organizationId: t.organizationId, userId: member }, await conversationOf(t.organizationId, conversation!.id), {
        text: "Habari! Nitakusaidia mimi mwenyewe.",
      });
    };
    const calls = modelCalls;
    await customerWrites(t, "254712400101", "What is your paybill number?");
    expect(modelCalls).toBe(calls + 1);
    // The member's reply alone: the assistant's answer, decided before, found the conversation held.
    expect((await outbound(t.organizationId)).map((m) => [m.source, m.body])).toEqual([["inbox", "Habari! Nitakusaidia mimi mwenyewe."]]);
    expect(await rawQuery(`select id from automation_runs where organization_id = $1`, [t.organizationId])).toEqual([]);
  });

  it("a conversation assigned to a person while a batch decides: its planned reply is not queued, the others' are", async () => {
    const t = await tenant("Gikomba Bales Depot");
    const member = await agent(t.organizationId);
    const x = await storedQuietly(t, "254712400201", "bei ya mitumba?");
    const y = await storedQuietly(t, "254712400202", "What is your paybill number?");
    await createRule(t.actor, priceRule);
    await withAssistant(t);
    // The rule's reply to X is a plain answer, planned for the batch's end; Y's model call comes first.
    duringModelCall = async () => {
      await assignConversation(
        { organizationId: t.organizationId, userId: member },
        await conversationOf(t.organizationId, x.conversation_id),
        member,
      );
    };
    await runAutomations([job(t, x.id, 1), job(t, y.id, 2)]);
    const sent = await rawQuery<{ conversation_id: string; body: string }>(
      `select v.id as conversation_id, m.body from messages m join conversations v on v.contact_id = m.contact_id
       where m.organization_id = $1 and m.direction = 'outbound' and m.source = 'automation'`,
      [t.organizationId],
    );
    expect(sent).toEqual([{ conversation_id: y.conversation_id, body: expect.stringContaining("522533") }]);
    expect(await rawQuery(`select message_id from automation_runs where organization_id = $1`, [t.organizationId])).toEqual([
      { message_id: y.id },
    ]);
  });

  it("a conversation that reached its cap while a batch decided: the batch's planned reply is not queued", async () => {
    const t = await tenant("Toi Market Stalls");
    await createRule(t.actor, priceRule);
    const customer = "254712400301";
    // The hour's replies but one, each a real answer to a real message.
    for (let i = 0; i < CONVERSATION_HOURLY_CAP - 1; i++) await customerWrites(t, customer, `bei ${i}?`);
    expect(await automated(t.organizationId)).toHaveLength(CONVERSATION_HOURLY_CAP - 1);
    // Two more of the customer's messages stored, and another customer's for the assistant.
    const rule = (await rawQuery<{ id: string }>(`select id from automation_rules where organization_id = $1`, [t.organizationId]))[0]!;
    await setRuleEnabled(t.actor, rule.id, false);
    const inBatch = await storedQuietly(t, customer, "bei ya viatu?");
    const meanwhile = await storedQuietly(t, customer, "bei ya mikoba?");
    const y = await storedQuietly(t, "254712400302", "What is your paybill number?");
    await setRuleEnabled(t.actor, rule.id, true);
    await withAssistant(t);
    // While the batch waits on Y's model call, another worker answers the customer's other message: the cap is reached.
    duringModelCall = async () => {
      expect(await runAutomation({ organizationId: t.organizationId, messageId: meanwhile.id })).toMatchObject({ kind: "answer" });
    };
    await runAutomations([job(t, inBatch.id, 1), job(t, y.id, 2)]);
    const replies = await rawQuery<{ message_id: string }>(
      `select r.message_id from automation_runs r where r.conversation_id = $1 and r.reply_id is not null`,
      [inBatch.conversation_id],
    );
    expect(replies).toHaveLength(CONVERSATION_HOURLY_CAP);
    expect(replies.map((r) => r.message_id)).toContain(meanwhile.id);
    expect(replies.map((r) => r.message_id)).not.toContain(inBatch.id);
  });
});

describe("the checks made before the gate only save work, and each is tested", () => {
  it("a held conversation's message costs no job on arrival", async () => {
    const t = await tenant("Baraka Hardware Ltd");
    const member = await agent(t.organizationId);
    await createRule(t.actor, priceRule);
    await customerWrites(t, "254712400401", "habari");
    const [conversation] = await rawQuery<{ id: string }>(`select id from conversations where organization_id = $1`, [t.organizationId]);
    await sendReply({ organizationId: t.organizationId, userId: member }, await conversationOf(t.organizationId, conversation!.id), {
      text: "Karibu, nitakusaidia.",
    });
    await customerWrites(t, "254712400401", "bei ya saruji?");
    const jobs = await rawQuery<{ queue: string }>(
      `select j.queue from messages m join jobs j on j.unique_key = 'automation:' || m.id where m.organization_id = $1`,
      [t.organizationId],
    );
    expect(jobs).toEqual([]);
    expect(await automated(t.organizationId)).toEqual([]);
  });

  it("a held conversation's message spends no model call when its job runs", async () => {
    const t = await tenant("Kericho Tea Growers");
    const member = await agent(t.organizationId);
    const x = await storedQuietly(t, "254712400501", "What is your paybill number?");
    await withAssistant(t);
    await sendReply({ organizationId: t.organizationId, userId: member }, await conversationOf(t.organizationId, x.conversation_id), {
      text: "Karibu, nitakusaidia.",
    });
    const calls = modelCalls;
    expect(await runAutomation({ organizationId: t.organizationId, messageId: x.id })).toEqual({ kind: "none", why: "held" });
    expect(modelCalls).toBe(calls);
  });

  it("a conversation at its cap spends no model call", async () => {
    const t = await tenant("Mombasa Spice Traders");
    const x = await storedQuietly(t, "254712400601", "What is your paybill number?");
    await withAssistant(t);
    await rawQuery(
      `insert into automation_runs (organization_id, conversation_id, phone_number_id, kind, reply_id)
       select $1, $2, $3, 'welcome', gen_random_uuid() from generate_series(1, $4)`,
      [t.organizationId, x.conversation_id, t.phoneNumberId, CONVERSATION_HOURLY_CAP],
    );
    const calls = modelCalls;
    expect(await runAutomation({ organizationId: t.organizationId, messageId: x.id })).toEqual({ kind: "none", why: "capped" });
    expect(modelCalls).toBe(calls);
  });
});

describe("the gate's checks, each on its own", () => {
  async function scene(name: string) {
    const t = await tenant(name);
    const x = await storedQuietly(t, "254712400701", "bei?");
    const ask = (over: Partial<ReplyAsk> = {}): ReplyAsk => ({
      conversationId: x.conversation_id,
      phoneNumberId: t.phoneNumberId,
      sends: true,
      freeForm: true,
      answering: x.id,
      ...over,
    });
    const gate = (asks: ReplyAsk[]) => db().transaction((tx) => admitAutomatedReplies(tx, asks));
    return { t, x, ask, gate };
  }

  it("admits a reply to an open, unheld conversation, and refuses one held by a person", async () => {
    const { t, x, ask, gate } = await scene("Nyota Savings Sacco");
    expect(await gate([ask()])).toEqual([null]);
    await assignConversation(
      { organizationId: t.organizationId, userId: t.userId },
      await conversationOf(t.organizationId, x.conversation_id),
      t.userId,
    );
    expect(await gate([ask(), ask({ sends: false })])).toEqual(["held", "held"]);
  });

  it("refuses a reply to a message the customer opted out after, and a flow's own message to an opted-out customer", async () => {
    const { t, x, ask, gate } = await scene("Jamii Insurance Agency");
    await customerWrites(t, "254712400701", "STOP");
    const [contact] = await rawQuery<{ opt_in: string }>(`select opt_in from contacts where organization_id = $1`, [t.organizationId]);
    expect(contact!.opt_in).toBe("opted_out");
    expect(await gate([ask(), ask({ answering: null })])).toEqual(["opted_out", "opted_out"]);
    // A message they write after opting out is theirs to ask: it may be answered.
    const later = await storedQuietly(t, "254712400701", "bei ya bima?");
    expect(await gate([ask({ answering: later.id })])).toEqual([null]);
    expect(x.conversation_id).toBe(later.conversation_id);
  });

  it("refuses a free-form reply once the customer's window has closed, not a template", async () => {
    const { x, ask, gate } = await scene("Eldoret Dairy Co-op");
    await rawQuery(`update conversations set last_inbound_at = now() - interval '25 hours' where id = $1`, [x.conversation_id]);
    expect(await gate([ask(), ask({ freeForm: false }), ask({ sends: false })])).toEqual(["window_closed", null, null]);
  });

  it("holds the conversation's cap and the number's exactly, counting the asks admitted before", async () => {
    const { t, x, ask, gate } = await scene("Coastline Fisheries");
    await rawQuery(
      `insert into automation_runs (organization_id, conversation_id, phone_number_id, kind, reply_id)
       select $1, $2, $3, 'welcome', gen_random_uuid() from generate_series(1, $4)`,
      [t.organizationId, x.conversation_id, t.phoneNumberId, CONVERSATION_HOURLY_CAP - 2],
    );
    expect(await gate([ask(), ask(), ask(), ask({ sends: false })])).toEqual([null, null, "capped", null]);
    // The number's hour, made in other conversations: one reply left.
    await rawQuery(`delete from automation_runs where conversation_id = $1`, [x.conversation_id]);
    await rawQuery(
      `insert into automation_runs (organization_id, phone_number_id, kind, reply_id)
       select $1, $2, 'welcome', gen_random_uuid() from generate_series(1, $3)`,
      [t.organizationId, t.phoneNumberId, NUMBER_HOURLY_CAP - 1],
    );
    expect(await gate([ask(), ask()])).toEqual([null, "capped"]);
  });
});

describe("holding a conversation", () => {
  it("is refused by the database without the conversation's lock, and allowed under it", async () => {
    const t = await tenant("Nakuru Fresh Produce");
    const x = await storedQuietly(t, "254712400801", "habari");
    const hold = sql`update conversations set person_held_at = now() where id = ${x.conversation_id}`;
    const refused = await db()
      .transaction((tx) => tx.execute(hold))
      .then(
        () => null,
        (error: Error & { cause?: Error }) => error.cause?.message ?? error.message,
      );
    expect(refused).toMatch(/held by a person without its lock/);
    const held = async () =>
      (
        await rawQuery<{ held: boolean }>(`select person_held_at is not null as held from conversations where id = $1`, [x.conversation_id])
      )[0]!.held;
    expect(await held()).toBe(false);
    await db().transaction(async (tx) => {
      await lockConversations(tx, [x.conversation_id]);
      await tx.execute(hold);
    });
    expect(await held()).toBe(true);
  });
});

// PostgreSQL only: PGlite has one connection, so no other transaction can hold a lock.
describe.skipIf(!process.env.TEST_DATABASE_URL)("the gate and a person taking over at the same moment", () => {
  it("waits for the person's transaction on the conversation's lock, then reads the hold it committed", async () => {
    const t = await tenant("Kisumu Lakeside Traders");
    const x = await storedQuietly(t, "254712400901", "bei?");
    const person = new pg.Client({ connectionString: testDatabaseUrl() });
    await person.connect();
    try {
      await person.query("begin");
      await person.query("select pg_advisory_xact_lock(hashtext($1))", [conversationLockKey(x.conversation_id)]);
      await person.query("update conversations set person_held_at = now() where id = $1", [x.conversation_id]);
      const verdict = db().transaction((tx) =>
        admitAutomatedReplies(tx, [
          { conversationId: x.conversation_id, phoneNumberId: t.phoneNumberId, sends: true, freeForm: true, answering: x.id },
        ]),
      );
      await vi.waitFor(
        async () => {
          const [waiting] = await rawQuery<{ n: number }>(
            `select count(*)::int as n from pg_locks where locktype = 'advisory' and not granted`,
          );
          expect(waiting!.n).toBe(1);
        },
        { timeout: 30_000, interval: 20 },
      );
      await person.query("commit");
      expect(await verdict).toEqual(["held"]);
    } finally {
      await person.end();
    }
  });
});
