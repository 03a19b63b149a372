import { describe, expect, it } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { createPaymentRequest, paymentRequestById } from "~/.server/domains/payments";
import { checkPendingPrompts, expireRequests } from "~/.server/domains/payments/requests/check";
import { answersTo, attemptsOf, paymentRequestsHarnessForFile, requestRow, until } from "../support/payment-requests-harness";

// Issue 76: each request is paid at most once, whatever M-Pesa sends and however often; a tenant's
// requests are its own.
const h = paymentRequestsHarnessForFile();
const NEVER_ANSWERS = "254711001037";

type Tenant = Awaited<ReturnType<typeof h.tenant>>;

async function subscribe(t: Tenant) {
  await rawQuery(`insert into webhook_endpoints (organization_id, url, events) values ($1, $2, $3)`, [
    t.organizationId,
    `${h.pay.origin}/sink`,
    ["payment_request.paid", "payment_request.failed", "payment_request.expired"],
  ]);
}
const events = async (t: Tenant) =>
  (
    await rawQuery<{ event_type: string }>(`select event_type from webhook_deliveries where organization_id = $1 order by created_at`, [
      t.organizationId,
    ])
  ).map((r) => r.event_type);

/** A request whose prompt rings and stays unanswered; answers it and its CheckoutRequestID. */
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

/** The customer approves on the sandbox phone, its callback lost: only what the test posts arrives. */
async function approveSilently(checkoutRequestId: string) {
  await h.pay.mpesa.answer(checkoutRequestId, "accept", { delivery: "lost" });
  return h.pay.mpesa.prompt(checkoutRequestId)!.receipt!;
}

function callbackBody(checkoutRequestId: string, amount: number, receipt: string) {
  return {
    Body: {
      stkCallback: {
        MerchantRequestID: "29115-34620561-1",
        CheckoutRequestID: checkoutRequestId,
        ResultCode: 0,
        ResultDesc: "The service request is processed successfully.",
        CallbackMetadata: {
          Item: [
            { Name: "Amount", Value: amount },
            { Name: "MpesaReceiptNumber", Value: receipt },
            { Name: "Balance" },
            { Name: "TransactionDate", Value: 20261129133416 },
            { Name: "PhoneNumber", Value: Number(NEVER_ANSWERS) },
          ],
        },
      },
    },
  };
}

const post = (path: string, body: unknown) =>
  fetch(`${h.pay.origin}${path}`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });

describe("a payment request's money", () => {
  it("is paid once under repeated callbacks racing the status query", async () => {
    const t = await h.tenant("Duka la Mama Njeri");
    await subscribe(t);
    const { request, checkoutRequestId } = await ringing(t);
    const receipt = await approveSilently(checkoutRequestId);
    const later = new Date(Date.now() + 60 * 60_000);
    const answers = await Promise.all([
      ...Array.from({ length: 4 }, () => post(`/webhooks/pay/${t.callbackToken}/stk`, callbackBody(checkoutRequestId, 1250, receipt))),
      checkPendingPrompts(later),
    ]);
    for (const answer of answers.slice(0, 4)) expect((answer as Response).status).toBe(200);
    const paid = await until(
      () => requestRow(request.id),
      (r) => r.status === "paid" && r.paid_receipt === receipt,
    );
    expect(paid).toMatchObject({ paid_amount_kes: 1250, amount_mismatch: false });
    expect((await attemptsOf(request.id)).map((a) => a.state)).toEqual(["paid"]);
    await until(
      () => answersTo(t.organizationId, `+${NEVER_ANSWERS}`),
      (list) => list.some((a) => a.body.startsWith("Payment received")),
    );
    expect((await answersTo(t.organizationId, `+${NEVER_ANSWERS}`)).filter((a) => a.body.startsWith("Payment received"))).toHaveLength(1);
    expect(await events(t)).toEqual(["payment_request.paid"]);
    // Once more, after all that: nothing changes.
    expect((await post(`/webhooks/pay/${t.callbackToken}/stk`, callbackBody(checkoutRequestId, 1250, receipt))).status).toBe(200);
    expect(await events(t)).toEqual(["payment_request.paid"]);
  });

  it("flags an amount other than the one asked", async () => {
    const t = await h.tenant("Kibanda Traders");
    const { request, checkoutRequestId } = await ringing(t, 1250);
    const receipt = await approveSilently(checkoutRequestId);
    await post(`/webhooks/pay/${t.callbackToken}/stk`, callbackBody(checkoutRequestId, 1000, receipt));
    const paid = await until(
      () => requestRow(request.id),
      (r) => r.status === "paid",
    );
    expect(paid).toMatchObject({ paid_amount_kes: 1000, amount_mismatch: true, paid_receipt: receipt });
    expect((await paymentRequestById(t.organizationId, request.id))!).toMatchObject({ amountMismatch: true, paid: { amountKes: 1000 } });
  });

  it("takes from a callback not from Safaricom's addresses only what Jumbe's status query confirms", async () => {
    const t = await h.tenant("Jiko Bora");
    const { request, checkoutRequestId } = await ringing(t, 1250);
    const receipt = await approveSilently(checkoutRequestId);
    h.setHarnessEnv({ MPESA_TRUSTED_IPS: "196.201.214.200" });
    // A forged amount on the secret address: the query says paid, but the amount and receipt are not believed.
    await post(`/webhooks/pay/${t.callbackToken}/stk`, callbackBody(checkoutRequestId, 1, receipt));
    const paid = await until(
      () => requestRow(request.id),
      (r) => r.status === "paid",
    );
    expect(paid).toMatchObject({ paid_amount_kes: 1250, amount_mismatch: false, paid_receipt: null });
    // A second one after it was settled changes nothing either.
    await post(`/webhooks/pay/${t.callbackToken}/stk`, callbackBody(checkoutRequestId, 1, receipt));
    expect(await requestRow(request.id)).toMatchObject({ paid_amount_kes: 1250, amount_mismatch: false, paid_receipt: null });
  });

  it("settles once from a C2B confirmation naming its reference", async () => {
    const t = await h.tenant("Soko Fresh");
    const conversationId = await h.customerWrites(t, "254722000123");
    const request = await createPaymentRequest(
      t.actor,
      conversationId,
      { amount: 700, description: "Gas refill", reference: "Gas77" },
      { source: "inbox" },
    );
    const confirmation = (transId: string) => ({
      TransactionType: "Pay Bill",
      TransID: transId,
      TransTime: "20261129133416",
      TransAmount: "700.00",
      BusinessShortCode: "174379",
      BillRefNumber: " gas77 ",
      InvoiceNumber: "",
      OrgAccountBalance: "",
      ThirdPartyTransID: "",
      MSISDN: "2547 ***** 123",
      FirstName: "ACHIENG",
      MiddleName: "",
      LastName: "",
    });
    const validation = await post(`/webhooks/pay/${t.callbackToken}/c2b/validation`, confirmation("SKT1AB2CD3"));
    expect(await validation.json()).toEqual({ ResultCode: "0", ResultDesc: "Accepted" });
    const answers = await Promise.all([
      post(`/webhooks/pay/${t.callbackToken}/c2b/confirmation`, confirmation("SKT1AB2CD3")),
      post(`/webhooks/pay/${t.callbackToken}/c2b/confirmation`, confirmation("SKT1AB2CD3")),
      post(`/webhooks/pay/${t.callbackToken}/c2b/confirmation`, confirmation("SKT1AB2CD4")),
    ]);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    const paid = await requestRow(request.id);
    expect(paid).toMatchObject({ status: "paid", paid_via: "c2b", paid_amount_kes: 700, amount_mismatch: false });
    expect(["SKT1AB2CD3", "SKT1AB2CD4"]).toContain(paid.paid_receipt);
    await until(
      () => answersTo(t.organizationId, "+254722000123"),
      (list) => list.some((a) => a.body.startsWith("Payment received")),
    );
  });

  it("keeps each tenant's requests its own", async () => {
    const a = await h.tenant("Nyota Sacco");
    const b = await h.tenant("Jua Kali Works");
    const { request, checkoutRequestId } = await ringing(a);
    expect(await paymentRequestById(b.organizationId, request.id)).toBeNull();
    const receipt = await approveSilently(checkoutRequestId);
    // B's token names B's shortcode: A's prompt is not found there, and nothing changes.
    const foreign = await post(`/webhooks/pay/${b.callbackToken}/stk`, callbackBody(checkoutRequestId, 1250, receipt));
    expect(foreign.status).toBe(404);
    expect((await post(`/webhooks/pay/unknown-token-0000000000/stk`, callbackBody(checkoutRequestId, 1250, receipt))).status).toBe(404);
    expect((await requestRow(request.id)).status).toBe("open");
    // A C2B confirmation on B's shortcode naming A's reference settles nothing either.
    await post(`/webhooks/pay/${b.callbackToken}/c2b/confirmation`, {
      TransactionType: "Pay Bill",
      TransID: "SKT9ZZ9ZZ9",
      TransTime: "20261129133416",
      TransAmount: "1250.00",
      BusinessShortCode: "174379",
      BillRefNumber: request.reference,
      MSISDN: "254700000000",
      FirstName: "X",
    });
    expect((await requestRow(request.id)).status).toBe("open");
    // A's another tenant's conversation is not found for B.
    await expect(
      createPaymentRequest(b.actor, request.conversationId!, { amount: 10, description: "x" }, { source: "inbox" }),
    ).rejects.toMatchObject({
      status: 404,
    });
  });

  it("expires when its time is past, then answers a tap so", async () => {
    const t = await h.tenant("Mboga Express");
    await subscribe(t);
    const from = "254711000000";
    const conversationId = await h.customerWrites(t, from);
    const request = await createPaymentRequest(
      t.actor,
      conversationId,
      { amount: 50, description: "Tea", expiresInMinutes: 5 },
      { source: "inbox" },
    );
    await rawQuery(`update payment_requests set expires_at = now() - interval '1 second' where id = $1`, [request.id]);
    expect(await expireRequests()).toBe(1);
    expect((await requestRow(request.id)).status).toBe("expired");
    expect(await events(t)).toEqual(["payment_request.expired"]);
    await h.tap(t, from, request.id, "pay");
    await until(
      () => answersTo(t.organizationId, `+${from}`),
      (list) => list.at(-1)!.body.startsWith("This payment request has closed"),
    );
    expect(await attemptsOf(request.id)).toHaveLength(0);
  });
});
