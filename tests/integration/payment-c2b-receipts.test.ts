import { describe, expect, it } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { detailsInWords } from "~/.server/domains/activity/words";
import { inLocale } from "~/.server/infrastructure/http/display-zone";
import { cancelPaymentRequest, createPaymentRequest, matchReceipt, unmatchedReceipts } from "~/.server/domains/payments";
import * as paymentsPage from "~/routes/app/settings/payments";
import { signedInCookie } from "../support/accounts";
import { formRequest, getRequest, run } from "../support/http";
import { answersTo, paymentRequestsHarnessForFile, requestRow, until } from "../support/payment-requests-harness";

// Issue 76: every payment to a tenant's paybill is kept once; one that settled no request waits in
// Settings → Payments ("Received without a request") until a manager matches it to its request.
const h = paymentRequestsHarnessForFile();
type Tenant = Awaited<ReturnType<typeof h.tenant>>;
const PATH = "/settings/payments";

const post = (path: string, body: unknown) =>
  fetch(`${h.pay.origin}${path}`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
const confirmation = (transId: string, billRef: string, amount = "700.00") => ({
  TransactionType: "Pay Bill",
  TransID: transId,
  TransTime: "20261129133416",
  TransAmount: amount,
  BusinessShortCode: "174379",
  BillRefNumber: billRef,
  MSISDN: "2547 ***** 123",
  FirstName: "ACHIENG",
});
const confirm = (t: Tenant, transId: string, billRef: string, amount?: string) =>
  post(`/webhooks/pay/${t.callbackToken}/c2b/confirmation`, confirmation(transId, billRef, amount));
const owner = (t: Tenant) => ({ user: { id: t.userId! }, organization: { id: t.organizationId }, role: "owner" as const });
const receipts = (organizationId: string) =>
  rawQuery<{ trans_id: string; request_id: string | null; unmatched_reason: string | null; amount_kes: number }>(
    `select trans_id, request_id, unmatched_reason, amount_kes from payment_c2b_receipts where organization_id = $1 order by created_at`,
    [organizationId],
  );

describe("payments received without a request", () => {
  it("keeps each payment once, says why it settled nothing, and a manager's match pays the request once", async () => {
    const t = await h.tenant("Duka la Baraka");
    const conversationId = await h.customerWrites(t, "254722000123");
    const request = await createPaymentRequest(
      t.actor,
      conversationId,
      { amount: 700, description: "Gas refill", reference: "GAS77" },
      { source: "inbox" },
    );
    // A typo in the account number, sent twice by Daraja: one receipt, the request still open.
    for (let i = 0; i < 2; i++) expect((await confirm(t, "SKT1TYPO01", "GAS7")).status).toBe(200);
    expect(await receipts(t.organizationId)).toEqual([
      { trans_id: "SKT1TYPO01", request_id: null, unmatched_reason: "no_request", amount_kes: 700 },
    ]);
    expect((await requestRow(request.id)).status).toBe("open");

    // The page lists it, with why; an agent sees it without the form.
    const { user } = t;
    const cookie = await signedInCookie(user.email, user.password);
    const shown = await run(paymentsPage.loader, getRequest(PATH, { cookie }));
    expect(shown.data.receipts).toMatchObject([{ receipt: "SKT1TYPO01", amountKes: 700, billRef: "GAS7", reason: "no_request" }]);

    // A wrong reference is refused at the payment, and nothing changes.
    const [listed] = await unmatchedReceipts(t.organizationId);
    const wrong = await run(
      paymentsPage.action,
      formRequest(PATH, { intent: "match", receipt: listed!.id, reference: "NOPE1" }, { cookie }),
    );
    expect(wrong.status).toBe(422);
    expect(wrong.data.matchFailed).toMatchObject({ receiptId: listed!.id, error: expect.stringContaining("No payment request") });
    expect((await requestRow(request.id)).status).toBe("open");

    // Matched by the request's reference (any case): paid by it, once, and the customer gets a receipt.
    const matched = await run(
      paymentsPage.action,
      formRequest(PATH, { intent: "match", receipt: listed!.id, reference: "gas77" }, { cookie }),
    );
    expect(matched.status).toBe(302);
    expect(await requestRow(request.id)).toMatchObject({
      status: "paid",
      paid_via: "c2b",
      paid_receipt: "SKT1TYPO01",
      paid_amount_kes: 700,
    });
    expect(await unmatchedReceipts(t.organizationId)).toEqual([]);
    await expect(matchReceipt(owner(t), listed!.id, "GAS77")).rejects.toMatchObject({ status: 409, code: "already_matched" });
    await until(
      () => answersTo(t.organizationId, "+254722000123"),
      (list) => list.some((a) => a.body.startsWith("Payment received: KES 700")),
    );
    const [logged] = await rawQuery<{ details: string }>(
      `select details from activity_logs where organization_id = $1 and action = 'M-Pesa payment matched'`,
      [t.organizationId],
    );
    expect(logged!.details).toBe("M-Pesa receipt SKT1TYPO01 of KES 700.00 matched to request GAS77");
    expect(inLocale("sw", () => detailsInWords(logged!.details)).replace(/\s/g, " ")).toBe(
      "Risiti ya M-Pesa SKT1TYPO01 ya KES 700.00 imeunganishwa na ombi GAS77",
    );
  });

  it("keeps a payment for a closed request, and refuses to match one to a request already paid", async () => {
    const t = await h.tenant("Soko Bora");
    const conversationId = await h.customerWrites(t, "254722000124");
    const closed = await createPaymentRequest(
      t.actor,
      conversationId,
      { amount: 300, description: "Unga", reference: "UNGA1" },
      { source: "inbox" },
    );
    await cancelPaymentRequest(t.actor, closed.id);
    await confirm(t, "SKT2LATE01", "UNGA1", "300.00");
    expect((await receipts(t.organizationId)).map((r) => r.unmatched_reason)).toEqual(["request_closed"]);
    // Matched after all: the cancelled request is paid (money that arrived is never thrown away).
    const [late] = await unmatchedReceipts(t.organizationId);
    await matchReceipt(owner(t), late!.id, "UNGA1");
    expect(await requestRow(closed.id)).toMatchObject({ status: "paid", paid_receipt: "SKT2LATE01" });

    // A second payment naming the paid request waits; matching it there is refused.
    await confirm(t, "SKT2LATE02", "UNGA1", "300.00");
    const [second] = await unmatchedReceipts(t.organizationId);
    await expect(matchReceipt(owner(t), second!.id, "UNGA1")).rejects.toMatchObject({ status: 409, code: "request_paid" });
  });

  it("keeps a confirmation from outside Safaricom's addresses for the team, never settling by itself", async () => {
    const t = await h.tenant("Jiko Safi");
    const conversationId = await h.customerWrites(t, "254722000125");
    const request = await createPaymentRequest(
      t.actor,
      conversationId,
      { amount: 450, description: "Jiko", reference: "JIKO1" },
      { source: "inbox" },
    );
    h.setHarnessEnv({ MPESA_TRUSTED_IPS: "196.201.214.200" });
    await confirm(t, "SKT3FORGE1", "JIKO1", "450.00");
    expect((await requestRow(request.id)).status).toBe("open");
    expect((await unmatchedReceipts(t.organizationId)).map((r) => r.reason)).toEqual(["untrusted_source"]);
  });

  it("shows and matches only the organisation's own payments", async () => {
    const a = await h.tenant("Nyota Traders");
    const b = await h.tenant("Zawadi Crafts");
    await confirm(a, "SKT4AAAA01", "WHATEVER");
    expect(await unmatchedReceipts(b.organizationId)).toEqual([]);
    const [mine] = await unmatchedReceipts(a.organizationId);
    await expect(matchReceipt(owner(b), mine!.id, "WHATEVER")).rejects.toMatchObject({ status: 404 });
    const bCookie = await signedInCookie(b.user.email, b.user.password);
    const foreign = await run(
      paymentsPage.action,
      formRequest(PATH, { intent: "match", receipt: mine!.id, reference: "X1" }, { cookie: bCookie }),
    );
    expect(foreign.status).toBe(404);
  });
});
