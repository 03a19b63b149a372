import { describe, expect, it } from "vitest";
import { db, rawQuery } from "~/.server/infrastructure/db/client";
import { drainJobs } from "~/.server/infrastructure/jobs/worker";
import { drainDispatcher } from "~/.server/domains/messaging/dispatcher";
import { createRule, deleteRule, getRule, listRules, moveRule, updateRule } from "~/.server/domains/automations/rules";
import { readAutomationSettings, saveAutomationSettings } from "~/.server/domains/automations/settings";
import {
  AUTOMATION_ARRIVAL_QUEUE,
  AUTOMATION_QUEUE,
  runAutomationsArrival,
  runAutomation,
  runAutomations,
  CONVERSATION_HOURLY_CAP,
  NUMBER_HOURLY_CAP,
} from "~/.server/domains/automations/run";
import { isRefusal } from "~/.server/infrastructure/refusal";
import { assignConversation } from "~/.server/domains/inbox/actions";
import { findConversation } from "~/.server/domains/inbox/list";
import { metaSandboxForFile } from "../support/meta-harness";
import { automationHarness, inboundCount, outbound, runs, until } from "../support/automation-harness";

// Automations (issue 44): a keyword rule answers a customer's message once, a welcome greets a first
// message ever, an away message answers outside business hours once a day; a consent keyword, a
// person holding the conversation, a cooldown and the caps keep them quiet; tenants never share rules.

const meta = metaSandboxForFile();

const { tenant, customerWrites } = automationHarness(meta);

const priceRule = {
  name: "Prices",
  matchType: "contains",
  keywords: ["bei", "price"],
  reply: "Bei zetu: Starter KES 2,000 kwa mwezi. Tuma PLANS kwa zaidi.",
  addTags: ["asked-price"],
};

/** The organisation's conversations assigned to its owner in the inbox: held by a person. */
async function assignedToMember(t: Awaited<ReturnType<typeof tenant>>) {
  const conversations = await rawQuery<{ id: string }>(`select id from conversations where organization_id = $1`, [t.organizationId]);
  for (const { id } of conversations) await assignConversation(t.actor, (await findConversation(t.organizationId, id))!, t.userId);
}

const allClosed = { 0: [], 1: [], 2: [], 3: [], 4: [], 5: [], 6: [] };
const allOpen = Object.fromEntries([0, 1, 2, 3, 4, 5, 6].map((d) => [d, [{ from: "00:00", to: "24:00" }]])) as typeof allClosed;

describe("automations", () => {
  it("answers a matching message once from its rule, tags the contact, and the reply is labelled and never sets one off", async () => {
    const t = await tenant("Nyota Savings Sacco");
    const rule = await createRule(t.actor, priceRule);
    const { wamid } = await customerWrites(t, "254712000201", "Habari, bei gani ya Starter?");
    const sent = await outbound(t.organizationId);
    expect(sent).toEqual([
      { id: expect.any(String), body: priceRule.reply, source: "automation", automation_run_id: expect.any(String), context_wamid: wamid },
    ]);
    expect(await runs(t.organizationId)).toEqual([
      { kind: "rule", rule_id: rule.id, reply_id: expect.any(String), message_id: expect.any(String) },
    ]);
    expect((await getRule(t.organizationId, rule.id)).firedCount).toBe(1);
    expect((await rawQuery<{ tags: string[] }>(`select tags from contacts where phone = '+254712000201'`))[0]!.tags).toEqual([
      "asked-price",
    ]);
    // It reaches WhatsApp, and nothing it sent is an inbound message: no second run.
    await drainDispatcher();
    expect(meta.sandbox.messages({ phoneNumberId: t.phoneNumberId })).toHaveLength(1);
    await drainJobs();
    expect(await runs(t.organizationId)).toHaveLength(1);
    // The job again (a retry after a crash): nothing more is sent.
    const [run] = await runs(t.organizationId);
    expect(await runAutomation({ organizationId: t.organizationId, messageId: run!.message_id })).toBeNull();
    expect(await outbound(t.organizationId)).toHaveLength(1);
  });

  it("lets a consent keyword win, and stays silent while a person holds the conversation", async () => {
    const t = await tenant("Pwani Tours");
    await createRule(t.actor, { name: "Stop words", matchType: "contains", keywords: ["acha", "stop"], reply: "Sawa!" });
    await customerWrites(t, "254712000202", "ACHA");
    // The consent ledger answers (source system); the rule does not.
    expect((await outbound(t.organizationId)).map((m) => m.source)).toEqual(["system"]);
    expect(await runs(t.organizationId)).toEqual([]);

    await createRule(t.actor, priceRule);
    await assignedToMember(t);
    await customerWrites(t, "254712000202", "bei gani?");
    expect((await outbound(t.organizationId)).map((m) => m.source)).toEqual(["system"]);
    expect(await runs(t.organizationId)).toEqual([]);
  });

  it("greets a first message ever, answers outside hours once a day, and holds a rule back during its cooldown", async () => {
    const t = await tenant("Mama Mboga Supplies");
    await saveAutomationSettings(
      t.actor,
      {
        welcomeEnabled: true,
        welcomeText: "Karibu Mama Mboga!",
        awayEnabled: true,
        awayText: "Tumefunga kwa sasa.",
        days: allClosed,
        holidays: [],
        holidayMode: false,
      },
      "Africa/Nairobi",
    );
    await customerWrites(t, "254712000203", "Hello");
    await customerWrites(t, "254712000203", "Are you there?");
    await customerWrites(t, "254712000203", "Hello again");
    // The welcome for the first; the away message once for the next two (closed all week).
    expect((await outbound(t.organizationId)).map((m) => m.body)).toEqual(["Karibu Mama Mboga!", "Tumefunga kwa sasa."]);
    expect((await runs(t.organizationId)).map((r) => r.kind)).toEqual(["welcome", "away"]);

    // Open all the time: no away message; a rule with a cooldown answers once in its hour.
    await saveAutomationSettings(t.actor, { ...(await readAutomationSettings(t.organizationId)), days: allOpen }, "Africa/Nairobi");
    await createRule(t.actor, { ...priceRule, cooldownMinutes: 60 });
    await customerWrites(t, "254712000203", "price?");
    await customerWrites(t, "254712000203", "price please");
    expect((await outbound(t.organizationId)).map((m) => m.body)).toEqual(["Karibu Mama Mboga!", "Tumefunga kwa sasa.", priceRule.reply]);
  });

  it("stops at the cap of automated replies a conversation gets in an hour", async () => {
    const t = await tenant("Kisumu Traders");
    await createRule(t.actor, { name: "Echo", matchType: "contains", keywords: ["hi"], reply: "Hi there!" });
    for (let i = 0; i < CONVERSATION_HOURLY_CAP + 2; i++) await customerWrites(t, "254712000204", `hi ${i}`);
    expect(await outbound(t.organizationId)).toHaveLength(CONVERSATION_HOURLY_CAP);
  });

  it("decides outside the webhook's transaction: one arrival job a batch, none without automations; a consent keyword's answer is the ledger's; a retried one answers nothing twice", async () => {
    const t = await tenant("Naivasha Flowers");
    const arrivals = () =>
      rawQuery<{ id: number; payload: { messages: { organizationId: string; messageId: string }[] }; finished: boolean }>(
        `select id::int as id, payload, finished_at is not null as finished from jobs where queue = $1 and payload->'messages'->0->>'organizationId' = $2 order by id`,
        [AUTOMATION_ARRIVAL_QUEUE, t.organizationId],
      );
    const messageId = async (from: string, body: string) =>
      (
        await rawQuery<{ id: string }>(
          `select id from messages where organization_id = $1 and direction = 'inbound' and body = $2 and recipient_phone = $3`,
          [t.organizationId, body, `+${from}`],
        )
      )[0]!.id;
    const automated = async () => (await outbound(t.organizationId)).filter((m) => m.source === "automation").map((m) => m.body);
    await customerWrites(t, "254712000216", "bei ya waridi?");
    expect(await arrivals()).toEqual([]);

    await createRule(t.actor, { ...priceRule, keywords: ["bei", "acha"] });
    await customerWrites(t, "254712000216", "ACHA");
    // Read by an arrival job, answered by the consent ledger alone (source system), never by the rule.
    expect(await arrivals()).toEqual([
      {
        id: expect.any(Number),
        payload: { messages: [{ organizationId: t.organizationId, messageId: await messageId("254712000216", "ACHA") }] },
        finished: true,
      },
    ]);
    expect((await outbound(t.organizationId)).map((m) => m.source)).toEqual(["system"]);

    await customerWrites(t, "254712000217", "bei ya waridi?");
    const [, arrival, ...more] = await arrivals();
    expect(more).toEqual([]);
    expect(arrival).toEqual({
      id: expect.any(Number),
      payload: { messages: [{ organizationId: t.organizationId, messageId: await messageId("254712000217", "bei ya waridi?") }] },
      finished: true,
    });
    expect(await automated()).toEqual([priceRule.reply]);
    // The same job again (a worker that crashed after its work committed elsewhere): no second reply.
    await db().transaction((tx) =>
      runAutomationsArrival(tx, [{ id: arrival!.id, queue: AUTOMATION_ARRIVAL_QUEUE, attempts: 2, payload: arrival!.payload }]),
    );
    await drainJobs();
    expect(await automated()).toEqual([priceRule.reply]);
  });

  it("answers nothing on a number that sent its hour's replies, decided by its arrival job, and answers again an hour on", async () => {
    const t = await tenant("Kericho Tea Growers");
    await createRule(t.actor, priceRule);
    // The number's hour of automated replies, made half an hour ago (to other customers).
    await rawQuery(
      `insert into automation_runs (organization_id, phone_number_id, kind, reply_id, created_at)
       select $1, $2, 'welcome', gen_random_uuid(), now() - interval '30 minutes' from generate_series(1, $3)`,
      [t.organizationId, t.phoneNumberId, NUMBER_HOURLY_CAP],
    );
    await customerWrites(t, "254712000215", "bei ya chai?");
    const jobs = () =>
      rawQuery<{ body: string; queue: string | null }>(
        `select m.body, j.queue from messages m left join jobs j on j.unique_key = 'automation:' || m.id
         where m.organization_id = $1 and m.direction = 'inbound' order by m.seq`,
        [t.organizationId],
      );
    expect(await jobs()).toEqual([{ body: "bei ya chai?", queue: null }]);
    expect(await outbound(t.organizationId)).toEqual([]);
    // One reply fewer in the hour: the next message is answered.
    await rawQuery(
      `update automation_runs set created_at = now() - interval '61 minutes'
       where id = (select id from automation_runs where organization_id = $1 and message_id is null limit 1)`,
      [t.organizationId],
    );
    await customerWrites(t, "254712000215", "bei tena?");
    expect(await jobs()).toEqual([
      { body: "bei ya chai?", queue: null },
      { body: "bei tena?", queue: AUTOMATION_QUEUE },
    ]);
    expect((await outbound(t.organizationId)).map((m) => m.body)).toEqual([priceRule.reply]);
  });

  it("holds the cap exactly when a conversation's messages are answered side by side", async () => {
    const t = await tenant("Eldoret Agrovet");
    // Written before the organisation had automations: no jobs; then every run at once.
    for (let i = 0; i < CONVERSATION_HOURLY_CAP + 5; i++) await customerWrites(t, "254712000208", `hi ${i}`);
    await createRule(t.actor, { name: "Echo", matchType: "contains", keywords: ["hi"], reply: "Hi there!" });
    const ids = await rawQuery<{ id: string }>(`select id from messages where organization_id = $1 and direction = 'inbound'`, [
      t.organizationId,
    ]);
    await Promise.all(ids.map(({ id }) => runAutomation({ organizationId: t.organizationId, messageId: id })));
    expect(await outbound(t.organizationId)).toHaveLength(CONVERSATION_HOURLY_CAP);
  });

  it("queues a job only for a message an automation may answer, decided by its arrival job", async () => {
    const t = await tenant("Nanyuki Dairy");
    await createRule(t.actor, priceRule);
    await customerWrites(t, "254712000211", "Habari za asubuhi");
    await customerWrites(t, "254712000211", "Bei ya maziwa?");
    await assignedToMember(t);
    await customerWrites(t, "254712000211", "Bei tena?");
    const jobs = await rawQuery<{ body: string; queue: string | null }>(
      `select m.body, j.queue from messages m left join jobs j on j.unique_key = 'automation:' || m.id
       where m.organization_id = $1 and m.direction = 'inbound' order by m.seq`,
      [t.organizationId],
    );
    // No rule, welcome or away for the first; a person holds the conversation for the last.
    expect(jobs).toEqual([
      { body: "Habari za asubuhi", queue: null },
      { body: "Bei ya maziwa?", queue: AUTOMATION_QUEUE },
      { body: "Bei tena?", queue: null },
    ]);
    expect((await outbound(t.organizationId)).map((m) => m.body)).toEqual([priceRule.reply]);
  });

  it("decides a batch's messages on the counts its own replies left: the away message once, the cap held", async () => {
    const t = await tenant("Thika Hardware");
    // Written before the organisation had automations: no jobs; then all in one batch, as the worker claims them.
    for (let i = 0; i < CONVERSATION_HOURLY_CAP + 2; i++) await customerWrites(t, "254712000209", `hi ${i}`);
    for (const text of ["Habari", "Uko wapi?", "Hello"]) await customerWrites(t, "254712000210", text);
    await saveAutomationSettings(
      t.actor,
      {
        welcomeEnabled: false,
        welcomeText: "",
        awayEnabled: true,
        awayText: "Tumefunga kwa sasa.",
        days: allClosed,
        holidays: [],
        holidayMode: false,
      },
      "Africa/Nairobi",
    );
    await createRule(t.actor, { name: "Echo", matchType: "contains", keywords: ["hi"], reply: "Hi there!" });
    const ids = await rawQuery<{ id: string }>(
      `select id from messages where organization_id = $1 and direction = 'inbound' order by seq`,
      [t.organizationId],
    );
    await runAutomations(
      ids.map(({ id }, i) => ({
        id: i,
        queue: AUTOMATION_QUEUE,
        attempts: 1,
        payload: { organizationId: t.organizationId, messageId: id },
      })),
    );
    const bodies = (await outbound(t.organizationId)).map((m) => m.body);
    expect(bodies.filter((b) => b === "Hi there!")).toHaveLength(CONVERSATION_HOURLY_CAP);
    expect(bodies.filter((b) => b === "Tumefunga kwa sasa.")).toHaveLength(1);
    expect(bodies).toHaveLength(CONVERSATION_HOURLY_CAP + 1);
  });

  it("answers each message once when two workers run the same batch at the same time", async () => {
    const t = await tenant("Meru Fresh Produce");
    const customers: [string, string][] = [
      ["254712000212", "bei ya sukuma?"],
      ["254712000213", "price of cabbage"],
      ["254712000214", "bei tafadhali"],
    ];
    for (const [from, text] of customers) await customerWrites(t, from, text);
    const rule = await createRule(t.actor, priceRule);
    const ids = await rawQuery<{ id: string }>(
      `select id from messages where organization_id = $1 and direction = 'inbound' order by seq`,
      [t.organizationId],
    );
    const jobs = ids.map(({ id }, i) => ({
      id: i,
      queue: AUTOMATION_QUEUE,
      attempts: 1,
      payload: { organizationId: t.organizationId, messageId: id },
    }));
    await Promise.all([runAutomations(jobs), runAutomations(jobs)]);
    expect((await outbound(t.organizationId)).map((m) => m.body)).toEqual([priceRule.reply, priceRule.reply, priceRule.reply]);
    expect((await runs(t.organizationId)).map((r) => r.reply_id !== null)).toEqual([true, true, true]);
    // The batch's effects (folded into one statement at its end) happened once an answer, not once a worker.
    expect((await getRule(t.organizationId, rule.id)).firedCount).toBe(3);
    const tagged = await rawQuery<{ phone: string; tags: string[] }>(
      `select phone, tags from contacts where organization_id = $1 order by phone`,
      [t.organizationId],
    );
    expect(tagged).toEqual(customers.map(([from]) => ({ phone: `+${from}`, tags: ["asked-price"] })));
  });

  it("replies with a list, or with an approved template (priced as one), and refuses a template it could not fill", async () => {
    const t = await tenant("Kericho Tea Growers");
    const list = await createRule(t.actor, {
      name: "Branches",
      matchType: "contains",
      keywords: ["tawi", "branch"],
      reply: "Chagua tawi lako:",
      listButton: "Matawi",
      listRows: ["Kericho", "Litein", "Bomet"],
    });
    await customerWrites(t, "254712000215", "Tawi lililo karibu?");
    const [sent] = await rawQuery<{ message_type: string; payload: { interactive: unknown } }>(
      `select message_type, payload from messages where organization_id = $1 and direction = 'outbound'`,
      [t.organizationId],
    );
    expect(sent!.message_type).toBe("interactive");
    expect(sent!.payload.interactive).toMatchObject({
      type: "list",
      body: { text: "Chagua tawi lako:" },
      action: {
        button: "Matawi",
        sections: [{ rows: ["Kericho", "Litein", "Bomet"].map((title, i) => ({ id: `rule:${list.id}:${i + 1}`, title })) }],
      },
    });

    meta.sandbox.createTemplateAtMeta(t.wabaId, {
      name: "bei_ya_chai",
      language: "en",
      category: "UTILITY",
      components: [{ type: "BODY", text: "Tea prices this week: {{1}}.", example: { body_text: [["KES 24 a kilo"]] } }],
    });
    await rawQuery(
      `insert into message_templates (organization_id, waba_id, name, language, category, status, components)
       values ($1, $2, 'bei_ya_chai', 'en', 'UTILITY', 'approved', $3::jsonb)`,
      [t.organizationId, t.wabaId, JSON.stringify([{ type: "BODY", text: "Tea prices this week: {{1}}." }])],
    );
    const refused = await createRule(t.actor, {
      name: "Tea prices",
      matchType: "contains",
      keywords: ["bei ya chai"],
      template: "bei_ya_chai|en",
      templateParameters: [],
    }).catch((error: unknown) => error);
    expect(isRefusal(refused) && refused.message).toBe(
      "This template takes 1 variables: give them one a line, each at most 1,024 characters.",
    );
    await createRule(t.actor, {
      name: "Tea prices",
      matchType: "contains",
      keywords: ["bei ya chai"],
      template: "bei_ya_chai|en",
      templateParameters: ["KES 24 a kilo"],
    });
    await customerWrites(t, "254712000215", "Bei ya chai leo?");
    const [template] = await rawQuery<{
      message_type: string;
      body: string;
      charge_state: string | null;
      automation_run_id: string | null;
    }>(
      `select message_type, body, charge_state, automation_run_id from messages
       where organization_id = $1 and direction = 'outbound' and message_type = 'template'`,
      [t.organizationId],
    );
    // Priced as any template message: a postpaid organisation's is counted for its invoice once Meta accepts it.
    expect(template).toEqual({
      message_type: "template",
      body: "Template bei_ya_chai: KES 24 a kilo",
      charge_state: "unbilled",
      automation_run_id: expect.any(String),
    });
  });

  it("ignores echoes of the business's own messages: nothing stored as the customer's, nothing answered", async () => {
    const t = await tenant("Voi Hardware");
    await createRule(t.actor, priceRule);
    await customerWrites(t, "254712000216", "Habari");
    // What the business sent from the WhatsApp Business app, echoed by Meta (coexistence): it says "bei".
    await meta.sandbox.sendRaw({
      object: "whatsapp_business_account",
      entry: [
        {
          id: t.wabaId,
          changes: [
            {
              field: "smb_message_echoes",
              value: {
                messaging_product: "whatsapp",
                metadata: { display_phone_number: "254700000000", phone_number_id: t.phoneNumberId },
                message_echoes: [
                  {
                    from: "254700000000",
                    to: "254712000216",
                    id: "wamid.echo-voi-1",
                    timestamp: String(Math.floor(Date.now() / 1000)),
                    type: "text",
                    text: { body: "Bei ya saruji ni KES 750." },
                  },
                ],
              },
            },
          ],
        },
      ],
    });
    await until(
      () =>
        rawQuery<{ n: number }>(
          `select count(*)::int as n from webhook_events where body like '%wamid.echo-voi-1%' and processed_at is not null`,
        ),
      (rows) => rows[0]!.n === 1,
    );
    expect(await inboundCount(t.organizationId)).toBe(1);
    expect(await outbound(t.organizationId)).toEqual([]);
    expect(await runs(t.organizationId)).toEqual([]);
  });

  it("keeps each organisation's rules to itself: another's id is not found, and its customers hear nothing of them", async () => {
    const a = await tenant("Nyota Savings Sacco");
    const b = await tenant("Pwani Tours");
    const rule = await createRule(a.actor, priceRule);
    for (const attempt of [
      () => getRule(b.organizationId, rule.id),
      () => updateRule(b.actor, rule.id, priceRule),
      () => deleteRule(b.actor, rule.id),
      () => moveRule(b.actor, rule.id, "up"),
    ]) {
      const refusal = await attempt().catch((error: unknown) => error);
      expect(isRefusal(refusal, "automation") && refusal.status).toBe(404);
    }
    await customerWrites(b, "254712000205", "bei?");
    expect(await outbound(b.organizationId)).toEqual([]);
    expect(await listRules(b.organizationId)).toEqual([]);
  });

  it("refuses a rule it could not run safely or that does nothing, and stores nothing", async () => {
    const t = await tenant("Nyota Savings Sacco");
    for (const [input, field] of [
      [{ ...priceRule, matchType: "regex", keywords: ["(a+)+$"] }, "keywords"],
      [{ ...priceRule, keywords: [" ", ""] }, "keywords"],
      [{ ...priceRule, name: "" }, "name"],
      [{ ...priceRule, reply: "", addTags: [] }, "reply"],
      [{ ...priceRule, matchType: "sounds_like" }, "matchType"],
      [{ ...priceRule, matchType: "fuzzy", threshold: 0.2 }, "threshold"],
      [{ ...priceRule, cooldownMinutes: -5 }, "cooldownMinutes"],
      [{ ...priceRule, phoneNumberId: "999" }, "phoneNumberId"],
    ] as const) {
      const refusal = await createRule(t.actor, input as never).catch((error: unknown) => error);
      expect(isRefusal(refusal, "automation") && { status: refusal.status, field: refusal.field }, JSON.stringify(input)).toEqual({
        status: 400,
        field,
      });
    }
    expect(await listRules(t.organizationId)).toEqual([]);
  });

  it("tries rules in their order, which a move changes", async () => {
    const t = await tenant("Nyota Savings Sacco");
    const general = await createRule(t.actor, { name: "General", matchType: "contains", keywords: ["loan"], reply: "General loans" });
    await createRule(t.actor, { name: "School fees", matchType: "contains", keywords: ["school fees loan"], reply: "School fees loans" });
    await customerWrites(t, "254712000206", "I need a school fees loan");
    await moveRule(t.actor, general.id, "down");
    expect((await listRules(t.organizationId)).map((r) => r.name)).toEqual(["School fees", "General"]);
    // Moving the last one further down changes nothing and is not logged; the move itself is.
    await moveRule(t.actor, general.id, "down");
    expect(
      await rawQuery(`select details from activity_logs where organization_id = $1 and action = 'Automation rule moved'`, [
        t.organizationId,
      ]),
    ).toEqual([{ details: "General" }]);
    await customerWrites(t, "254712000207", "I need a school fees loan");
    expect((await outbound(t.organizationId)).map((m) => m.body)).toEqual(["General loans", "School fees loans"]);
  });

  it("sets a contact field in its type, and refuses a field the organisation does not have or a value not in its type", async () => {
    const t = await tenant("Shamba Bora Agrovet");
    await rawQuery(
      `insert into contact_attributes (organization_id, key, label, type) values ($1, 'county', 'County', 'text'), ($1, 'acres', 'Acres', 'number')`,
      [t.organizationId],
    );
    const refused = async (setField: { key: string; value: string }) => {
      try {
        await createRule(t.actor, { name: "Mbegu", matchType: "contains", keywords: ["mbegu"], setField });
      } catch (error) {
        if (isRefusal(error)) return error.field;
        throw error;
      }
      return "saved";
    };
    expect(await refused({ key: "region", value: "Nakuru" })).toBe("fieldKey");
    expect(await refused({ key: "acres", value: "tano" })).toBe("fieldValue");
    expect(await listRules(t.organizationId)).toEqual([]);

    await createRule(t.actor, {
      name: "Ekari",
      matchType: "contains",
      keywords: ["ekari"],
      reply: "Asante!",
      setField: { key: "acres", value: "2" },
    });
    await createRule(t.actor, {
      name: "Nakuru",
      matchType: "contains",
      keywords: ["nakuru"],
      setField: { key: "county", value: "Nakuru" },
    });
    await customerWrites(t, "254712000401", "Nina ekari mbili");
    await customerWrites(t, "254712000401", "Niko Nakuru");
    const [contact] = await rawQuery<{ attributes: Record<string, unknown> }>(
      `select attributes from contacts where organization_id = $1`,
      [t.organizationId],
    );
    expect(contact!.attributes).toEqual({ acres: 2, county: "Nakuru" });
  });
});
