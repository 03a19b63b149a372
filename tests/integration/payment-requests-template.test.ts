import { describe, expect, it } from "vitest";
import { createPaymentRequest, paymentRequestById, paymentTemplateStates, submitPaymentTemplate } from "~/.server/domains/payments";
import { isRefusal } from "~/.server/infrastructure/refusal";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { drainJobs } from "~/.server/infrastructure/jobs/worker";
import { action as settingsAction, loader as settingsLoader } from "~/routes/app/settings/payments";
import { signedInCookie } from "../support/accounts";
import { callRoute, formRequest, getRequest } from "../support/http";
import { answersTo, attemptsOf, paymentRequestsHarnessForFile, requestRow, until } from "../support/payment-requests-harness";

// Issue 76, decision 140: outside the 24-hour window a payment request goes as Jumbe's own utility
// template, its quick replies carrying the request's button ids; a tap on one pays as a reply button does.
const h = paymentRequestsHarnessForFile();

type Tenant = Awaited<ReturnType<typeof h.tenant>>;

/** The customer wrote 25 hours ago: only a template reaches them. */
const windowClosed = (conversationId: string) =>
  rawQuery(`update conversations set last_inbound_at = now() - interval '25 hours' where id = $1`, [conversationId]);

const refusalOf = async (t: Tenant, conversationId: string) => {
  try {
    await createPaymentRequest(t.actor, conversationId, { amount: 1250, description: "Order 42" }, { source: "inbox" });
  } catch (error) {
    if (isRefusal(error, "payment")) return { status: error.status, code: error.code, message: error.message };
    throw error;
  }
  return null;
};

/** Meta's reviewer decides, its webhooks arrive, and the queue applies them. */
async function review() {
  await h.meta.sandbox.reviewTemplatesNow();
  await h.meta.sandbox.flushWebhooks();
  await drainJobs();
}

const owner = (t: Tenant) => ({ user: { id: t.user.user.id }, organization: { id: t.organizationId }, role: "owner" as const });

describe("a payment request outside the 24-hour window", () => {
  it("is refused until the payment template is approved, then sent as it with payload buttons, and a tap pays", async () => {
    const t = await h.tenant("Duka la Kesho");
    const from = "254711000000";
    const conversationId = await h.customerWrites(t, from);
    await windowClosed(conversationId);

    expect(await refusalOf(t, conversationId)).toMatchObject({ status: 422, code: "outside_service_window" });
    expect((await refusalOf(t, conversationId))!.message).toContain("create it on Settings → Payments");

    expect(await submitPaymentTemplate(owner(t))).toBeNull();
    const states = await paymentTemplateStates(t.organizationId);
    expect(states.map((s) => [s.language, s.status])).toEqual([
      ["en", "pending"],
      ["fr", "pending"],
      ["sw", "pending"],
    ]);
    const atMeta = h.meta.sandbox.templates((await waba(t)).waba_id);
    expect(atMeta.map((x) => [x.name, x.category, x.language]).sort()).toEqual([
      ["jumbe_payment_request", "UTILITY", "en"],
      ["jumbe_payment_request", "UTILITY", "fr"],
      ["jumbe_payment_request", "UTILITY", "sw"],
    ]);
    // Waiting for Meta: a clear 422, nothing stored, nothing sent.
    expect(await refusalOf(t, conversationId)).toMatchObject({ status: 422, code: "outside_service_window" });
    expect((await refusalOf(t, conversationId))!.message).toContain("still waiting for WhatsApp's approval");
    expect(await rawQuery(`select 1 from payment_requests where organization_id = $1`, [t.organizationId])).toEqual([]);

    await review();
    expect((await paymentTemplateStates(t.organizationId)).every((s) => s.status === "approved")).toBe(true);
    // A second press submits nothing more.
    expect(await submitPaymentTemplate(owner(t))).toBeNull();
    expect(h.meta.sandbox.templates((await waba(t)).waba_id)).toHaveLength(3);

    const request = await createPaymentRequest(t.actor, conversationId, { amount: 1250, description: "Order 42" }, { source: "inbox" });
    const wamid = await h.sentWamid(t, request.id);
    const sent = (await answersTo(t.organizationId, `+${from}`)).at(-1)!;
    expect(sent.message_type).toBe("template");
    const template = (sent.payload as { template?: { name: string; language: { code: string }; components: unknown[] } }).template!;
    expect(template.name).toBe("jumbe_payment_request");
    expect(template.language.code).toBe("en");
    expect(template.components).toEqual([
      {
        type: "body",
        parameters: ["Duka la Kesho", "1,250", "Order 42", "Paybill 174379", request.reference].map((text) => ({ type: "text", text })),
      },
      { type: "button", sub_type: "quick_reply", index: "0", parameters: [{ type: "payload", payload: `payreq:${request.id}:pay` }] },
      { type: "button", sub_type: "quick_reply", index: "1", parameters: [{ type: "payload", payload: `payreq:${request.id}:other` }] },
    ]);
    // Charged as a template message (a price on the row, as every template send has).
    const [row] = await rawQuery<{ template_id: string | null; pricing_category: string | null }>(
      `select m.template_id, m.pricing_category from payment_requests r join messages m on m.id = r.message_id where r.id = $1`,
      [request.id],
    );
    expect(row).toMatchObject({ pricing_category: "utility" });
    expect(row!.template_id).not.toBeNull();

    // The tap on a template's quick reply arrives as type "button" with the payload.
    await h.meta.sandbox.sendInbound({
      phoneNumberId: t.phoneNumberId,
      from,
      name: "Achieng Otieno",
      type: "button",
      contextId: wamid,
      payload: `payreq:${request.id}:pay`,
      text: "Pay with M-Pesa",
    });
    const paid = await until(
      () => requestRow(request.id),
      (r) => r.status === "paid",
    );
    expect(paid).toMatchObject({ paid_amount_kes: 1250, paid_via: "stk" });
    expect((await attemptsOf(request.id)).map((a) => a.phone)).toEqual([from]);
    // The tap was the request's: automations never saw it.
    const [tap] = await rawQuery<{ id: string }>(
      `select id from messages where organization_id = $1 and direction = 'inbound' and message_type = 'button'`,
      [t.organizationId],
    );
    expect(tap).toBeDefined();
  });

  it("uses the customer's language when that translation is approved, and its page shows the template's state", async () => {
    const t = await h.tenant("Soko la Pwani");
    const from = "254711000000";
    const conversationId = await h.customerWrites(t, from);
    await rawQuery(`update contacts set language = 'sw' where organization_id = $1`, [t.organizationId]);
    await windowClosed(conversationId);
    const cookie = await signedInCookie(t.user.email, t.user.password);
    const before = await callRoute(settingsLoader, getRequest("/settings/payments", { cookie }));
    expect(before.data.paymentTemplate).toEqual([]);
    const pressed = await callRoute(settingsAction, formRequest("/settings/payments", { intent: "template" }, { cookie }));
    expect(pressed.status).toBe(302);
    const after = await callRoute(settingsLoader, getRequest("/settings/payments", { cookie }));
    expect(after.data.paymentTemplate.map((s: { status: string }) => s.status)).toEqual(["pending", "pending", "pending"]);
    await review();
    const request = await createPaymentRequest(t.actor, conversationId, { amount: 500, description: "Samaki" }, { source: "inbox" });
    await h.sentWamid(t, request.id);
    const sent = (await answersTo(t.organizationId, `+${from}`)).at(-1)!;
    expect((sent.payload as { template?: { language: { code: string } } }).template!.language.code).toBe("sw");
    // A prepaid wallet that cannot pay for the template: a clear 402, nothing stored.
    await rawQuery(`update organizations set billing_type = 'prepaid', plan_type = 'Growth' where id = $1`, [t.organizationId]);
    expect(await refusalOf(t, conversationId)).toMatchObject({ status: 402, code: "insufficient_balance" });
    expect((await refusalOf(t, conversationId))!.message).toContain("Top up on the Billing page");
    expect(await rawQuery(`select 1 from payment_requests where organization_id = $1`, [t.organizationId])).toHaveLength(1);
    // Another organisation cannot see this one's request.
    const other = await h.tenant("Duka Jingine");
    expect(await paymentRequestById(other.organizationId, request.id)).toBeNull();
  });
});

const waba = async (t: Tenant) =>
  (await rawQuery<{ waba_id: string }>(`select waba_id from whatsapp_accounts where organization_id = $1`, [t.organizationId]))[0]!;
