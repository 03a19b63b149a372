import { afterEach, describe, expect, it } from "vitest";
import { c2bSecret, registerPaybillUrls, settlePendingPrompts, startMpesaTopup } from "~/.server/domains/billing/mpesa";
import { paymentById } from "~/.server/domains/billing/payments";
import { walletState } from "~/.server/domains/billing/ledger";
import { env, parseEnv, SAFARICOM_CALLBACK_IPS, setEnv } from "~/.server/infrastructure/config/env";
import { db, rawQuery } from "~/.server/infrastructure/db/client";
import { captureLogs } from "~/.server/infrastructure/log";
import { createVerifiedUser } from "../support/accounts";
import { paymentsHarnessForFile } from "../support/payments-harness";

// Issue 38, item 4: the secret address of an M-Pesa callback is no key to the wallet. Whoever has
// it (from a log, say) can post a well-formed success with the right amount; Jumbe credits only
// what its own STK query confirms, or a callback from Safaricom's addresses (MPESA_TRUSTED_IPS),
// and the secret is written to no log. Every request here comes from 127.0.0.1: the sandbox's
// callbacks and the forger's posts alike.

const pay = paymentsHarnessForFile();

const PHONE = "0712 345 678";

/** A live deployment's list: Safaricom's published addresses, so 127.0.0.1 is a stranger. */
function trustSafaricomOnly() {
  setEnv({ ...env(), mpesaTrustedIps: parseEnv({ MPESA_TRUSTED_IPS: SAFARICOM_CALLBACK_IPS }).mpesaTrustedIps });
}

/** Safaricom's addresses and, standing in for them, loopback (a subnet, as an operator may write it). */
function trustLoopbackToo() {
  setEnv({ ...env(), mpesaTrustedIps: parseEnv({ MPESA_TRUSTED_IPS: `${SAFARICOM_CALLBACK_IPS},127.0.0.0/8` }).mpesaTrustedIps });
}

afterEach(() => captureLogs(undefined));

async function business(name = "Baraka Hardware") {
  const user = await createVerifiedUser({ businessName: name });
  return { organizationId: user.organization.id, userId: user.user.id, businessId: user.organization.businessId };
}

const balance = async (organizationId: string) => (await walletState(db(), organizationId)).balanceCents;
const ledgerKinds = async (organizationId: string) =>
  (await rawQuery<{ kind: string }>(`select kind from wallet_entries where organization_id = $1 order by id`, [organizationId])).map(
    (r) => r.kind,
  );

/** What someone holding the callback address can post: Safaricom's body, a receipt made up. */
function forgedCallback(
  payment: { merchant_request_id: string | null; checkout_request_id: string | null },
  amount: number,
  resultCode = 0,
) {
  const stkCallback: Record<string, unknown> = {
    MerchantRequestID: payment.merchant_request_id,
    CheckoutRequestID: payment.checkout_request_id,
    ResultCode: resultCode,
    ResultDesc: resultCode ? "Request cancelled by user" : "The service request is processed successfully.",
  };
  if (resultCode === 0)
    stkCallback.CallbackMetadata = {
      Item: [
        { Name: "Amount", Value: amount },
        { Name: "MpesaReceiptNumber", Value: "SKF0RGED00" },
        { Name: "Balance" },
        { Name: "TransactionDate", Value: 20261125101010 },
        { Name: "PhoneNumber", Value: 254712345678 },
      ],
    };
  return { Body: { stkCallback } };
}

const post = (url: string, body: unknown) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

/** The prompt Jumbe sent for the payment, and its callback address (with the secret). */
function promptOf(checkoutRequestId: string | null) {
  const prompt = pay.mpesa.allPrompts().find((p) => p.CheckoutRequestID === checkoutRequestId);
  if (!prompt) throw new Error(`no prompt ${checkoutRequestId}`);
  return prompt;
}

const later = (minutes: number) => new Date(Date.now() + minutes * 60_000);

describe("a leaked M-Pesa callback address", () => {
  it("credits nothing for a forged success while Safaricom's query says the prompt is pending, and credits once when the query says paid", async () => {
    trustSafaricomOnly();
    const b = await business();
    const payment = await startMpesaTopup(b, { amount: 1000, phone: PHONE });
    const { callbackUrl } = promptOf(payment.checkout_request_id);

    // The right amount, a receipt, the right request id: still only a claim.
    expect((await post(callbackUrl, forgedCallback(payment, 1000))).status).toBe(200);
    expect(await paymentById(payment.id)).toMatchObject({ status: "pending", receipt: null });
    expect(await balance(b.organizationId)).toBe(0);
    expect(await ledgerKinds(b.organizationId)).toEqual([]);
    // The query job asks again: "being processed" is no answer, so it stays pending.
    await settlePendingPrompts(later(1));
    expect((await paymentById(payment.id))!.status).toBe("pending");
    expect(await balance(b.organizationId)).toBe(0);

    // The customer pays; Safaricom's callback is lost. A forged "cancelled" now makes Jumbe ask, and
    // Safaricom's answer (paid) decides: credited once, without the forger's receipt.
    await pay.mpesa.answer(payment.checkout_request_id!, "accept", { delivery: "lost" });
    expect((await post(callbackUrl, forgedCallback(payment, 0, 1032))).status).toBe(200);
    expect(await paymentById(payment.id)).toMatchObject({ status: "completed", receipt: null });
    expect(await balance(b.organizationId)).toBe(100_000);
    // Nothing more: not the query job, not the forged success again.
    await settlePendingPrompts(later(2));
    expect((await post(callbackUrl, forgedCallback(payment, 1000))).status).toBe(200);
    expect(await balance(b.organizationId)).toBe(100_000);
    expect(await ledgerKinds(b.organizationId)).toEqual(["topup"]);
  });

  it("credits a prompt the query job finds paid after a forged success was refused", async () => {
    trustSafaricomOnly();
    const b = await business();
    const payment = await startMpesaTopup(b, { amount: 2500, phone: PHONE });
    expect((await post(promptOf(payment.checkout_request_id).callbackUrl, forgedCallback(payment, 2500))).status).toBe(200);
    expect((await paymentById(payment.id))!.status).toBe("pending");
    expect(await balance(b.organizationId)).toBe(0);

    await pay.mpesa.answer(payment.checkout_request_id!, "accept", { delivery: "lost" });
    await settlePendingPrompts(later(1));
    expect((await paymentById(payment.id))!.status).toBe("completed");
    expect(await balance(b.organizationId)).toBe(250_000);
    expect(await ledgerKinds(b.organizationId)).toEqual(["topup"]);
  });

  it("credits a genuine prompt once, with Safaricom's receipt, and no log line names the callback's secret", async () => {
    trustSafaricomOnly();
    const lines: string[] = [];
    captureLogs({ write: (line: string) => void lines.push(line) });
    const b = await business();
    await rawQuery(`update organizations set billing_type = 'prepaid' where id = $1`, [b.organizationId]);
    const payment = await startMpesaTopup(b, { amount: 1000, phone: PHONE });
    const { callbackUrl } = promptOf(payment.checkout_request_id);
    const secret = callbackUrl.split("/").pop()!;

    // Twice, as Safaricom sometimes sends it, from an address it does not own: the query confirms.
    await pay.mpesa.answer(payment.checkout_request_id!, "accept", { delivery: "duplicate", duplicates: 2 });
    await pay.mpesa.flush();
    const { receipt } = promptOf(payment.checkout_request_id);
    expect(await paymentById(payment.id)).toMatchObject({ status: "completed", receipt });
    expect(await balance(b.organizationId)).toBe(100_000);
    expect(await ledgerKinds(b.organizationId)).toEqual(["topup"]);

    // Both callbacks were logged as requests, the address without its secret.
    const logged = lines.map((line) => JSON.parse(line) as { msg: string; path?: string; status?: number });
    expect(logged.filter((entry) => entry.msg === "request" && entry.path === `/webhooks/mpesa/stk/${payment.id}/[secret]`)).toEqual([
      expect.objectContaining({ status: 200 }),
      expect.objectContaining({ status: 200 }),
    ]);
    expect(lines.filter((line) => line.includes(secret))).toEqual([]);
  });
});

describe("callbacks from Safaricom's addresses", () => {
  it("believes a success from a trusted address while the query still says pending, and credits a paybill payment only from one", async () => {
    const lines: string[] = [];
    captureLogs({ write: (line: string) => void lines.push(line) });
    const b = await business();
    await registerPaybillUrls();

    // From a stranger, a paybill confirmation is held for an administrator: nothing credited.
    trustSafaricomOnly();
    const strangers = await pay.mpesa.simulateC2b({
      msisdn: "254712345678",
      amount: 700,
      billRefNumber: b.businessId,
      transId: "SKA1B2C3D4",
    });
    expect(strangers.outcome).toBe("completed");
    expect(await balance(b.organizationId)).toBe(0);
    expect(await rawQuery(`select trans_id, amount_cents::int, resolved_at from mpesa_suspense`)).toEqual([
      { trans_id: "SKA1B2C3D4", amount_cents: 70_000, resolved_at: null },
    ]);

    // From Safaricom's address (here loopback stands in for it): credited once per TransID.
    trustLoopbackToo();
    await pay.mpesa.simulateC2b({
      msisdn: "254712345678",
      amount: 1500,
      billRefNumber: b.businessId,
      transId: "SKE5F6G7H8",
      confirmations: 2,
    });
    expect(await balance(b.organizationId)).toBe(150_000);
    // Safaricom confirming the held one after all credits it, and settles its suspense entry.
    const again = await post(`${pay.origin}/webhooks/paybill/${c2bSecret()}/confirmation`, strangers.payload);
    expect(again.status).toBe(200);
    expect(await balance(b.organizationId)).toBe(220_000);
    expect(await rawQuery(`select trans_id, resolved_at is not null as resolved from mpesa_suspense`)).toEqual([
      { trans_id: "SKA1B2C3D4", resolved: true },
    ]);
    // A stranger repeating a confirmation already credited adds nothing to look at.
    trustSafaricomOnly();
    expect(
      (await post(`${pay.origin}/webhooks/paybill/${c2bSecret()}/confirmation`, { ...strangers.payload, TransID: "SKE5F6G7H8" })).status,
    ).toBe(200);
    expect(await rawQuery(`select trans_id from mpesa_suspense`)).toEqual([{ trans_id: "SKA1B2C3D4" }]);
    expect(await balance(b.organizationId)).toBe(220_000);
    trustLoopbackToo();

    // An M-Pesa Express callback from a trusted address is believed before the query has an answer.
    const payment = await startMpesaTopup(b, { amount: 500, phone: PHONE });
    expect((await post(promptOf(payment.checkout_request_id).callbackUrl, forgedCallback(payment, 500))).status).toBe(200);
    expect(await paymentById(payment.id)).toMatchObject({ status: "completed", receipt: "SKF0RGED00" });
    expect(await balance(b.organizationId)).toBe(270_000);
    expect(await ledgerKinds(b.organizationId)).toEqual(["topup", "topup", "topup"]);

    // The paybill's secret is in no log line either.
    expect(lines.some((line) => line.includes("/webhooks/paybill/[secret]/confirmation"))).toBe(true);
    expect(lines.filter((line) => line.includes(c2bSecret()))).toEqual([]);
  });
});
