import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { env, setEnv } from "~/.server/infrastructure/config/env";
import { drainJobs } from "~/.server/infrastructure/jobs/worker";
import { createRule } from "~/.server/domains/automations/rules";
import { createFlow, getFlow, publishFlow, updateFlow, deleteFlow } from "~/.server/domains/automations/flows/store";
import { saveStep } from "~/.server/domains/automations/flows/builder";
import { startFlowAnswer } from "~/.server/domains/automations/flows/answer";
import { timeOutIdleSessions, wakeSession } from "~/.server/domains/automations/flows/jobs";
import { callHttp } from "~/.server/domains/automations/flows/http";
import { CONVERSATION_HOURLY_CAP } from "~/.server/domains/automations/reply-gate";
import { isRefusal } from "~/.server/infrastructure/refusal";
import { FLOW_STEPS_MAX, FLOWS_MAX } from "~/lib/schemas/flows";
import { createVerifiedUser } from "../support/accounts";
import { metaSandboxForFile } from "../support/meta-harness";

// Chatbot flows (issue 44): a keyword rule starts a flow; the customer's messages answer its
// questions (typed or tapped); branches, retries and give-up, versions pinned while a session runs,
// the idle timeout, an opt-out, the 24-hour window, the HTTP step, the limits, tenants apart.

const meta = metaSandboxForFile();

async function tenant(name: string) {
  const user = await createVerifiedUser({ businessName: name });
  const actor = { organizationId: user.organization.id, userId: user.user.id };
  return { ...actor, actor, ...(await meta.graph.connect(user.organization.id, name)) };
}
type Tenant = Awaited<ReturnType<typeof tenant>>;

async function until<T>(read: () => Promise<T>, check: (value: T) => boolean) {
  return vi.waitFor(
    async () => {
      await drainJobs();
      const value = await read();
      if (!check(value)) throw new Error(`not yet: ${JSON.stringify(value)}`);
      return value;
    },
    { timeout: 30_000, interval: 25 },
  );
}

const outbound = (organizationId: string) =>
  rawQuery<{ body: string; message_type: string; source: string; payload: unknown }>(
    `select body, message_type, source, payload from messages where organization_id = $1 and direction = 'outbound' order by seq`,
    [organizationId],
  );
const inboundCount = async (organizationId: string) =>
  (
    await rawQuery<{ n: number }>(`select count(*)::int as n from messages where organization_id = $1 and direction = 'inbound'`, [
      organizationId,
    ])
  )[0]!.n;
const sessions = (organizationId: string) =>
  rawQuery<{ id: string; status: string; step_id: string; vars: Record<string, unknown>; flow_version_id: string; retries: number }>(
    `select id, status, step_id, vars, flow_version_id, retries from flow_sessions where organization_id = $1 order by started_at, id`,
    [organizationId],
  );

/** A customer sends something (a text, or a tap on a button Jumbe sent); answers once every job it set off has run. */
async function customerSends(t: Tenant, input: Record<string, unknown>) {
  const before = await inboundCount(t.organizationId);
  await meta.sandbox.sendInbound({ phoneNumberId: t.phoneNumberId, name: "Achieng Otieno", ...input } as Parameters<
    typeof meta.sandbox.sendInbound
  >[0]);
  await until(
    () => inboundCount(t.organizationId),
    (n) => n === before + 1,
  );
  await drainJobs();
}
const customerWrites = (t: Tenant, from: string, text: string) => customerSends(t, { from, text });

/** The customer taps the button titled `title` of the last interactive message Jumbe queued for them (as Meta sends the tap). */
async function customerTaps(t: Tenant, from: string, title: string) {
  const [last] = await rawQuery<{
    wamid: string | null;
    payload: { interactive?: { action?: { buttons?: { reply: { id: string; title: string } }[] } } };
  }>(
    `select wamid, payload from messages where organization_id = $1 and direction = 'outbound' and message_type = 'interactive'
     order by seq desc limit 1`,
    [t.organizationId],
  );
  const button = last!.payload.interactive!.action!.buttons!.find((b) => b.reply.title === title)!;
  await customerSends(t, { from, type: "button_reply", replyId: button.reply.id, title, contextId: last!.wamid ?? "wamid.queued" });
}

/** A flow made through the builder's own functions, published, and started by the keyword `trigger`. */
async function liveFlow(
  t: Tenant,
  name: string,
  steps: Record<string, unknown>[],
  trigger: string,
  idle?: { minutes: number; text: string },
) {
  const flow = await createFlow(t.actor, { name, idleMinutes: idle?.minutes, idleText: idle?.text });
  for (const step of steps) await saveStep(t.actor, flow.id, step as Parameters<typeof saveStep>[2]);
  await publishFlow(t.actor, flow.id);
  await createRule(t.actor, { name: `Start ${name}`, matchType: "exact", keywords: [trigger], flowId: flow.id });
  return getFlow(t.organizationId, flow.id);
}

const deliveryFlow = [
  { type: "question", text: "Karibu! Jina lako ni nani?", input: "text", variable: "name" },
  {
    type: "question",
    text: "Asante {{name}}. Delivery or pick-up?",
    input: "buttons",
    choices: ["Delivery", "Pick-up"],
    validate: "choice",
    variable: "choice",
  },
];

describe("chatbot flows", () => {
  it("takes a customer through a three-step flow: a typed answer, a tapped button, a branch, the end", async () => {
    const t = await tenant("Duka la Mama Njeri");
    const flow = await createFlow(t.actor, { name: "Delivery or pick-up" });
    for (const step of deliveryFlow) await saveStep(t.actor, flow.id, step as Parameters<typeof saveStep>[2]);
    const withQuestions = await getFlow(t.organizationId, flow.id);
    const [, choice] = withQuestions.steps;
    await saveStep(t.actor, flow.id, { type: "message", text: "Tutakuletea leo, {{name}}." } as Parameters<typeof saveStep>[2]);
    await saveStep(t.actor, flow.id, { type: "end" } as Parameters<typeof saveStep>[2]);
    await saveStep(t.actor, flow.id, { type: "message", text: "Karibu dukani Kawangware, {{contact.name}}." } as Parameters<
      typeof saveStep
    >[2]);
    const built = await getFlow(t.organizationId, flow.id);
    const [, , delivery, , pickUp] = built.steps;
    // The branch goes after the choice: on "Delivery" to the delivery message, else to the pick-up one.
    const branch = await saveStep(t.actor, flow.id, {
      type: "branch",
      source: "answer",
      operator: "equals",
      value: "Delivery",
      then: delivery!.id,
      else: pickUp!.id,
    } as Parameters<typeof saveStep>[2]);
    const steps = branch.steps;
    const reordered = [steps[0], steps[1], steps[5], steps[2], steps[3], steps[4]];
    await updateFlow(t.actor, flow.id, { steps: reordered });
    expect(choice!.type).toBe("question");
    await publishFlow(t.actor, flow.id);
    await createRule(t.actor, { name: "Order start", matchType: "exact", keywords: ["order"], flowId: flow.id });
    // A loopback address, refused at delivery without a connection: the test reads the queued event, no network.
    await rawQuery(`insert into webhook_endpoints (organization_id, url, events) values ($1, 'http://127.0.0.1:9/jumbe', $2)`, [
      t.organizationId,
      ["flow.completed"],
    ]);

    await customerWrites(t, "254712300001", "Order");
    expect((await outbound(t.organizationId)).map((m) => m.body)).toEqual(["Karibu! Jina lako ni nani?"]);
    await customerWrites(t, "254712300001", "Achieng");
    const asked = await outbound(t.organizationId);
    expect(asked.map((m) => [m.message_type, m.body])).toEqual([
      ["text", "Karibu! Jina lako ni nani?"],
      ["interactive", "Asante Achieng. Delivery or pick-up?"],
    ]);
    await customerTaps(t, "254712300001", "Delivery");
    expect((await outbound(t.organizationId)).map((m) => m.body).at(-1)).toBe("Tutakuletea leo, Achieng.");
    expect(await sessions(t.organizationId)).toEqual([
      expect.objectContaining({ status: "completed", vars: expect.objectContaining({ name: "Achieng", choice: "Delivery" }) }),
    ]);
    // Its end is the flow.completed webhook, with the customer's answers.
    const [completed] = await rawQuery<{ event_type: string; payload: { data: Record<string, unknown> } }>(
      `select event_type, payload from webhook_deliveries where organization_id = $1`,
      [t.organizationId],
    );
    expect(completed).toMatchObject({
      event_type: "flow.completed",
      payload: { data: { flowId: flow.id, flowName: "Delivery or pick-up", version: 1, answers: { name: "Achieng", choice: "Delivery" } } },
    });
    // Every reply is the flow's run, labelled as automated.
    // The first run is the rule that started the flow (its figures count it).
    const runs = await rawQuery<{ kind: string; by_rule: boolean }>(
      `select kind, rule_id is not null as by_rule from automation_runs where organization_id = $1 order by created_at`,
      [t.organizationId],
    );
    expect(runs).toEqual([
      { kind: "flow", by_rule: true },
      { kind: "flow", by_rule: false },
      { kind: "flow", by_rule: false },
    ]);
    expect((await outbound(t.organizationId)).every((m) => m.source === "automation")).toBe(true);
    // Another customer types the choice's words (or its number) instead of tapping: the other branch.
    await customerWrites(t, "254712300002", "order");
    await customerWrites(t, "254712300002", "Brian");
    await customerWrites(t, "254712300002", "2");
    expect((await outbound(t.organizationId)).map((m) => m.body).at(-1)).toBe("Karibu dukani Kawangware, Achieng Otieno.");
    const listed = await getFlow(t.organizationId, flow.id);
    expect(listed).toMatchObject({ completedSessions: 2, activeSessions: 0, liveVersion: 1, unpublished: false });
  });

  it("asks again after a wrong answer, and gives up to the chosen step after the last try", async () => {
    const t = await tenant("Pwani Water Refills");
    await liveFlow(
      t,
      "Litres",
      [
        {
          type: "question",
          text: "How many litres?",
          input: "text",
          validate: "number",
          variable: "litres",
          retryText: "Send a number, e.g. 20.",
          maxTries: 2,
          giveUpTo: "end",
        },
        { type: "message", text: "Sawa, {{litres}} litres." },
      ],
      "maji",
    );
    await customerWrites(t, "254712300003", "maji");
    await customerWrites(t, "254712300003", "many");
    expect((await outbound(t.organizationId)).map((m) => m.body)).toEqual([
      "How many litres?",
      "Send a number, e.g. 20.",
      "How many litres?",
    ]);
    expect((await sessions(t.organizationId))[0]).toMatchObject({ status: "active", retries: 1 });
    await customerWrites(t, "254712300003", "lots");
    // The second wrong answer gives up: the flow ends without a word; the customer is free again.
    expect(await outbound(t.organizationId)).toHaveLength(3);
    expect((await sessions(t.organizationId))[0]).toMatchObject({ status: "stopped" });
    await customerWrites(t, "254712300003", "maji");
    await customerWrites(t, "254712300003", "1,000");
    expect((await outbound(t.organizationId)).map((m) => m.body).slice(-2)).toEqual(["How many litres?", "Sawa, 1000 litres."]);
  });

  it("keeps a running session on the version it started, while new ones start on the newly published one", async () => {
    const t = await tenant("Kisumu Fish Mongers");
    const flow = await liveFlow(
      t,
      "Versions",
      [
        { type: "question", text: "Which fish?", input: "text", variable: "fish" },
        { type: "message", text: "Version one: {{fish}}." },
      ],
      "samaki",
    );
    await customerWrites(t, "254712300004", "samaki");
    // Edited and published while the customer is in it.
    const steps = flow.steps.map((s) => (s.type === "message" ? { ...s, text: "Version two: {{fish}}." } : s));
    await updateFlow(t.actor, flow.id, { steps });
    expect((await getFlow(t.organizationId, flow.id)).unpublished).toBe(true);
    const published = await publishFlow(t.actor, flow.id);
    expect(published).toMatchObject({ liveVersion: 2, olderSessions: 1 });
    await customerWrites(t, "254712300004", "Tilapia");
    expect((await outbound(t.organizationId)).map((m) => m.body).at(-1)).toBe("Version one: Tilapia.");
    await customerWrites(t, "254712300005", "samaki");
    await customerWrites(t, "254712300005", "Omena");
    expect((await outbound(t.organizationId)).map((m) => m.body).at(-1)).toBe("Version two: Omena.");
  });

  it("times out an idle session with its idle text, and ends one quietly once the window has closed", async () => {
    const t = await tenant("Nakuru Tailors");
    await liveFlow(t, "Idle", [{ type: "question", text: "Size?", input: "text", variable: "size" }], "size", {
      minutes: 30,
      text: "Tutaongea baadaye.",
    });
    await customerWrites(t, "254712300006", "size");
    expect(await timeOutIdleSessions(new Date(Date.now() + 10 * 60_000))).toBe(0);
    expect(await timeOutIdleSessions(new Date(Date.now() + 31 * 60_000))).toBe(1);
    expect((await outbound(t.organizationId)).map((m) => m.body)).toEqual(["Size?", "Tutaongea baadaye."]);
    expect((await sessions(t.organizationId))[0]).toMatchObject({ status: "timed_out" });
    // The idle text is the flow's, labelled so in the inbox like the question before it.
    expect(
      await rawQuery(
        `select m.body, r.kind from messages m join automation_runs r on r.id = m.automation_run_id
         where m.organization_id = $1 and m.direction = 'outbound' order by m.seq`,
        [t.organizationId],
      ),
    ).toEqual([
      { body: "Size?", kind: "flow" },
      { body: "Tutaongea baadaye.", kind: "flow" },
    ]);

    await customerWrites(t, "254712300006", "size");
    // The customer's window closed meanwhile (their last message two days ago): nothing can be sent.
    await rawQuery(`update conversations set last_inbound_at = now() - interval '2 days' where organization_id = $1`, [t.organizationId]);
    expect(await timeOutIdleSessions(new Date(Date.now() + 31 * 60_000))).toBe(1);
    expect((await outbound(t.organizationId)).map((m) => m.body)).toEqual(["Size?", "Tutaongea baadaye.", "Size?"]);
    expect((await sessions(t.organizationId))[1]).toMatchObject({ status: "timed_out" });
  });

  it("goes on after a wait inside the window, and stops quietly when the window closed during the wait", async () => {
    const t = await tenant("Eldoret Dairy");
    await liveFlow(
      t,
      "Reminder",
      [
        { type: "message", text: "Tutakukumbusha." },
        { type: "wait", minutes: 60 },
        { type: "message", text: "Ukumbusho: maziwa yako yako tayari." },
      ],
      "maziwa",
    );
    await customerWrites(t, "254712300007", "maziwa");
    const [waiting] = await sessions(t.organizationId);
    const job = await rawQuery<{ run_at: Date }>(`select run_at from jobs where queue = 'flows.wake' and unique_key like $1`, [
      `flow-wake:${waiting!.id}:%`,
    ]);
    expect(job).toHaveLength(1);
    await wakeSession({ sessionId: waiting!.id, stepId: waiting!.step_id });
    expect((await outbound(t.organizationId)).map((m) => m.body)).toEqual(["Tutakukumbusha.", "Ukumbusho: maziwa yako yako tayari."]);
    expect((await sessions(t.organizationId))[0]).toMatchObject({ status: "completed" });
    // The message after the wait is the flow's too (a run of its own: no customer message set it off).
    expect(
      await rawQuery(
        `select m.body, r.kind, r.message_id from messages m join automation_runs r on r.id = m.automation_run_id
         where m.organization_id = $1 and m.direction = 'outbound' order by m.seq`,
        [t.organizationId],
      ),
    ).toEqual([
      { body: "Tutakukumbusha.", kind: "flow", message_id: expect.any(String) },
      { body: "Ukumbusho: maziwa yako yako tayari.", kind: "flow", message_id: null },
    ]);

    await customerWrites(t, "254712300007", "maziwa");
    await rawQuery(`update conversations set last_inbound_at = now() - interval '2 days' where organization_id = $1`, [t.organizationId]);
    const [, second] = await sessions(t.organizationId);
    await wakeSession({ sessionId: second!.id, stepId: second!.step_id });
    expect((await outbound(t.organizationId)).map((m) => m.body).at(-1)).toBe("Tutakukumbusha.");
    expect((await sessions(t.organizationId))[1]).toMatchObject({ status: "stopped" });
  });

  it("keeps a wait's message back once the conversation has had its hour's automated replies (the reply gate), and stops the session", async () => {
    const t = await tenant("Kitale Maize Millers");
    await liveFlow(
      t,
      "Reminder",
      [
        { type: "message", text: "Tutakukumbusha." },
        { type: "wait", minutes: 60 },
        { type: "message", text: "Ukumbusho: unga wako uko tayari." },
      ],
      "unga",
    );
    await customerWrites(t, "254712300017", "unga");
    const [waiting] = await sessions(t.organizationId);
    // The conversation's other automated replies of the hour, made while the flow waited.
    await rawQuery(
      `insert into automation_runs (organization_id, conversation_id, phone_number_id, kind, reply_id)
       select v.organization_id, v.id, v.phone_number_id, 'rule', gen_random_uuid() from conversations v, generate_series(1, $2)
       where v.organization_id = $1`,
      [t.organizationId, CONVERSATION_HOURLY_CAP - 1],
    );
    await wakeSession({ sessionId: waiting!.id, stepId: waiting!.step_id });
    expect((await outbound(t.organizationId)).map((m) => m.body)).toEqual(["Tutakukumbusha."]);
    expect((await sessions(t.organizationId))[0]).toMatchObject({ status: "stopped" });
  });

  it("ends the session when the customer opts out (STOP, ACHA): the consent ledger answers, the flow never again", async () => {
    const t = await tenant("Mombasa Spices");
    await liveFlow(
      t,
      "Spices",
      [
        { type: "question", text: "Which spice?", input: "text", variable: "spice" },
        { type: "message", text: "Sawa." },
      ],
      "viungo",
    );
    await customerWrites(t, "254712300008", "viungo");
    await customerWrites(t, "254712300008", "ACHA");
    expect((await sessions(t.organizationId))[0]).toMatchObject({ status: "stopped" });
    const sent = await outbound(t.organizationId);
    expect(sent.map((m) => m.source)).toEqual(["automation", "system"]);
    await customerWrites(t, "254712300008", "Pilipili");
    expect(await outbound(t.organizationId)).toHaveLength(2);
  });

  it("hands over to a person: the conversation is held and the bot falls silent", async () => {
    const t = await tenant("Thika Hardware");
    await liveFlow(
      t,
      "Person",
      [{ type: "message", text: "Tunakuunganisha na mtu." }, { type: "handover" }, { type: "message", text: "never" }],
      "mtu",
    );
    await customerWrites(t, "254712300009", "mtu");
    expect((await outbound(t.organizationId)).map((m) => m.body)).toEqual(["Tunakuunganisha na mtu."]);
    expect((await sessions(t.organizationId))[0]).toMatchObject({ status: "handed_over" });
    const [conversation] = await rawQuery<{ assigned_to: string | null; person_held_at: Date | null }>(
      `select assigned_to, person_held_at from conversations where organization_id = $1`,
      [t.organizationId],
    );
    expect(conversation).toMatchObject({ assigned_to: t.userId, person_held_at: expect.any(Date) });
    await customerWrites(t, "254712300009", "mtu");
    expect(await outbound(t.organizationId)).toHaveLength(1);
  });

  describe("the HTTP step", () => {
    let server: Server;
    let port = 0;
    const calls: string[] = [];
    let original = env();
    beforeEach(() => {
      original = env();
      setEnv({ ...original, WEBHOOK_ALLOW_LOOPBACK: true });
    });
    afterEach(() => setEnv(original));
    beforeAll(async () => {
      server = createServer((request, response) => {
        calls.push(`${request.method} ${request.url}`);
        const found = request.url === "/orders/1234";
        response.writeHead(found ? 200 : 404, { "content-type": "application/json" });
        response.end(JSON.stringify(found ? { status: "shipped", rider: { name: "Otieno" } } : { error: "not found" }));
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      port = (server.address() as AddressInfo).port;
    });
    afterAll(async () => {
      await new Promise((resolve) => server.close(resolve));
    });

    it("calls the address with the customer's answer in it, and later steps read its JSON", async () => {
      const t = await tenant("Jiji Couriers");
      const flow = await createFlow(t.actor, { name: "Order status" });
      const steps = [
        { id: "ask", type: "question", text: "Order number?", input: "text", validate: "number", variable: "order" },
        { id: "look", type: "http", method: "GET", url: `http://127.0.0.1:${port}/orders/{{order}}` },
        {
          id: "check",
          type: "branch",
          source: "variable",
          key: "http.status",
          operator: "equals",
          value: "shipped",
          then: "found",
          else: "missing",
        },
        { id: "found", type: "message", text: "Order {{order}} is {{http.status}}; rider {{http.rider.name}}." },
        { id: "done", type: "end" },
        { id: "missing", type: "message", text: "We could not find order {{order}} ({{http_status}})." },
      ];
      await updateFlow(t.actor, flow.id, { steps });
      await publishFlow(t.actor, flow.id);
      await createRule(t.actor, { name: "Status", matchType: "contains", keywords: ["status"], flowId: flow.id });
      await customerWrites(t, "254712300010", "status");
      await customerWrites(t, "254712300010", "1234");
      expect((await outbound(t.organizationId)).map((m) => m.body).at(-1)).toBe("Order 1234 is shipped; rider Otieno.");
      await customerWrites(t, "254712300011", "status please");
      await customerWrites(t, "254712300011", "999");
      expect((await outbound(t.organizationId)).map((m) => m.body).at(-1)).toBe("We could not find order 999 (404).");
      expect(calls).toEqual(["GET /orders/1234", "GET /orders/999"]);
    });

    it("refuses at save and at publish an address it would refuse to call, and changes nothing (decision 099)", async () => {
      const t = await tenant("Save Guard Couriers");
      const flow = await createFlow(t.actor, { name: "Lookup" });
      const http = (url: string) => [{ id: "look", type: "http", method: "GET", url }];
      const refusedAt = async (url: string) => {
        const error = await updateFlow(t.actor, flow.id, { steps: http(url) }).catch((e: unknown) => e);
        return isRefusal(error) ? { status: error.status, field: error.field, message: error.message } : error;
      };
      setEnv({ ...original, WEBHOOK_ALLOW_LOOPBACK: false });
      expect(await refusedAt("http://127.0.0.1/orders")).toMatchObject({
        status: 400,
        field: "steps[0].url",
        message: "The address must not point to a private, loopback or link-local network.",
      });
      expect(await refusedAt("https://169.254.169.254/latest/meta-data")).toMatchObject({ status: 400, field: "steps[0].url" });
      expect(await refusedAt("http://[::ffff:10.0.0.1]/x")).toMatchObject({ status: 400, field: "steps[0].url" });
      expect(await refusedAt("file:///etc/passwd")).toMatchObject({ status: 400, field: "steps[0].url" });
      expect(await refusedAt("gopher://8.8.8.8:70/_x")).toMatchObject({ status: 400, field: "steps[0].url" });
      expect(await refusedAt("https://user:secret@8.8.8.8/x")).toMatchObject({
        message: "The address must not contain a user name or password.",
      });
      // A variable may fill the path and the query, never the scheme or the host.
      for (const url of ["https://{{host}}/orders", "{{base}}/orders", "https://8.8.8.8:{{port}}/x", "https://8.8.8.{{n}}/x"])
        expect(await refusedAt(url), url).toMatchObject({
          status: 400,
          field: "steps[0].url",
          message: expect.stringContaining("{{order}}"),
        });
      expect((await getFlow(t.organizationId, flow.id)).steps).toEqual([]);
      // A host name is looked up when saved; one not found (yet) is left to the call's check.
      await updateFlow(t.actor, flow.id, { steps: http("https://no-such-host.invalid/orders") });
      await updateFlow(t.actor, flow.id, { steps: http("https://8.8.8.8/orders/{{order}}?q={{order}}") });

      // A draft stored before these rules is not published as it is.
      await rawQuery(`update flows set steps = $2::jsonb where id = $1`, [flow.id, JSON.stringify(http("http://127.0.0.1/orders"))]);
      expect(await publishFlow(t.actor, flow.id).catch((e: unknown) => isRefusal(e) && e.field)).toBe("steps[0].url");
      expect((await getFlow(t.organizationId, flow.id)).liveVersion).toBeNull();
    });

    it("refuses at the call what a variable or an old step makes of the address", async () => {
      setEnv({ ...original, WEBHOOK_ALLOW_LOOPBACK: false });
      const before = calls.length;
      for (const url of [
        "file:///etc/passwd",
        "gopher://127.0.0.1:70/_x",
        `http://127.0.0.1:${port}/orders/1234`,
        "https://169.254.169.254/",
      ])
        expect(await callHttp("GET", url, null), url).toEqual({ status: 0, json: null });
      expect(calls.length).toBe(before);
    });

    it("refuses private addresses, and loopback unless the switch (never in production) allows it", async () => {
      const before = calls.length;
      expect(await callHttp("GET", "http://10.1.2.3/orders", null)).toEqual({ status: 0, json: null });
      expect(await callHttp("GET", "http://169.254.169.254/latest/meta-data", null)).toEqual({ status: 0, json: null });
      setEnv({ ...original, WEBHOOK_ALLOW_LOOPBACK: false });
      expect(await callHttp("GET", `http://127.0.0.1:${port}/orders/1234`, null)).toEqual({ status: 0, json: null });
      setEnv({ ...original, WEBHOOK_ALLOW_LOOPBACK: true });
      expect(calls.length).toBe(before);
    });
  });

  it("holds the limits: steps a flow and flows an organisation, refused with their words", async () => {
    const t = await tenant("Limits Ltd");
    const flow = await createFlow(t.actor, { name: "Long" });
    const many = Array.from({ length: FLOW_STEPS_MAX }, (_, i) => ({ id: `s${i}`, type: "message", text: `Step ${i + 1}` }));
    await updateFlow(t.actor, flow.id, { steps: many });
    const tooMany = await saveStep(t.actor, flow.id, { type: "end" } as Parameters<typeof saveStep>[2]).catch((e: unknown) => e);
    expect(isRefusal(tooMany) && tooMany.status === 409 && tooMany.message).toBe(`At most ${FLOW_STEPS_MAX} steps a flow.`);
    for (let i = 1; i < FLOWS_MAX; i++) await createFlow(t.actor, { name: `Flow ${i}` });
    const over = await createFlow(t.actor, { name: "One more" }).catch((e: unknown) => e);
    expect(isRefusal(over) && over.status === 409 && over.code).toBe("flow_limit");
    await deleteFlow(t.actor, flow.id);
    await expect(createFlow(t.actor, { name: "One more" })).resolves.toMatchObject({ name: "One more" });
  });

  it("keeps tenants apart: another organisation's flow is not found, and its rule cannot start it", async () => {
    const a = await tenant("Tenant A Flows");
    const b = await tenant("Tenant B Flows");
    const flow = await liveFlow(a, "Secret", [{ type: "message", text: "A only" }], "siri");
    const foreign = await getFlow(b.organizationId, flow.id).catch((e: unknown) => e);
    expect(isRefusal(foreign) && foreign.status).toBe(404);
    const refused = await createRule(b.actor, { name: "Steal", matchType: "exact", keywords: ["siri"], flowId: flow.id }).catch(
      (e: unknown) => e,
    );
    expect(isRefusal(refused) && refused.field).toBe("flowId");
    const inbound = {
      organizationId: b.organizationId,
      id: "x",
      body: "siri",
      messageType: "text",
      payload: {},
      phoneNumberId: b.phoneNumberId,
      contactId: "00000000-0000-4000-8000-000000000000",
      phone: "+254712300012",
      conversationId: "00000000-0000-4000-8000-000000000000",
      timeZone: "Africa/Nairobi",
      firstEver: false,
      locale: "en" as const,
    };
    expect(await startFlowAnswer(inbound, flow.id)).toBeNull();
  });
});
