import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { PRODUCTION_PAYMENTS } from "../support/production-env";
import http, { type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { and, eq, sql } from "drizzle-orm";
import { db } from "~/.server/infrastructure/db/client";
import { countStatements } from "~/.server/infrastructure/db/statement-count";
import { queryRows } from "~/.server/infrastructure/db/query";
import { activityLogs, jobs, messages, notifications, webhookDeliveries, webhookEndpoints } from "~/.server/infrastructure/db/schema";
import { parseEnv, setEnv } from "~/.server/infrastructure/config/env";
import { registerJobHandlers } from "~/.server/composition/job-handlers";
import { drainJobs } from "~/.server/infrastructure/jobs/worker";
import { claimJobs, completeJobs } from "~/.server/infrastructure/jobs/queue";
import { checkWebhookUrl } from "~/.server/domains/webhooks-out/endpoint";
import { enqueueMessageEvents, WEBHOOK_OUT_QUEUE, type DeliveryJob, type MessageEvent } from "~/.server/domains/webhooks-out/events";
import { requeueLostDeliveries, RETRY_SCHEDULE_SECONDS, runDeliveryJobs } from "~/.server/domains/webhooks-out/deliver";
import { RESPONSE_KEEP_BYTES } from "~/.server/domains/webhooks-out/send";
import { enforceRetention } from "~/.server/domains/housekeeping/retention";
import * as developersPage from "~/routes/app/developers";
import { createVerifiedUser, latestMailTo, signedInCookie } from "../support/accounts";
import { formRequest, getRequest, run } from "../support/http";

// Webhooks out (issue 12, decision 021): events from the messages table to the tenant's own URL,
// signed as Standard Webhooks says and checked here with that project's own library
// (`standardwebhooks`). The receiver listens on loopback, which the SSRF rules refuse unless
// WEBHOOK_ALLOW_LOOPBACK is set (tests and local trials only; production refuses the switch).

registerJobHandlers();

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}
type Answer = { status: number; body?: string; headers?: Record<string, string> };

let received: Received[] = [];
let answer: (request: Received) => Answer = () => ({ status: 200, body: "ok" });
let receiver: http.Server;
let port = 0;

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const request = { path: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString("utf8") };
      received.push(request);
      const reply = answer(request);
      res.writeHead(reply.status, reply.headers ?? { "content-type": "text/plain" });
      res.end(reply.body ?? "");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  port = (receiver.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((resolve) => receiver.close(resolve));
});

const withLoopback = (allow: boolean) =>
  setEnv(parseEnv({ NODE_ENV: "test", APP_URL: "http://jumbe.test", ...(allow ? { WEBHOOK_ALLOW_LOOPBACK: "1" } : {}) }));

beforeEach(() => {
  withLoopback(true);
  received = [];
  answer = () => ({ status: 200, body: "ok" });
});

const hookUrl = (path = "/hooks") => `http://127.0.0.1:${port}${path}`;

async function tenant(name: string, endpoint?: { url?: string; events?: string[] }) {
  const account = await createVerifiedUser({ businessName: name });
  const cookie = await signedInCookie(account.email, account.password);
  const t = { ...account, cookie, organizationId: account.organization.id };
  if (endpoint) {
    const saved = await post(t, {
      intent: "webhook",
      url: endpoint.url ?? hookUrl(),
      events: endpoint.events ?? ["message.delivered", "message.read", "message.failed", "message.received"],
    });
    expect(saved.status, JSON.stringify(saved.data)).toBe(302);
  }
  return t;
}
type Tenant = Awaited<ReturnType<typeof tenant>>;

const post = (t: { cookie: string }, fields: Record<string, string | string[]>) =>
  run(developersPage.action, formRequest("/developers", fields, { cookie: t.cookie }));
const page = (t: Tenant, query = "") => run(developersPage.loader, getRequest(`/developers${query}`, { cookie: t.cookie }));
const secretOf = async (t: Tenant) => (await page(t, "?secret=1")).data.secret as string;

async function message(organizationId: string, fields: Partial<typeof messages.$inferInsert> = {}) {
  const [row] = await db()
    .insert(messages)
    .values({
      organizationId,
      direction: "outbound",
      status: "delivered",
      body: "Habari Amina, your order KE-1042 ships today.",
      wamid: `wamid.${Math.random().toString(36).slice(2)}`,
      phoneNumberId: "1000000000000002",
      messageType: "text",
      recipientPhone: "+254712345678",
      recipientWaId: "254712345678",
      sentAt: new Date("2026-11-20T09:00:00.000Z"),
      deliveredAt: new Date("2026-11-20T09:00:02.500Z"),
      pricingCategory: "utility",
      pricingType: "regular",
      billable: true,
      ...fields,
    })
    .returning();
  return row!;
}

async function deliveriesOf(organizationId: string) {
  return db().select().from(webhookDeliveries).where(eq(webhookDeliveries.organizationId, organizationId));
}

/** The queue's pending delivery jobs, as the worker would see them once due. */
async function pendingDeliveryJobs() {
  return queryRows<{ id: number; run_at: Date | string; payload: DeliveryJob }>(
    db(),
    sql`
    select id, run_at, payload from jobs where queue = ${WEBHOOK_OUT_QUEUE} and finished_at is null and failed_at is null order by id`,
  );
}

/** A controlled clock: the scheduled retries become due now (their run_at is read before). */
async function makeRetriesDue() {
  await db().execute(sql`update jobs set run_at = now() where queue = ${WEBHOOK_OUT_QUEUE} and finished_at is null and failed_at is null`);
}

function verify(secret: string, request: Received) {
  return new Webhook(secret).verify(request.body, {
    "webhook-id": String(request.headers["webhook-id"]),
    "webhook-timestamp": String(request.headers["webhook-timestamp"]),
    "webhook-signature": String(request.headers["webhook-signature"]),
  });
}

describe("events and their queue", () => {
  it("queues only subscribed events of enabled endpoints, in one statement, and each message's event once", async () => {
    const a = await tenant("Alpha Sacco", { events: ["message.delivered", "message.failed"] });
    const b = await tenant("Beta Traders"); // no endpoint
    const c = await tenant("Gamma Chama", {});
    await db().update(webhookEndpoints).set({ disabledAt: new Date() }).where(eq(webhookEndpoints.organizationId, c.organizationId));
    const delivered = await message(a.organizationId);
    const inbound = await message(a.organizationId, { direction: "inbound", status: "received", recipientPhone: null });
    const theirs = await message(b.organizationId);
    const disabled = await message(c.organizationId);
    const events: MessageEvent[] = [
      { organizationId: a.organizationId, type: "message.delivered", messageId: delivered.id },
      { organizationId: a.organizationId, type: "message.read", messageId: delivered.id },
      { organizationId: a.organizationId, type: "message.received", messageId: inbound.id },
      { organizationId: b.organizationId, type: "message.delivered", messageId: theirs.id },
      { organizationId: c.organizationId, type: "message.delivered", messageId: disabled.id },
      // Another tenant's message id cannot be reported for this one.
      { organizationId: a.organizationId, type: "message.failed", messageId: theirs.id },
    ];
    const { result: queued, statements } = await db().transaction((tx) => countStatements(() => enqueueMessageEvents(tx, events)));
    expect(statements).toBe(1);
    expect(queued).toBe(1);
    expect((await deliveriesOf(a.organizationId)).map((d) => [d.eventType, d.messageId])).toEqual([["message.delivered", delivered.id]]);
    expect(await deliveriesOf(b.organizationId)).toEqual([]);
    expect(await deliveriesOf(c.organizationId)).toEqual([]);
    expect(await pendingDeliveryJobs()).toHaveLength(1);
    // The same status reported again (a replayed webhook) queues nothing more.
    expect(await enqueueMessageEvents(db(), events.slice(0, 1))).toBe(0);
    expect(await enqueueMessageEvents(db(), [])).toBe(0);
    expect(await pendingDeliveryJobs()).toHaveLength(1);
  });

  it("delivers a payload signed as Standard Webhooks says, verified by the standardwebhooks library", async () => {
    const t = await tenant("Signed Ltd", {});
    const secret = await secretOf(t);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), "base64")).toHaveLength(32);
    const failed = await message(t.organizationId, {
      status: "failed",
      deliveredAt: null,
      failedAt: new Date("2026-11-20T09:01:00.000Z"),
      errorCode: 131026,
      errorTitle: "Message undeliverable",
      errorDetails: "The recipient is not on WhatsApp.",
      pricingCategory: null,
      pricingType: null,
      billable: null,
    });
    const ok = await message(t.organizationId);
    await db().transaction((tx) =>
      enqueueMessageEvents(tx, [
        { organizationId: t.organizationId, type: "message.delivered", messageId: ok.id },
        { organizationId: t.organizationId, type: "message.failed", messageId: failed.id },
      ]),
    );
    await drainJobs();
    expect(received).toHaveLength(2);
    const bodies = received.map((request) => {
      expect(request.path).toBe("/hooks");
      expect(request.headers["content-type"]).toBe("application/json");
      expect(request.headers["user-agent"]).toMatch(/^Jumbe-Webhooks\/1\.0 /);
      expect(request.headers["webhook-id"]).toMatch(/^msg_[0-9a-f-]{36}$/);
      expect(String(request.headers["webhook-signature"])).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      // The library checks the signature and that the timestamp is recent.
      expect(verify(secret, request)).toEqual(JSON.parse(request.body));
      return JSON.parse(request.body);
    });
    const byType = Object.fromEntries(bodies.map((b) => [b.type, b]));
    expect(Object.keys(byType["message.delivered"])).toEqual(["type", "timestamp", "data"]);
    expect(byType["message.delivered"]).toEqual({
      type: "message.delivered",
      timestamp: "2026-11-20T09:00:02.500Z",
      data: {
        id: ok.id,
        direction: "outbound",
        channel: "whatsapp",
        status: "delivered",
        type: "text",
        from: null,
        to: "+254712345678",
        waId: "254712345678",
        contactId: null,
        phoneNumberId: "1000000000000002",
        wamid: ok.wamid,
        body: "Habari Amina, your order KE-1042 ships today.",
        error: null,
        pricing: { category: "utility", type: "regular", billable: true },
        createdAt: ok.createdAt.toISOString(),
        sentAt: "2026-11-20T09:00:00.000Z",
        deliveredAt: "2026-11-20T09:00:02.500Z",
        readAt: null,
        failedAt: null,
      },
    });
    expect(byType["message.failed"]).toMatchObject({
      type: "message.failed",
      timestamp: "2026-11-20T09:01:00.000Z",
      data: {
        status: "failed",
        error: { code: 131026, title: "Message undeliverable", details: "The recipient is not on WhatsApp." },
        pricing: null,
      },
    });
    // A changed body or another secret fails verification.
    expect(() => verify(secret, { ...received[0]!, body: received[0]!.body.replace("delivered", "read") })).toThrow();
    expect(() => verify(`whsec_${Buffer.alloc(32, 7).toString("base64")}`, received[0]!)).toThrow();

    const listed = (await page(t)).data.deliveries;
    expect(listed).toHaveLength(2);
    expect(listed.every((d: { status: string; responseStatus: number; attempts: number }) => d.status === "delivered")).toBe(true);
    expect(listed[0]).toMatchObject({ responseStatus: 200, responseBody: "ok", attempts: 1, nextAttemptAt: null, error: null });
  });
});

describe("retries", () => {
  it("retries a failure on the written schedule (three days), keeping 1 KB of each answer, then gives up", async () => {
    const t = await tenant("Retry Ltd", {});
    answer = () => ({ status: 500, body: "x".repeat(3000) });
    const m = await message(t.organizationId);
    await enqueueMessageEvents(db(), [{ organizationId: t.organizationId, type: "message.delivered", messageId: m.id }]);
    // The schedule covers three days: 5 s, 5 min, 30 min, 2 h, 5 h, then 10 h steps.
    const total = RETRY_SCHEDULE_SECONDS.reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThanOrEqual(3 * 24 * 3600);
    expect(RETRY_SCHEDULE_SECONDS.slice(0, 5)).toEqual([5, 300, 1800, 7200, 18_000]);
    const ids = new Set<string>();
    for (const [i, delay] of RETRY_SCHEDULE_SECONDS.entries()) {
      await drainJobs();
      const [d] = await deliveriesOf(t.organizationId);
      expect(d).toMatchObject({ status: "pending", attempts: i + 1, responseStatus: 500, error: "HTTP 500" });
      expect(d!.responseBody).toHaveLength(RESPONSE_KEEP_BYTES);
      const [job] = await pendingDeliveryJobs();
      // The next attempt's job runs `delay` seconds after this attempt (both written in one transaction).
      expect((new Date(job!.run_at).getTime() - d!.lastAttemptAt!.getTime()) / 1000).toBe(delay);
      expect(d!.nextAttemptAt!.getTime()).toBe(new Date(job!.run_at).getTime());
      await makeRetriesDue();
    }
    await drainJobs();
    const [last] = await deliveriesOf(t.organizationId);
    expect(last).toMatchObject({ status: "failed", attempts: RETRY_SCHEDULE_SECONDS.length + 1, nextAttemptAt: null });
    expect(await pendingDeliveryJobs()).toEqual([]);
    for (const request of received) ids.add(String(request.headers["webhook-id"]));
    // Every attempt carries the same webhook-id: receivers deduplicate on it.
    expect(received).toHaveLength(RETRY_SCHEDULE_SECONDS.length + 1);
    expect(ids.size).toBe(1);
  });

  it("does not follow a redirect: a 3xx is a failure and the new location is never called", async () => {
    const t = await tenant("Redirect Ltd", {});
    answer = (request) => (request.path === "/hooks" ? { status: 302, headers: { location: hookUrl("/elsewhere") } } : { status: 200 });
    const m = await message(t.organizationId);
    await enqueueMessageEvents(db(), [{ organizationId: t.organizationId, type: "message.delivered", messageId: m.id }]);
    await drainJobs();
    expect(received.map((r) => r.path)).toEqual(["/hooks"]);
    const [d] = await deliveriesOf(t.organizationId);
    expect(d).toMatchObject({ status: "pending", responseStatus: 302, error: `Redirect not followed (to ${hookUrl("/elsewhere")}).` });
    const row = (await page(t)).data.deliveries[0];
    expect(row).toMatchObject({ responseStatus: 302, attempts: 1 });
    expect(row.nextAttemptAt).not.toBeNull();
  });

  it("records a refused connection in words and retries it", async () => {
    const t = await tenant("Closed Ltd", {});
    // A port nobody listens on: take one from the kernel and close it again.
    const probe = http.createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const closed = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    await db()
      .update(webhookEndpoints)
      .set({ url: `http://127.0.0.1:${closed}/hooks` })
      .where(eq(webhookEndpoints.organizationId, t.organizationId));
    const m = await message(t.organizationId);
    await enqueueMessageEvents(db(), [{ organizationId: t.organizationId, type: "message.delivered", messageId: m.id }]);
    await drainJobs();
    const [d] = await deliveriesOf(t.organizationId);
    expect(d).toMatchObject({ status: "pending", responseStatus: null, error: "Connection refused." });
    const [endpoint] = await db().select().from(webhookEndpoints).where(eq(webhookEndpoints.organizationId, t.organizationId));
    expect(endpoint!.failingSince).not.toBeNull();
    // The endpoint answers again: the retry succeeds and the endpoint's failing time is cleared.
    await db().update(webhookEndpoints).set({ url: hookUrl() }).where(eq(webhookEndpoints.organizationId, t.organizationId));
    await makeRetriesDue();
    await drainJobs();
    expect((await deliveriesOf(t.organizationId))[0]).toMatchObject({ status: "delivered", attempts: 2, error: null });
    const [healthy] = await db().select().from(webhookEndpoints).where(eq(webhookEndpoints.organizationId, t.organizationId));
    expect(healthy!.failingSince).toBeNull();
  });
});

describe("the SSRF check at delivery", () => {
  /** Runs the due delivery jobs with `resolve` as DNS, as the worker does with the system's. */
  async function deliverWith(resolve: (host: string) => Promise<string[]>) {
    const claimed = await claimJobs<DeliveryJob>(WEBHOOK_OUT_QUEUE, 10, 60_000);
    await runDeliveryJobs(claimed, { resolve });
    await completeJobs(
      db(),
      claimed.map((j) => j.id),
    );
  }

  it("refuses a name that resolved publicly when saved and privately at delivery, and connects only to the address checked", async () => {
    const t = await tenant("Rebind Ltd", {});
    const named = `http://hooks.rebind.test:${port}/hooks`;
    // Saved when the name answered a public address.
    expect(await checkWebhookUrl(named, async () => ["196.201.214.200"])).toEqual({ ok: true, url: named });
    await db().update(webhookEndpoints).set({ url: named }).where(eq(webhookEndpoints.organizationId, t.organizationId));
    const m = await message(t.organizationId);
    await enqueueMessageEvents(db(), [{ organizationId: t.organizationId, type: "message.delivered", messageId: m.id }]);

    // In production rules (no loopback allowance) the name now answers loopback: refused, nothing sent.
    withLoopback(false);
    await deliverWith(async () => ["127.0.0.1"]);
    expect(received).toEqual([]);
    let [d] = await deliveriesOf(t.organizationId);
    expect(d).toMatchObject({
      status: "pending",
      attempts: 1,
      responseStatus: null,
      error: "Not sent: the webhook URL must not point to a private, loopback or link-local address.",
    });
    // One public address among private ones is refused too; so is a private range even with the allowance.
    await makeRetriesDue();
    await deliverWith(async () => ["196.201.214.200", "10.0.0.7"]);
    withLoopback(true);
    await makeRetriesDue();
    await deliverWith(async () => ["10.0.0.7"]);
    expect(received).toEqual([]);
    [d] = await deliveriesOf(t.organizationId);
    expect(d).toMatchObject({ attempts: 3, error: expect.stringContaining("Not sent:") });

    // With the allowance, the name answers the receiver's loopback address: the request goes there
    // (the name itself resolves nowhere on this machine), with the name as Host, and DNS is asked
    // once: a second answer could never be used.
    const asked: string[] = [];
    await makeRetriesDue();
    await deliverWith(async (host) => {
      asked.push(host);
      return asked.length === 1 ? ["127.0.0.1"] : ["10.0.0.7"];
    });
    expect(asked).toEqual(["hooks.rebind.test"]);
    expect(received).toHaveLength(1);
    expect(received[0]!.headers.host).toBe(`hooks.rebind.test:${port}`);
    expect((await deliveriesOf(t.organizationId))[0]).toMatchObject({ status: "delivered", attempts: 4 });
  });

  it("refuses the loopback allowance in production", () => {
    expect(() =>
      parseEnv({
        NODE_ENV: "production",
        SESSION_SECRET: "s".repeat(40),
        ENCRYPTION_KEY: "ab".repeat(32),
        SMTP_URL: "smtp://m:25",
        META_APP_ID: "123456789",
        META_APP_SECRET: "p".repeat(32),
        META_CONFIG_ID: "987654321",
        META_VERIFY_TOKEN: "v".repeat(32),
        ...PRODUCTION_PAYMENTS,
        WEBHOOK_ALLOW_LOOPBACK: "1",
      }),
    ).toThrow(/WEBHOOK_ALLOW_LOOPBACK/);
  });
});

describe("disabling", () => {
  it("disables an endpoint failing for three days, mails its owner, stops queueing, and re-enables from the page", async () => {
    const t = await tenant("Failing Ltd", {});
    answer = () => ({ status: 503, body: "down" });
    const m = await message(t.organizationId);
    await enqueueMessageEvents(db(), [{ organizationId: t.organizationId, type: "message.delivered", messageId: m.id }]);
    await drainJobs();
    const [first] = await db().select().from(webhookEndpoints).where(eq(webhookEndpoints.organizationId, t.organizationId));
    expect(first!.failingSince).not.toBeNull();
    expect(first!.disabledAt).toBeNull();
    expect((await page(t)).data.webhookState.failingSince).not.toBeNull();

    // Under three days of failures: still enabled.
    await db().execute(
      sql`update webhook_endpoints set failing_since = now() - interval '71 hours' where organization_id = ${t.organizationId}`,
    );
    await makeRetriesDue();
    await drainJobs();
    expect((await page(t)).data.webhookState.disabledAt).toBeNull();
    // Failing for over an hour: the owner's bell (and, by the default rule, mail) says so, once a spell.
    const told = () =>
      db()
        .select({ title: notifications.title, link: notifications.link })
        .from(notifications)
        .where(eq(notifications.organizationId, t.organizationId));
    expect(await told()).toEqual([{ title: "Webhook deliveries are failing", link: "/developers" }]);
    expect((await latestMailTo(t.email))?.subject).toBe("Webhook deliveries are failing");
    await makeRetriesDue();
    await drainJobs();
    expect(await told()).toHaveLength(1);

    // Three days since the first failure, no success since: the next failure disables it.
    await db().execute(
      sql`update webhook_endpoints set failing_since = now() - interval '3 days 1 minute' where organization_id = ${t.organizationId}`,
    );
    await makeRetriesDue();
    await drainJobs();
    const view = (await page(t)).data;
    expect(view.webhookState.disabledAt).not.toBeNull();
    const mail = await latestMailTo(t.email);
    expect(mail?.subject).toBe("Your Jumbe webhook endpoint was disabled");
    expect((await told()).map((n) => n.title)).toEqual(["Webhook deliveries are failing", "Webhook endpoint disabled"]);
    expect(mail?.textBody).toContain(hookUrl());
    expect(mail?.textBody).toContain("http://jumbe.test/developers");
    const logged = await db()
      .select()
      .from(activityLogs)
      .where(and(eq(activityLogs.organizationId, t.organizationId), eq(activityLogs.action, "Webhook endpoint disabled")));
    expect(logged).toHaveLength(1);

    // Disabled: nothing new is queued, the pending retry is not sent, test events and redelivery are refused.
    const attemptsBefore = received.length;
    const later = await message(t.organizationId);
    expect(await enqueueMessageEvents(db(), [{ organizationId: t.organizationId, type: "message.delivered", messageId: later.id }])).toBe(
      0,
    );
    await makeRetriesDue();
    await drainJobs();
    expect(received).toHaveLength(attemptsBefore);
    const [stopped] = await deliveriesOf(t.organizationId);
    expect(stopped).toMatchObject({ status: "failed", error: "Not sent: the endpoint is disabled." });
    expect((await post(t, { intent: "webhook-test" })).status).toBe(400);
    expect((await post(t, { intent: "webhook-redeliver", delivery: stopped!.id })).status).toBe(409);
    expect(await pendingDeliveryJobs()).toEqual([]);

    // Re-enabled from the page: a clean record, and the failed event can be sent again.
    answer = () => ({ status: 204 });
    const enabled = await post(t, { intent: "webhook-enable" });
    expect(enabled.status).toBe(302);
    const after = (await page(t)).data.webhookState;
    expect(after).toMatchObject({ disabledAt: null, failingSince: null });
    expect((await post(t, { intent: "webhook-redeliver", delivery: stopped!.id })).status).toBe(302);
    await drainJobs();
    expect((await deliveriesOf(t.organizationId))[0]).toMatchObject({ status: "delivered", responseStatus: 204 });
    // Only one mail for one disabling (and one for the hour of failures before it).
    const mails = await queryRows<{ subject: string }>(
      db(),
      sql`select subject from mail_outbox where to_address = ${t.email} order by id`,
    );
    expect(mails.map((m) => m.subject)).toEqual(["Webhook deliveries are failing", "Your Jumbe webhook endpoint was disabled"]);
  });
});

describe("the Developers page's forms", () => {
  it("sends a test event and redelivers through the same path, with the same webhook-id", async () => {
    const t = await tenant("Test Event Ltd", {});
    const secret = await secretOf(t);
    const sent = await post(t, { intent: "webhook-test" });
    expect(sent.status).toBe(302);
    expect(sent.location).toBe("/developers#deliveries-heading");
    const queued = (await page(t)).data.deliveries;
    expect(queued).toEqual([expect.objectContaining({ eventType: "webhook.test", status: "pending", attempts: 0 })]);
    await drainJobs();
    expect(received).toHaveLength(1);
    const payload = verify(secret, received[0]!) as { type: string; data: Record<string, unknown> };
    expect(payload).toMatchObject({ type: "webhook.test", data: { organizationId: t.organizationId } });

    const [delivery] = (await page(t)).data.deliveries;
    expect(delivery).toMatchObject({ status: "delivered", attempts: 1, responseStatus: 200 });
    const again = await post(t, { intent: "webhook-redeliver", delivery: delivery.id });
    expect(again.status).toBe(302);
    await drainJobs();
    expect(received).toHaveLength(2);
    expect(received[1]!.headers["webhook-id"]).toBe(received[0]!.headers["webhook-id"]);
    expect(received[1]!.body).toBe(received[0]!.body);
    expect(verify(secret, received[1]!)).toEqual(payload);
    expect((await page(t)).data.deliveries[0]).toMatchObject({ status: "delivered", attempts: 2 });
    const actions = await db()
      .select({ action: activityLogs.action })
      .from(activityLogs)
      .where(eq(activityLogs.organizationId, t.organizationId));
    expect(actions.map((a) => a.action)).toEqual(
      expect.arrayContaining(["Webhook test event sent", "Webhook event redelivered", "Webhook signing secret viewed"]),
    );
  });

  it("answers 404 for another tenant's delivery and 4xx for bad input, changing nothing", async () => {
    const a = await tenant("Owner Ltd", {});
    const b = await tenant("Other Ltd", {});
    const none = await tenant("Nothing Ltd");
    await post(a, { intent: "webhook-test" });
    await drainJobs();
    const [theirs] = await deliveriesOf(a.organizationId);
    const jobCount = async () => (await db().select({ id: jobs.id }).from(jobs)).length;
    const before = { jobs: await jobCount(), delivery: theirs };

    expect((await post(b, { intent: "webhook-redeliver", delivery: theirs!.id })).status).toBe(404);
    expect((await post(a, { intent: "webhook-redeliver", delivery: "00000000-0000-4000-8000-000000000000" })).status).toBe(404);
    expect((await post(a, { intent: "webhook-redeliver", delivery: "not-a-delivery" })).status).toBe(400);
    expect((await post(a, { intent: "webhook-redeliver" })).status).toBe(400);
    expect((await post(none, { intent: "webhook-test" })).status).toBe(400);
    expect((await post(none, { intent: "webhook-enable" })).status).toBe(400);
    expect((await post(none, { intent: "webhook-secret-rotate", confirm: "yes" })).status).toBe(400);
    expect(await jobCount()).toBe(before.jobs);
    expect((await deliveriesOf(a.organizationId))[0]).toEqual(before.delivery);
    expect(await deliveriesOf(b.organizationId)).toEqual([]);
    expect(await deliveriesOf(none.organizationId)).toEqual([]);
    // Each tenant's page lists its own deliveries only; no secret without an endpoint.
    expect((await page(b)).data.deliveries).toEqual([]);
    expect((await page(none, "?secret=1")).data.secret).toBeNull();
  });

  it("shows the secret only when asked (logged), and rotates it after a confirmation; the old one signs too for a day", async () => {
    const t = await tenant("Rotate Secret Ltd", {});
    expect((await page(t)).data.secret).toBeNull();
    const old = await secretOf(t);
    const [row] = await db().select().from(webhookEndpoints).where(eq(webhookEndpoints.organizationId, t.organizationId));
    expect(row!.secretEncrypted).not.toContain(old.slice(6));
    // Saving the form again keeps the secret.
    await post(t, { intent: "webhook", url: hookUrl("/v2"), events: ["message.read"] });
    expect(await secretOf(t)).toBe(old);

    const unconfirmed = await post(t, { intent: "webhook-secret-rotate" });
    expect(unconfirmed.location).toBe("/developers?confirm=rotate-secret#signing-secret");
    expect((await page(t, "?confirm=rotate-secret")).data.confirmRotateSecret).toBe(true);
    expect(await secretOf(t)).toBe(old);
    const rotated = await post(t, { intent: "webhook-secret-rotate", confirm: "yes" });
    expect(rotated.location).toBe("/developers?secret=1#signing-secret");
    const fresh = await secretOf(t);
    expect(fresh).not.toBe(old);

    await post(t, { intent: "webhook-test" });
    await drainJobs();
    const [request] = received;
    expect(String(request!.headers["webhook-signature"]).split(" ")).toHaveLength(2);
    expect(verify(fresh, request!)).toMatchObject({ type: "webhook.test" });
    expect(verify(old, request!)).toMatchObject({ type: "webhook.test" });
    // A day later only the new secret signs.
    await db().execute(
      sql`update webhook_endpoints set previous_secret_expires_at = now() - interval '1 second' where organization_id = ${t.organizationId}`,
    );
    const [delivery] = await deliveriesOf(t.organizationId);
    await post(t, { intent: "webhook-redeliver", delivery: delivery!.id });
    await drainJobs();
    expect(String(received[1]!.headers["webhook-signature"]).split(" ")).toHaveLength(1);
    expect(verify(fresh, received[1]!)).toMatchObject({ type: "webhook.test" });
    expect(() => verify(old, received[1]!)).toThrow();
    const logged = await db()
      .select({ action: activityLogs.action })
      .from(activityLogs)
      .where(and(eq(activityLogs.organizationId, t.organizationId), eq(activityLogs.type, "security")));
    expect(logged.filter((l) => l.action === "Webhook signing secret rotated")).toHaveLength(1);
    expect(logged.filter((l) => l.action === "Webhook signing secret viewed").length).toBeGreaterThanOrEqual(4);
  });
});

describe("housekeeping", () => {
  it("removes deliveries older than the organisation keeps its logs once they are done, and keeps pending ones", async () => {
    const t = await tenant("Old Ltd", {});
    await post(t, { intent: "webhook-test" });
    await drainJobs();
    await post(t, { intent: "webhook-test" });
    await db().execute(
      sql`update webhook_deliveries set created_at = now() - interval '31 days' where organization_id = ${t.organizationId}`,
    );
    const removed = await enforceRetention({ id: t.organizationId, messageDays: 730, mediaDays: 90, logDays: 30 });
    expect(removed.logs).toBe(1);
    expect((await deliveriesOf(t.organizationId)).map((d) => d.status)).toEqual(["pending"]);
  });

  it("queues again a delivery whose job gave up (the database unreachable at each of its tries), and nothing twice", async () => {
    const t = await tenant("Lost Job Ltd", {});
    await post(t, { intent: "webhook-test" });
    // The job's own retries all failed: it is marked failed, the delivery still pending with nothing to try it.
    await db().execute(sql`update jobs set failed_at = now() where queue = ${WEBHOOK_OUT_QUEUE} and finished_at is null`);
    expect(await pendingDeliveryJobs()).toEqual([]);
    // Not yet: a delivery is only lost once its attempt is well overdue.
    expect(await requeueLostDeliveries()).toBe(0);
    await db().execute(
      sql`update webhook_deliveries set next_attempt_at = now() - interval '20 minutes' where organization_id = ${t.organizationId}`,
    );
    expect(await requeueLostDeliveries()).toBe(1);
    // While that job waits, the sweep adds no second one.
    expect(await requeueLostDeliveries()).toBe(0);
    expect(await pendingDeliveryJobs()).toHaveLength(1);
    received = [];
    await drainJobs();
    expect(received).toHaveLength(1);
    expect((await deliveriesOf(t.organizationId)).map((d) => d.status)).toEqual(["delivered"]);
    expect(await requeueLostDeliveries()).toBe(0);
  });
});
