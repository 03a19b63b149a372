import { describe, expect, it } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { startMpesaTopup, settlePendingPrompts, c2bUrls, registerPaybillUrls } from "~/.server/domains/billing/mpesa";
import { settlePendingCards, startCardTopup } from "~/.server/domains/billing/card";
import { env, setEnv } from "~/.server/infrastructure/config/env";
import { startBankTransfer, reconcileBankTransfer } from "~/.server/domains/billing/bank";
import { paymentById } from "~/.server/domains/billing/payments";
import { walletState } from "~/.server/domains/billing/ledger";
import { db } from "~/.server/infrastructure/db/client";
import { createVerifiedUser, signedInCookie } from "../support/accounts";
import { paymentsHarnessForFile } from "../support/payments-harness";
import { appFetch } from "../support/in-process-app";
import { paystackSignature } from "@jumbe/sandbox/paystack/index";
import { changeWallet } from "~/.server/domains/billing/ledger";
import { saveWalletAlerts } from "~/.server/domains/billing/settings";
import { drainJobs } from "~/.server/infrastructure/jobs/worker";
import { registerJobHandlers } from "~/.server/composition/job-handlers";
import { isRefusal } from "~/.server/infrastructure/refusal";
import { noticeIn } from "~/.server/domains/notifications/words";

registerJobHandlers();

// Payments in (issue 17): M-Pesa Express through the Daraja sandbox with every outcome, duplicate,
// lost and forged callbacks; the paybill (C2B); cards through the Paystack sandbox; bank transfers;
// each credits the wallet once, and only the organisation's own payments are visible to it.

const pay = paymentsHarnessForFile();

async function business(name = "Nyota Savings Sacco") {
  const user = await createVerifiedUser({ businessName: name });
  return {
    organizationId: user.organization.id,
    userId: user.user.id,
    email: user.email,
    password: user.password,
    businessId: user.organization.businessId,
  };
}

const PHONE = "0712 345 678";
const balance = async (organizationId: string) => (await walletState(db(), organizationId)).balanceCents;
const ledgerKinds = async (organizationId: string) =>
  (await rawQuery<{ kind: string }>(`select kind from wallet_entries where organization_id = $1 order by id`, [organizationId])).map(
    (r) => r.kind,
  );
const documents = (organizationId: string) =>
  rawQuery<{ number: string; kind: string; status: string; total_cents: string; vat_cents: string }>(
    `select number, kind, status, total_cents::text, vat_cents::text from invoices where organization_id = $1 order by number`,
    [organizationId],
  );

async function refusalOf(work: Promise<unknown>) {
  try {
    await work;
  } catch (error) {
    if (isRefusal(error, "payment")) return { status: error.status, code: error.code, field: error.field, message: error.message };
    throw error;
  }
  throw new Error("it was accepted");
}

/** The prompt Jumbe sent, answered on the "phone"; resolves once its callbacks have reached Jumbe. */
async function answer(
  checkoutRequestId: string,
  outcome: "accept" | "cancel" | "timeout" | "wrong_pin" | "insufficient_funds",
  delivery = "normal",
) {
  await pay.mpesa.answer(checkoutRequestId, outcome, { delivery: delivery as never });
  await pay.mpesa.flush();
}

describe("M-Pesa Express top-ups", () => {
  it("sends the prompt, and credits the wallet once with a tax invoice when the customer pays, however many callbacks arrive", async () => {
    const b = await business();
    await rawQuery(`update organizations set billing_type = 'prepaid' where id = $1`, [b.organizationId]);
    const payment = await startMpesaTopup(b, { amount: "1,000", phone: PHONE });
    expect(payment).toMatchObject({ status: "pending", phone: "254712345678", amount_cents: expect.anything() });
    const [prompt] = pay.mpesa.prompts();
    expect(prompt).toMatchObject({ CheckoutRequestID: payment.checkout_request_id, phone: "254712345678", amount: 1000 });
    expect(prompt!.accountReference).toBe(b.businessId.slice(0, 12));
    // Within Daraja's documented 13 characters, which the sandbox holds to (decision 110).
    expect(prompt!.transactionDesc).toBe("Jumbe top-up");
    // The callback address is the payment's own, with a secret only Safaricom was given.
    expect(prompt!.callbackUrl).toMatch(new RegExp(`/webhooks/mpesa/stk/${payment.id}/[\\w-]{20,}$`));

    await answer(payment.checkout_request_id!, "accept", "duplicate");
    const paid = await paymentById(payment.id);
    expect(paid).toMatchObject({ status: "completed", receipt: expect.stringMatching(/^[A-Z0-9]{10}$/) });
    expect(await balance(b.organizationId)).toBe(100_000);
    expect(await ledgerKinds(b.organizationId)).toEqual(["topup"]);
    // The member who paid is told, in English as stored and in their own language when they read it.
    const [told] = await rawQuery<{ title: string; body: string; words: unknown }>(
      `select title, body, words from notifications where organization_id = $1 and event = 'payment_received'`,
      [b.organizationId],
    );
    expect(told).toMatchObject({
      title: "Payment received: KES 1,000.00",
      body: `Paid by M-Pesa, receipt ${paid!.receipt}. Confirmed by M-Pesa.`,
    });
    expect(noticeIn("fr", told!)).toEqual({
      title: "Paiement reçu : 1\u202f000,00\u00a0KES",
      body: `Payé par M-Pesa, reçu ${paid!.receipt}. Confirmé par M-Pesa.`,
    });
    // A prepaid top-up is the VAT tax point: an INV tax invoice with KES 137.93 VAT inside KES 1,000.
    expect(await documents(b.organizationId)).toEqual([
      { number: expect.stringMatching(/^INV-\d{4}-000001$/), kind: "topup", status: "paid", total_cents: "100000", vat_cents: "13793" },
    ]);
    // The same callback once more, later: nothing changes.
    const record = pay.mpesa.callbacks().find((c) => c.kind === "stk")!;
    const again = await fetch(record.url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(record.body),
    });
    expect(again.status).toBe(200);
    expect(await balance(b.organizationId)).toBe(100_000);
  });

  it("shows every failure in words and credits nothing", async () => {
    const b = await business();
    const words = {
      cancel: /cancelled/i,
      timeout: /could not reach your phone/i,
      wrong_pin: /PIN/i,
      insufficient_funds: /not enough|insufficient|balance/i,
    } as const;
    for (const [outcome, pattern] of Object.entries(words)) {
      const payment = await startMpesaTopup(b, { amount: 500, phone: PHONE });
      await answer(payment.checkout_request_id!, outcome as keyof typeof words);
      const failed = await paymentById(payment.id);
      expect(failed!.status, outcome).toBe("failed");
      expect(failed!.failure_reason, outcome).toMatch(pattern);
    }
    expect(await balance(b.organizationId)).toBe(0);
    expect(await documents(b.organizationId)).toEqual([]);
  });

  it("settles a payment whose callback is lost by asking Safaricom, and a late callback then changes nothing", async () => {
    const b = await business();
    const payment = await startMpesaTopup(b, { amount: 2500, phone: PHONE });
    await answer(payment.checkout_request_id!, "accept", "lost");
    expect((await paymentById(payment.id))!.status).toBe("pending");
    // The query job's turn comes (controlled clock: a minute later).
    await settlePendingPrompts(new Date(Date.now() + 60_000));
    expect((await paymentById(payment.id))!.status).toBe("completed");
    expect(await balance(b.organizationId)).toBe(250_000);
    // A postpaid organisation's money is on account: a receipt, no VAT of its own.
    expect(await documents(b.organizationId)).toEqual([
      { number: expect.stringMatching(/^RCT-\d{4}-000001$/), kind: "topup", status: "paid", total_cents: "250000", vat_cents: "0" },
    ]);
    // An unanswered prompt is given up after ten minutes; a pending one before that stays pending.
    const silent = await startMpesaTopup(b, { amount: 100, phone: "0722 000 111" });
    await settlePendingPrompts(new Date(Date.now() + 60_000));
    expect((await paymentById(silent.id))!.status).toBe("pending");
    await settlePendingPrompts(new Date(Date.now() + 11 * 60_000));
    expect(await paymentById(silent.id)).toMatchObject({ status: "failed", result_code: "1037" });
  });

  it("ignores forged callbacks: a wrong secret or payment, a wrong amount, a fake cancellation of a real payment", async () => {
    // As a live deployment: only Safaricom's addresses are believed, and these posts come from 127.0.0.1.
    setEnv({ ...env(), mpesaTrustedIps: ["196.201.214.200"] });
    const b = await business();
    const payment = await startMpesaTopup(b, { amount: 1000, phone: PHONE });
    const forged = (amount: number, resultCode = 0) => ({
      Body: {
        stkCallback: {
          MerchantRequestID: payment.merchant_request_id,
          CheckoutRequestID: payment.checkout_request_id,
          ResultCode: resultCode,
          ResultDesc: resultCode ? "Request cancelled by user" : "The service request is processed successfully.",
          ...(resultCode
            ? {}
            : {
                CallbackMetadata: {
                  Item: [
                    { Name: "Amount", Value: amount },
                    { Name: "MpesaReceiptNumber", Value: "SKF0RGED00" },
                    { Name: "TransactionDate", Value: 20261124101010 },
                    { Name: "PhoneNumber", Value: 254712345678 },
                  ],
                },
              }),
        },
      },
    });
    const post = (path: string, body: unknown) =>
      fetch(`${pay.origin}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    const secret = pay.mpesa.prompts()[0]!.callbackUrl.split("/").pop()!;
    expect((await post(`/webhooks/mpesa/stk/${payment.id}/not-the-secret-at-all-0000`, forged(1000))).status).toBe(404);
    expect((await post(`/webhooks/mpesa/stk/00000000-0000-4000-8000-000000000000/${secret}`, forged(1000))).status).toBe(404);
    expect((await post(`/webhooks/mpesa/stk/${payment.id}/${secret}`, { Body: {} })).status).toBe(400);
    // The right address, but an amount other than the one asked for, while Safaricom says it is still waiting.
    expect((await post(`/webhooks/mpesa/stk/${payment.id}/${secret}`, forged(100_000))).status).toBe(200);
    // And a "cancelled" that Safaricom's own query does not confirm.
    expect((await post(`/webhooks/mpesa/stk/${payment.id}/${secret}`, forged(0, 1032))).status).toBe(200);
    expect((await paymentById(payment.id))!.status).toBe("pending");
    expect(await balance(b.organizationId)).toBe(0);
    // The real answer still lands.
    await answer(payment.checkout_request_id!, "accept");
    expect((await paymentById(payment.id))!.status).toBe("completed");
    expect(await balance(b.organizationId)).toBe(100_000);
  });

  it("refuses amounts outside KES 10 to 250,000 and numbers that are not M-Pesa's, and asks nothing of Safaricom", async () => {
    const b = await business();
    for (const amount of ["5", "abc", "300000", "10.5", "", "-100"])
      expect(await refusalOf(startMpesaTopup(b, { amount, phone: PHONE })), amount).toMatchObject({
        status: 422,
        field: "amount",
        message: "Enter a whole number of shillings from KES 10 to KES 250,000.",
      });
    expect(await refusalOf(startMpesaTopup(b, { amount: 100, phone: "020 222 2222" }))).toMatchObject({ field: "phone" });
    expect(pay.mpesa.prompts()).toEqual([]);
    expect((await rawQuery(`select count(*)::int as n from payments`))[0]).toEqual({ n: 0 });
  });
});

describe("the automatic M-Pesa prompt", () => {
  it("prompts the owner's phone once when the balance falls below their mark, and the top-up lands when they approve it", async () => {
    const b = await business();
    const spend = (cents: number) =>
      db().transaction((tx) =>
        changeWallet(tx, { organizationId: b.organizationId, kind: "adjustment", amountCents: cents, description: "Test" }),
      );
    await spend(100_000);
    await saveWalletAlerts(b, { lowBalance: "", autoTopupBelow: "800", autoTopupAmount: "2,000", autoTopupPhone: "0712 345 678" });
    await spend(-10_000);
    await drainJobs();
    expect(pay.mpesa.prompts()).toEqual([]);
    await spend(-20_000); // KES 700 left: below KES 800.
    await drainJobs();
    await spend(-100);
    await drainJobs();
    const prompts = pay.mpesa.prompts();
    expect(prompts).toHaveLength(1);
    expect(prompts[0]).toMatchObject({ phone: "254712345678", amount: 2000 });
    const [payment] = await rawQuery<{ id: string; automatic: boolean; created_by: string | null }>(
      `select id, automatic, created_by from payments`,
    );
    expect(payment).toMatchObject({ automatic: true, created_by: null });
    await answer(prompts[0]!.CheckoutRequestID, "accept");
    expect(await balance(b.organizationId)).toBe(69_900 + 200_000);
  });
});

describe("the paybill (C2B)", () => {
  it("rejects an unknown account at validation, credits a known one once per receipt, and keeps strangers' money in suspense", async () => {
    const b = await business();
    await registerPaybillUrls();
    expect(pay.mpesa.registrations()).toEqual([
      expect.objectContaining({ validationUrl: c2bUrls().validationUrl, confirmationUrl: c2bUrls().confirmationUrl }),
    ]);
    const unknown = await pay.mpesa.simulateC2b({ msisdn: "254712345678", amount: 700, billRefNumber: "NO-SUCH-ACCOUNT" });
    expect(unknown).toMatchObject({ outcome: "rejected", validation: { resultCode: "C2B00012" } });

    const paid = await pay.mpesa.simulateC2b({
      msisdn: "254712345678",
      amount: 1500,
      billRefNumber: ` ${b.businessId.toLowerCase()} `,
      transId: "SKB7QW2P4L",
      confirmations: 2,
    });
    expect(paid.outcome).toBe("completed");
    expect(await balance(b.organizationId)).toBe(150_000);
    const [payment] = await rawQuery(`select method, status, receipt, amount_cents::int from payments where organization_id = $1`, [
      b.organizationId,
    ]);
    expect(payment).toEqual({ method: "c2b", status: "completed", receipt: "SKB7QW2P4L", amount_cents: 150_000 });

    // A confirmation Safaricom sends without validation (validation off) for an unknown account: kept, not credited.
    const confirmation = (await fetch(c2bUrls().confirmationUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ...paid.payload, TransID: "SKC1X2Y3Z4", BillRefNumber: "WHO-IS-THIS" }),
    })) as Response;
    expect(confirmation.status).toBe(200);
    expect(await rawQuery(`select trans_id, bill_ref_number from mpesa_suspense`)).toEqual([
      { trans_id: "SKC1X2Y3Z4", bill_ref_number: "WHO-IS-THIS" },
    ]);
    // A wrong secret in the address answers 404 and stores nothing.
    const wrong = await fetch(c2bUrls().confirmationUrl.replace(/paybill\/[^/]+/, "paybill/wrong"), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ...paid.payload, TransID: "SKD9Z8Y7X6" }),
    });
    expect(wrong.status).toBe(404);
    expect(await balance(b.organizationId)).toBe(150_000);
  });
});

describe("cards through Paystack", () => {
  it("credits a successful card payment once (return and webhook), fails a declined one in words, and ignores a forged webhook", async () => {
    const b = await business();
    const cookie = await signedInCookie(b.email, b.password);
    const started = await startCardTopup(b, { amount: 2500 });
    expect(started.authorizationUrl).toMatch(/\/sandbox\/paystack\/checkout\//);
    pay.paystack.pay(started.payment.reference!, "success");
    await pay.paystack.flushWebhooks();
    // The webhook arrived and credited; the payer's return finds it done and shows the payment.
    expect((await paymentById(started.payment.id))!.status).toBe("completed");
    const back = await appFetch(
      new Request(`${pay.origin}/billing/card-return?trxref=${started.payment.reference}&reference=${started.payment.reference}`, {
        headers: { cookie },
      }),
    );
    expect(back.status).toBe(302);
    expect(back.headers.get("location")).toBe(`/billing/payments/${started.payment.id}`);
    // Paystack delivering it again changes nothing.
    await pay.paystack.resendWebhook(0);
    await pay.paystack.flushWebhooks();
    expect(await balance(b.organizationId)).toBe(250_000);
    expect(await ledgerKinds(b.organizationId)).toEqual(["topup"]);

    const declined = await startCardTopup(b, { amount: 1000 });
    pay.paystack.pay(declined.payment.reference!, "declined");
    const returned = await appFetch(
      new Request(`${pay.origin}/billing/card-return?reference=${declined.payment.reference}`, { headers: { cookie } }),
    );
    expect(returned.status).toBe(302);
    expect(await paymentById(declined.payment.id)).toMatchObject({
      status: "failed",
      failure_reason: expect.stringMatching(/not have enough money/i),
    });

    // A webhook signed with another key, or tampered with, is refused and credits nothing.
    const pending = await startCardTopup(b, { amount: 3000 });
    const body = JSON.stringify({
      event: "charge.success",
      data: { reference: pending.payment.reference, amount: 300_000, currency: "KES", status: "success" },
    });
    const forged = await fetch(`${pay.origin}/webhooks/paystack`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-paystack-signature": paystackSignature(body, "sk_test_someone_else_000000") },
      body,
    });
    expect(forged.status).toBe(401);
    // Even correctly signed, an unpaid reference is not credited: Paystack's verification decides.
    const signed = await fetch(`${pay.origin}/webhooks/paystack`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-paystack-signature": paystackSignature(body, pay.secretKey) },
      body,
    });
    expect(signed.status).toBe(200);
    expect((await paymentById(pending.payment.id))!.status).toBe("pending");
    expect(await balance(b.organizationId)).toBe(250_000);
  });
  it("closes a checkout nobody finished only once Paystack says so, and credits one paid after that", async () => {
    const b = await business();
    const started = await startCardTopup(b, { amount: 1500 });
    // Paystack cannot be reached: the payment stays pending, to be asked about again.
    setEnv({ ...env(), PAYSTACK_BASE_URL: "http://127.0.0.1:9/unreachable" });
    await settlePendingCards(new Date(Date.now() + 31 * 60_000));
    expect((await paymentById(started.payment.id))!.status).toBe("pending");
    setEnv({ ...env(), PAYSTACK_BASE_URL: `${pay.origin}/sandbox/paystack` });
    await settlePendingCards(new Date(Date.now() + 40 * 60_000));
    expect(await paymentById(started.payment.id)).toMatchObject({ status: "failed", result_code: "abandoned" });
    // The payer finishes on Paystack's page after all: the webhook's verification credits it once.
    pay.paystack.pay(started.payment.reference!, "success");
    await pay.paystack.flushWebhooks();
    expect((await paymentById(started.payment.id))!.status).toBe("completed");
    expect(await balance(b.organizationId)).toBe(150_000);
  });
});

describe("bank transfers", () => {
  it("issues a pending invoice with a reference, and credits the wallet once when reconciled", async () => {
    const b = await business();
    const admin = await createVerifiedUser({ businessName: "Jumbe Platform" });
    const { payment, invoiceId } = await startBankTransfer(b, { amount: 50_000 });
    expect(payment.reference).toMatch(/^JMB-BT-[A-Z2-9]{6}$/);
    const [invoice] = await rawQuery(`select status, kind, total_cents::int from invoices where id = $1`, [invoiceId]);
    expect(invoice).toEqual({ status: "pending", kind: "bank_transfer", total_cents: 5_000_000 });
    expect(await balance(b.organizationId)).toBe(0);
    await reconcileBankTransfer({ userId: admin.user.id }, payment.id, "NCBA-FT-26328-001");
    expect(await refusalOf(reconcileBankTransfer({ userId: admin.user.id }, payment.id, "NCBA-FT-26328-001"))).toMatchObject({
      status: 409,
    });
    expect(await balance(b.organizationId)).toBe(5_000_000);
    expect(await rawQuery(`select status, reconciled from invoices where id = $1`, [invoiceId])).toEqual([
      { status: "paid", reconciled: true },
    ]);
  });
});

describe("the JSON API", () => {
  it("starts a top-up, answers its state, and keeps each organisation's payments to itself", async () => {
    const b = await business();
    const other = await business("Mombasa Traders Ltd");
    const cookie = await signedInCookie(b.email, b.password);
    const otherCookie = await signedInCookie(other.email, other.password);
    const post = (body: unknown, headers: Record<string, string> = {}) =>
      appFetch(
        new Request(`${pay.origin}/api/billing/topups`, {
          method: "POST",
          headers: { cookie, "content-type": "application/json", ...headers },
          body: JSON.stringify(body),
        }),
      );
    const created = await post({ amount: 1000, method: "mpesa", phone: PHONE }, { "idempotency-key": "topup-0001-abcd" });
    expect(created.status).toBe(201);
    const view = (await created.json()) as { id: string; status: string; checkoutRequestId: string };
    expect(view).toMatchObject({ status: "pending", checkoutRequestId: expect.stringMatching(/^ws_CO_/) });
    // A double tap with the same key is the same payment, and no second prompt.
    expect(
      (
        (await (await post({ amount: 1000, method: "mpesa", phone: PHONE }, { "idempotency-key": "topup-0001-abcd" })).json()) as {
          id: string;
        }
      ).id,
    ).toBe(view.id);
    expect(pay.mpesa.prompts()).toHaveLength(1);
    expect((await post({ amount: 5, method: "mpesa", phone: PHONE })).status).toBe(422);
    expect((await post({ amount: 1000, method: "cheque" })).status).toBe(400);

    await answer(view.checkoutRequestId, "accept");
    const get = (id: string, c: string) => appFetch(new Request(`${pay.origin}/api/billing/topups/${id}`, { headers: { cookie: c } }));
    expect(await (await get(view.id, cookie)).json()).toMatchObject({ status: "completed", amount: 1000, currency: "KES" });
    expect((await get(view.id, otherCookie)).status).toBe(404);
    expect((await get("not-an-id", cookie)).status).toBe(404);

    const wallet = await (await appFetch(new Request(`${pay.origin}/api/billing/wallet`, { headers: { cookie } }))).json();
    expect(wallet).toMatchObject({
      balanceCents: 100_000,
      currency: "KES",
      plan: "Starter",
      billingType: "postpaid",
      usage: { messages: 0, limit: 1000 },
    });
    const invoices = (await (await appFetch(new Request(`${pay.origin}/api/billing/invoices`, { headers: { cookie } }))).json()) as {
      invoices: { id: string }[];
    };
    expect(invoices.invoices).toHaveLength(1);
    const otherInvoices = (await (
      await appFetch(new Request(`${pay.origin}/api/billing/invoices`, { headers: { cookie: otherCookie } }))
    ).json()) as {
      invoices: unknown[];
    };
    expect(otherInvoices.invoices).toEqual([]);
    // Another organisation's invoice PDF: 404; its own: a PDF.
    const pdf = (c: string) =>
      appFetch(new Request(`${pay.origin}/billing/invoices/${invoices.invoices[0]!.id}/pdf`, { headers: { cookie: c } }));
    const own = await pdf(cookie);
    expect(own.headers.get("content-type")).toBe("application/pdf");
    expect(
      Buffer.from(await own.arrayBuffer())
        .subarray(0, 5)
        .toString(),
    ).toBe("%PDF-");
    expect((await pdf(otherCookie)).status).toBe(404);
  });
});
