import { describe, expect, it } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { drainJobs } from "~/.server/infrastructure/jobs/worker";
import { drainDispatcher } from "~/.server/domains/messaging/dispatcher";
import { registerJobHandlers } from "~/.server/composition/job-handlers";
import { registerConnectors } from "~/.server/composition/integrations";
import { createPaymentRequest, submitPaymentTemplate } from "~/.server/domains/payments";
import { runFallback, saveAutomationFallback, saveSmsConnection, sweepFallbacks } from "~/.server/domains/sms";
import { isRefusal } from "~/.server/infrastructure/refusal";
import * as shopifyPage from "~/routes/app/integrations/shopify";
import * as smsPage from "~/routes/app/settings/sms";
import { signedInCookie } from "../support/accounts";
import { formRequest, getRequest, run } from "../support/http";
import { shopifyHarnessForFile } from "../support/shopify-harness";
import { paymentRequestsHarnessForFile, until } from "../support/payment-requests-harness";
import { approvedBodyTemplate } from "../support/sending-kit";
import { africastalkingForFile } from "../support/sms";
import { API_KEY, SENDER_ID, USERNAME } from "@jumbe/sandbox/africastalking/test-support";

// Issue 77, decision 159: an automation's WhatsApp template outside the 24-hour window (a payment
// request, a Shopify order) to a customer WhatsApp cannot reach (the Meta sandbox fails numbers ending
// 0000 with 131026 after accepting them; …0003 stays "sent") reaches them by one SMS, through the
// campaigns' one engine (sms_fallbacks): once whatever runs twice, never again when WhatsApp is late,
// none without SMS connected, each organisation's own settings.

registerJobHandlers();
registerConnectors();
const h = paymentRequestsHarnessForFile();
const sh = shopifyHarnessForFile({ shopPrefix: "smsfb", setEnv: (vars) => h.setHarnessEnv(vars) });
const at = africastalkingForFile({ reset: true });

const UNREACHABLE = "254712340000";
const ONLY_SENT = "254712340003";

type Tenant = Awaited<ReturnType<typeof h.tenant>>;
const owner = (t: Tenant) => ({ user: { id: t.user.user.id }, organization: { id: t.organizationId }, role: "owner" as const });

async function tenant(name: string, options: { sms?: boolean } = {}) {
  const t = await h.tenant(name);
  if (options.sms !== false) await saveSmsConnection(owner(t), { username: USERNAME, apiKey: API_KEY, senderId: SENDER_ID });
  const cookie = await signedInCookie(t.user.email, t.user.password);
  return { ...t, cookie };
}

const smsTo = (phone: string) => at.sandbox.sent().filter((sent) => JSON.stringify(sent).includes(phone));
const fallbacksOf = (organizationId: string) =>
  rawQuery<{
    id: string;
    state: string;
    reason: string | null;
    trigger: string;
    automation: string | null;
    whatsapp_late_at: string | null;
  }>(
    `select id, state, reason, trigger, automation, whatsapp_late_at::text from sms_fallbacks where organization_id = $1 order by created_at`,
    [organizationId],
  );

/** The payment template approved at Meta (decision 140), as Settings → Payments gets it. */
async function approvedPaymentTemplate(t: Tenant) {
  expect(await submitPaymentTemplate(owner(t))).toBeNull();
  await h.meta.sandbox.reviewTemplatesNow();
  await h.meta.sandbox.flushWebhooks();
  await drainJobs();
}

/** A customer who wrote 25 hours ago: a payment request to them goes as the template. */
async function closedConversation(t: Tenant, from: string) {
  const conversationId = await h.customerWrites(t, from);
  await rawQuery(`update conversations set last_inbound_at = now() - interval '25 hours' where id = $1`, [conversationId]);
  return conversationId;
}

const askToPay = (t: Tenant, conversationId: string) =>
  createPaymentRequest(t.actor, conversationId, { amount: 1250, description: "Order 42" }, { source: "inbox" });

/** Settings → SMS's form for one automation's fallback, posted as the browser posts it. */
const postFallback = (cookie: string, fields: Record<string, string>) =>
  run(smsPage.action, formRequest("/settings/sms", { intent: "fallback", ...fields }, { cookie }));
describe("an automation's template WhatsApp cannot deliver", () => {
  it("a payment request outside the window to a number not on WhatsApp gets one SMS naming the amount, the Paybill and the reference", async () => {
    const t = await tenant("Duka la Fallback");
    await approvedPaymentTemplate(t);
    await saveAutomationFallback(owner(t), "payment_request", { mode: "message", afterMinutes: 60 });
    const conversationId = await closedConversation(t, UNREACHABLE);
    const request = await askToPay(t, conversationId);
    await until(
      async () => smsTo(UNREACHABLE).length,
      (n) => n === 1,
    );
    const text = JSON.stringify(smsTo(UNREACHABLE)[0]);
    expect(text).toContain("Duka la Fallback: please pay KES 1,250 for Order 42.");
    expect(text).toContain("Paybill 174379");
    expect(text).toContain(`account ${request.reference}`);
    const [fallback] = await fallbacksOf(t.organizationId);
    expect(fallback).toMatchObject({ state: "sent", trigger: "failed", automation: "payment_request" });

    // Two workers at once, a retried job, the sweep: nothing more.
    expect(await Promise.all([runFallback(fallback!.id), runFallback(fallback!.id)])).toEqual(["none", "none"]);
    await rawQuery(`insert into jobs (queue, payload) values ('sms.fallback', jsonb_build_object('fallbackId', $1::text))`, [fallback!.id]);
    await drainJobs();
    await sweepFallbacks(new Date(Date.now() + 3 * 3_600_000));
    await drainJobs();
    expect(smsTo(UNREACHABLE)).toHaveLength(1);
    // WhatsApp says delivered after all (late): the SMS is not sent again, the fallback says it was late.
    const [sent] = await rawQuery<{ wamid: string }>(
      `select m.wamid from payment_requests r join messages m on m.id = r.message_id where r.id = $1`,
      [request.id],
    );
    await h.meta.sandbox.sendStatus({ phoneNumberId: t.phoneNumberId, wamid: sent!.wamid, status: "read", recipientId: UNREACHABLE });
    await until(
      () => fallbacksOf(t.organizationId),
      (rows) => rows[0]?.whatsapp_late_at !== null,
    );
    expect(smsTo(UNREACHABLE)).toHaveLength(1);
    expect(await fallbacksOf(t.organizationId)).toHaveLength(1);
  });

  it("not delivered within the set time: one SMS (two claims at once send one), and its own text with the template's values", async () => {
    const t = await tenant("Kibanda cha Wakati");
    await approvedPaymentTemplate(t);
    await saveAutomationFallback(owner(t), "payment_request", {
      mode: "own",
      text: "{{1}}: lipa {{2}} kwa {{4}}, akaunti {{5}}",
      afterMinutes: 30,
    });
    const conversationId = await closedConversation(t, ONLY_SENT);
    const request = await askToPay(t, conversationId);
    await h.sentWamid(t, request.id);
    await drainJobs();
    expect(await sweepFallbacks(new Date(Date.now() + 10 * 60_000))).toBe(0);
    expect((await fallbacksOf(t.organizationId)).map((f) => f.state)).toEqual(["pending"]);
    // Past the time: two workers claim it at once; one sends.
    await sweepFallbacks(new Date(Date.now() + 31 * 60_000));
    const [fallback] = await fallbacksOf(t.organizationId);
    const outcomes = await Promise.all([runFallback(fallback!.id), runFallback(fallback!.id)]);
    expect(outcomes.sort()).toEqual(["none", "sent"]);
    await drainJobs();
    expect(smsTo(ONLY_SENT)).toHaveLength(1);
    expect(JSON.stringify(smsTo(ONLY_SENT)[0])).toContain(
      `Kibanda cha Wakati: lipa 1,250 kwa Paybill 174379, akaunti ${request.reference}`,
    );
  });

  it("a Shopify order to a number Meta fails with 131026 gets one SMS with the order's values", async () => {
    const t = await tenant("Duka la Shopify SMS");
    const shop = await sh.connect(t.cookie);
    const [waba] = await rawQuery<{ waba_id: string }>(`select waba_id from whatsapp_accounts where organization_id = $1`, [
      t.organizationId,
    ]);
    await approvedBodyTemplate(
      h.meta.graph,
      { ...t, wabaId: waba!.waba_id },
      "order_received",
      "UTILITY",
      "Habari {{1}}, we got your order {{2}}.",
    );
    const [template] = await rawQuery<{ id: string }>(
      `select id from message_templates where organization_id = $1 and name = 'order_received'`,
      [t.organizationId],
    );
    const saved = await run(
      shopifyPage.action,
      formRequest(
        "/integrations/shopify",
        {
          intent: "mapping",
          eventType: "order_created",
          enabled: "on",
          templateId: template!.id,
          variable: ["customer_name", "order_number"],
        },
        { cookie: t.cookie },
      ),
    );
    expect(saved.status).toBe(302);
    await saveAutomationFallback(owner(t), "shopify_order_created", { mode: "message", afterMinutes: 60 });
    // She wrote earlier today (her window since closed), so SMS quiet hours never hold the SMS back,
    // whatever the time of the run (20:00-08:00 in Nairobi they would, for someone who never wrote).
    await closedConversation(t, UNREACHABLE);
    sh.shopify.sandbox.createOrder(shop, {
      customer: { first_name: "Achieng", last_name: "Otieno", phone: "0712 340 000" },
      line_items: [{ title: "Kiondo basket", quantity: 1, price: "1250.00" }],
    });
    await sh.shopify.sandbox.flushWebhooks();
    await until(
      async () => smsTo(UNREACHABLE).length,
      (n) => n === 1,
    );
    expect(JSON.stringify(smsTo(UNREACHABLE)[0])).toMatch(/Habari Achieng[^,]*, we got your order #?\d+\./);
    expect(await fallbacksOf(t.organizationId)).toMatchObject([{ state: "sent", automation: "shopify_order_created" }]);
  });

  it("sends none without SMS connected, keeps each organisation's settings its own, and checks the form's bounds", async () => {
    // Not connected: the setting is refused, and the page offers none.
    const plain = await tenant("Bila SMS", { sms: false });
    await expect(saveAutomationFallback(owner(plain), "payment_request", { mode: "message", afterMinutes: 60 })).rejects.toSatisfy(
      (error) => isRefusal(error, "sms") && error.status === 409,
    );
    const page = await run(smsPage.loader, getRequest("/settings/sms", { cookie: plain.cookie }));
    expect(page.data.fallbacks).toBeNull();

    // Set, then SMS disconnected: a request to a number not on WhatsApp arms nothing and sends nothing.
    const t = await tenant("Duka Lililokatika");
    await approvedPaymentTemplate(t);
    const posted = await postFallback(t.cookie, { automation: "payment_request", sms_fallback: "message", sms_after: "45" });
    expect(posted.status).toBe(302);
    const shown = await run(smsPage.loader, getRequest("/settings/sms", { cookie: t.cookie }));
    expect(shown.data.fallbacks).toEqual([{ automation: "payment_request", mode: "message", text: null, afterMinutes: 45 }]);
    // Another organisation sees none of it.
    const other = await tenant("Duka Jirani");
    expect((await run(smsPage.loader, getRequest("/settings/sms", { cookie: other.cookie }))).data.fallbacks).toEqual([]);
    // Out of bounds, or its own text empty: a 422 at the field, said in words.
    const tooSoon = await postFallback(t.cookie, { automation: "payment_request", sms_fallback: "message", sms_after: "2" });
    expect(tooSoon.status).toBe(422);
    expect(tooSoon.data.fallback.error).toContain("5");
    const empty = await postFallback(t.cookie, { automation: "payment_request", sms_fallback: "own", sms_text: " " });
    expect(empty.status).toBe(422);
    const unknown = await postFallback(t.cookie, { automation: "flows", sms_fallback: "message" });
    expect(unknown.status).toBe(400);
    const logged = await rawQuery<{ details: string }>(
      `select details from activity_logs where organization_id = $1 and action = 'SMS fallback changed'`,
      [t.organizationId],
    );
    expect(logged).toEqual([
      { details: "Payment requests outside the 24-hour window: SMS when WhatsApp cannot reach, or after 45 minutes undelivered" },
    ]);

    // "No SMS" where none was set changes nothing and logs nothing; where one was, it is gone and logged.
    const setTo = (mode: string) =>
      postFallback(other.cookie, { automation: "shopify_order_fulfilled", sms_fallback: mode, sms_after: "30" });
    const otherLog = () =>
      rawQuery<{ details: string }>(
        `select details from activity_logs where organization_id = $1 and action = 'SMS fallback changed' order by id`,
        [other.organizationId],
      );
    expect((await setTo("off")).status).toBe(302);
    expect(await otherLog()).toEqual([]);
    expect((await setTo("message")).status).toBe(302);
    expect((await setTo("off")).status).toBe(302);
    expect((await otherLog()).map((row) => row.details)).toEqual([
      "Shopify: order shipped: SMS when WhatsApp cannot reach, or after 30 minutes undelivered",
      "Shopify: order shipped: no SMS",
    ]);
    expect((await run(smsPage.loader, getRequest("/settings/sms", { cookie: other.cookie }))).data.fallbacks).toEqual([]);

    await rawQuery(`delete from sms_connections where organization_id = $1`, [t.organizationId]);
    const conversationId = await closedConversation(t, UNREACHABLE);
    const request = await askToPay(t, conversationId);
    await h.sentWamid(t, request.id);
    await until(
      () =>
        rawQuery<{ status: string }>(`select m.status from payment_requests r join messages m on m.id = r.message_id where r.id = $1`, [
          request.id,
        ]),
      (rows) => rows[0]?.status === "failed",
    );
    await sweepFallbacks(new Date(Date.now() + 3 * 3_600_000));
    await drainJobs();
    expect(await fallbacksOf(t.organizationId)).toEqual([]);
    expect(smsTo(UNREACHABLE)).toHaveLength(0);
    // The other organisation's request to the same number: it set nothing, so nothing.
    await approvedPaymentTemplate(other);
    await askToPay(other, await closedConversation(other, UNREACHABLE));
    await drainDispatcher();
    await drainJobs();
    expect(await fallbacksOf(other.organizationId)).toEqual([]);
  });
});
