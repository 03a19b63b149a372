import { describe, expect, it } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { cancelPaymentRequest, createPaymentRequest, removeShortcode } from "~/.server/domains/payments";
import { answersTo, attemptsOf, paymentRequestsHarnessForFile, requestRow, until } from "../support/payment-requests-harness";

// Issue 76: a member takes an open request back; it is paid at most once when a paybill payment by
// hand races the prompt's callback; a shortcode with requests on record stays.
const h = paymentRequestsHarnessForFile();
const NEVER_ANSWERS = "254711001037";
type Tenant = Awaited<ReturnType<typeof h.tenant>>;

async function subscribe(t: Tenant) {
  await rawQuery(`insert into webhook_endpoints (organization_id, url, events) values ($1, $2, $3)`, [
    t.organizationId,
    `${h.pay.origin}/sink`,
    ["payment_request.paid", "payment_request.failed", "payment_request.expired", "payment_request.cancelled"],
  ]);
}
const events = async (t: Tenant) =>
  (
    await rawQuery<{ event_type: string }>(`select event_type from webhook_deliveries where organization_id = $1 order by created_at`, [
      t.organizationId,
    ])
  ).map((r) => r.event_type);
const post = (path: string, body: unknown) =>
  fetch(`${h.pay.origin}${path}`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });

/** The activity log's cancel lines: who, which request and for how much, from where. */
const cancelLines = async (t: Tenant) =>
  rawQuery<{ user_id: string | null; details: string; type: string }>(
    `select user_id, details, type from activity_logs where organization_id = $1 and action = 'Payment request cancelled'`,
    [t.organizationId],
  );

async function ringing(t: Tenant, amount = 1250) {
  const conversationId = await h.customerWrites(t, NEVER_ANSWERS);
  const request = await createPaymentRequest(t.actor, conversationId, { amount, description: "Order 42" }, { source: "inbox" });
  await h.tap(t, NEVER_ANSWERS, request.id, "pay");
  const [attempt] = await until(
    () => attemptsOf(request.id),
    (list) => !!list[0]?.checkout_request_id,
  );
  return { request, checkoutRequestId: attempt!.checkout_request_id! };
}

describe("cancelling a payment request", () => {
  it("closes an open request, tells the customer not to pay, and answers a later tap so", async () => {
    const t = await h.tenant("Duka la Wanjiku");
    await subscribe(t);
    const from = "254722000456";
    const conversationId = await h.customerWrites(t, from);
    const request = await createPaymentRequest(t.actor, conversationId, { amount: 800, description: "School shoes" }, { source: "inbox" });
    const cancelled = await cancelPaymentRequest(t.actor, request.id);
    expect(cancelled.status).toBe("cancelled");
    expect(await requestRow(request.id)).toMatchObject({ status: "cancelled" });
    expect(await events(t)).toEqual(["payment_request.cancelled"]);
    await until(
      () => answersTo(t.organizationId, `+${from}`),
      (list) => list.some((a) => a.body === "The request to pay KES 800 for School shoes has been cancelled. Please do not pay it."),
    );
    // The activity log says who cancelled which request, for how much, from where.
    expect(await cancelLines(t)).toEqual([
      { user_id: t.userId, type: "billing", details: `Request ${request.reference} for KES 800.00 cancelled from the inbox` },
    ]);
    // Twice: refused, nothing more sent out, and nothing more in the log.
    await expect(cancelPaymentRequest(t.actor, request.id)).rejects.toMatchObject({ status: 409, code: "not_open" });
    expect(await events(t)).toEqual(["payment_request.cancelled"]);
    expect(await cancelLines(t)).toHaveLength(1);
    // The customer taps Pay on the old message: no prompt, told it has closed.
    await h.tap(t, from, request.id, "pay");
    await until(
      () => answersTo(t.organizationId, `+${from}`),
      (list) => list.at(-1)!.body.startsWith("This payment request has closed"),
    );
    expect(await attemptsOf(request.id)).toHaveLength(0);
  });

  it("is refused while a prompt is on the customer's phone, and for another tenant's request", async () => {
    const t = await h.tenant("Kibanda Hardware");
    const other = await h.tenant("Jua Kali Welders");
    const { request } = await ringing(t);
    await expect(cancelPaymentRequest(t.actor, request.id)).rejects.toMatchObject({ status: 409, code: "prompt_on_phone" });
    await expect(cancelPaymentRequest(other.actor, request.id)).rejects.toMatchObject({ status: 404 });
    await expect(cancelPaymentRequest(t.actor, "not-a-uuid")).rejects.toMatchObject({ status: 404 });
    expect((await requestRow(request.id)).status).toBe("open");
    expect([...(await cancelLines(t)), ...(await cancelLines(other))]).toEqual([]);
  });
});

describe("a paybill payment by hand racing the prompt's callback", () => {
  it("pays the request once: one receipt message, one webhook", async () => {
    const t = await h.tenant("Soko Safi");
    await subscribe(t);
    const { request, checkoutRequestId } = await ringing(t);
    await h.pay.mpesa.answer(checkoutRequestId, "accept", { delivery: "lost" });
    const receipt = h.pay.mpesa.prompt(checkoutRequestId)!.receipt!;
    const callback = {
      Body: {
        stkCallback: {
          MerchantRequestID: "29115-34620561-1",
          CheckoutRequestID: checkoutRequestId,
          ResultCode: 0,
          ResultDesc: "The service request is processed successfully.",
          CallbackMetadata: {
            Item: [
              { Name: "Amount", Value: 1250 },
              { Name: "MpesaReceiptNumber", Value: receipt },
              { Name: "TransactionDate", Value: 20261129133416 },
              { Name: "PhoneNumber", Value: Number(NEVER_ANSWERS) },
            ],
          },
        },
      },
    };
    const confirmation = {
      TransactionType: "Pay Bill",
      TransID: "SKT5RC3HND",
      TransTime: "20261129133420",
      TransAmount: "1250.00",
      BusinessShortCode: "174379",
      BillRefNumber: request.reference,
      MSISDN: "2547 ***** 037",
      FirstName: "OTIENO",
    };
    const answers = await Promise.all([
      post(`/webhooks/pay/${t.callbackToken}/stk`, callback),
      post(`/webhooks/pay/${t.callbackToken}/c2b/confirmation`, confirmation),
      post(`/webhooks/pay/${t.callbackToken}/stk`, callback),
      post(`/webhooks/pay/${t.callbackToken}/c2b/confirmation`, confirmation),
    ]);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    const paid = await until(
      () => requestRow(request.id),
      (r) => r.status === "paid",
    );
    expect([receipt, "SKT5RC3HND"]).toContain(paid.paid_receipt);
    expect(paid).toMatchObject({ paid_amount_kes: 1250, amount_mismatch: false });
    await until(
      () => answersTo(t.organizationId, `+${NEVER_ANSWERS}`),
      (list) => list.some((a) => a.body.startsWith("Payment received")),
    );
    expect((await answersTo(t.organizationId, `+${NEVER_ANSWERS}`)).filter((a) => a.body.startsWith("Payment received"))).toHaveLength(1);
    expect(await events(t)).toEqual(["payment_request.paid"]);
    // A paid request is not cancelled.
    await expect(cancelPaymentRequest(t.actor, request.id)).rejects.toMatchObject({ status: 409, code: "not_open" });
  });
});

describe("a shortcode with requests on record", () => {
  it("is not removed: the requests are the business's records", async () => {
    const t = await h.tenant("Mama Mboga Groceries");
    const conversationId = await h.customerWrites(t, "254733000789");
    await createPaymentRequest(t.actor, conversationId, { amount: 120, description: "Sukuma" }, { source: "inbox" });
    const owner = { user: { id: t.userId! }, organization: { id: t.organizationId }, role: "owner" as const };
    await expect(removeShortcode(owner, t.shortcode.id)).rejects.toMatchObject({ status: 409, code: "in_use" });
    const [row] = await rawQuery<{ n: number }>(`select count(*)::int as n from mpesa_shortcodes where id = $1`, [t.shortcode.id]);
    expect(row!.n).toBe(1);
  });
});
