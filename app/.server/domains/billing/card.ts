import { randomBytes } from "node:crypto";
import { db, rawQuery } from "../../infrastructure/db/client";
import { env } from "../../infrastructure/config/env";
import { log } from "../../infrastructure/log";
import {
  PaystackError,
  parsePaystackEvent,
  paystackClient,
  paystackDeclineWords,
  verifyPaystackSignature,
  type VerifiedTransaction,
} from "../../infrastructure/clients/paystack";
import { completePayment, createPayment, failPayment, parseTopupAmount, refusePayment, type PaymentRow } from "./payments";
import { m } from "~/paraglide/messages";

/**
 * Card top-ups through Paystack's hosted checkout (decision 035): a pending payment with its own
 * reference, the payer sent to Paystack's page, then settled by verifying the transaction with
 * Paystack, on the return to Jumbe and on the signed charge.success webhook, whichever comes first.
 * A reference credits once.
 */

/** The address Paystack sends the payer back to. */
export const CARD_RETURN_PATH = "/billing/card-return";

export async function startCardTopup(
  actor: { organizationId: string; userId: string | null; email: string },
  request: { amount: unknown; invoiceId?: string | null; idempotencyKey?: string | null },
) {
  const amountKes = parseTopupAmount(request.amount);
  const reference = `JMB-${randomBytes(9).toString("base64url").replace(/[-_]/g, "x").toUpperCase()}`;
  const { payment, repeated } = await createPayment(db(), {
    organizationId: actor.organizationId,
    method: "card",
    amountCents: amountKes * 100,
    invoiceId: request.invoiceId ?? null,
    reference,
    idempotencyKey: request.idempotencyKey ?? null,
    createdBy: actor.userId,
    // Abandoned checkouts are looked at again after half an hour (settlePendingCards).
    firstCheckAt: new Date(Date.now() + 30 * 60_000),
  });
  // A repeat answers the first request's checkout page: Paystack opens one page per reference.
  if (repeated) return { payment, authorizationUrl: await firstCheckoutUrl(payment), repeated };
  try {
    const initialized = await paystackClient().initializeTransaction({
      email: actor.email,
      amountCents: amountKes * 100,
      reference: payment.reference!,
      callbackUrl: `${env().APP_URL}${CARD_RETURN_PATH}`,
      metadata: { organizationId: actor.organizationId, paymentId: payment.id },
    });
    await rawQuery(`update payments set checkout_url = $2 where id = $1`, [payment.id, initialized.authorizationUrl]);
    return { payment, authorizationUrl: initialized.authorizationUrl, repeated };
  } catch (error) {
    log().warn({ err: error }, "Paystack initialize failed");
    await failPayment(payment.id, { code: "initialize", reason: CARD_PAGE_FAILED });
    throw cardUnavailable();
  }
}

const CARD_PAGE_FAILED = "The card payment page could not be opened. Nothing was charged.";
const cardUnavailable = () => refusePayment(502, "card_unavailable", m.billing_refusal_card_unavailable());
/** How long a repeat waits for the first request to get its checkout page from Paystack. */
const FIRST_CHECKOUT_WAIT_MS = 10_000;

/**
 * The checkout page the first request with this key opened, waiting while it is still being opened.
 * A first request refused by Paystack is refused again (its answer was that refusal); one settled
 * without a recorded page (paid or closed before pages were kept) answers the payment as it is, with
 * no page to open: it is the first answer's payment, never a 502.
 */
async function firstCheckoutUrl(first: PaymentRow): Promise<string | null> {
  const deadline = Date.now() + FIRST_CHECKOUT_WAIT_MS;
  for (let payment: PaymentRow | undefined = first; ;) {
    if (payment?.checkout_url) return payment.checkout_url;
    if (!payment || (payment.status === "failed" && payment.result_code === "initialize")) throw cardUnavailable();
    if (payment.status !== "pending") return null;
    if (Date.now() > deadline) throw refusePayment(409, "idempotency_in_progress", m.billing_refusal_idempotency_in_progress());
    await new Promise((resolve) => setTimeout(resolve, 100));
    [payment] = await rawQuery<PaymentRow>(`select * from payments where id = $1`, [first.id]);
  }
}

export async function cardPaymentByReference(reference: string) {
  return (await rawQuery<PaymentRow>(`select * from payments where method = 'card' and reference = $1`, [reference]))[0];
}

/** Settles a card payment from Paystack's own verification of its reference; answers the payment as it is now. */
export async function settleCardPayment(reference: string, via: string): Promise<PaymentRow | undefined> {
  let payment = await cardPaymentByReference(reference);
  if (!payment) return undefined;
  // A checkout closed as abandoned may still be paid on Paystack's page afterwards: verified, it is reopened and credited.
  const abandoned = payment.status === "failed" && payment.result_code === "abandoned";
  if (payment.status !== "pending" && !abandoned) return payment;
  let verified: VerifiedTransaction;
  try {
    verified = await paystackClient().verifyTransaction(reference);
  } catch (error) {
    if (error instanceof PaystackError && error.httpStatus >= 400 && error.httpStatus < 500) {
      log().warn({ reference, status: error.httpStatus }, "Paystack does not know this reference");
      return payment;
    }
    throw error;
  }
  if (abandoned) {
    if (verified.status !== "success") return payment;
    payment = (
      await rawQuery<PaymentRow>(
        `update payments set status = 'pending', result_code = null, failure_reason = null, completed_at = null
         where id = $1 and status = 'failed' and result_code = 'abandoned' returning *`,
        [payment.id],
      )
    )[0];
    if (!payment) return cardPaymentByReference(reference);
  }
  const asked = Number(payment.amount_cents);
  if (verified.status === "success" && verified.amountCents === asked && verified.currency === "KES") {
    await completePayment(payment.id, { receipt: null, via });
  } else if (verified.status === "success") {
    log().error({ reference, asked, paid: verified.amountCents, currency: verified.currency }, "card payment amount differs: not credited");
    await failPayment(payment.id, {
      code: "amount_mismatch",
      reason: "The card payment's amount did not match the top-up, so it was not credited. Contact support with its reference.",
    });
  } else if (verified.status === "failed" || verified.status === "reversed") {
    await failPayment(payment.id, { code: verified.status, reason: paystackDeclineWords(verified.gatewayResponse) });
  }
  return (await cardPaymentByReference(reference))!;
}

/** Paystack's webhook: the signature over the raw body first, then the reference verified with Paystack itself. */
export async function receivePaystackWebhook(rawBody: Buffer, signature: string | undefined): Promise<{ status: 200 | 400 | 401 }> {
  if (!verifyPaystackSignature(rawBody, signature)) return { status: 401 };
  let event;
  try {
    event = parsePaystackEvent(JSON.parse(rawBody.toString("utf8")));
  } catch {
    return { status: 400 };
  }
  if (event.event === "charge.success") await settleCardPayment(event.reference, "Paystack");
  return { status: 200 };
}

/** Checkouts nobody finished in half an hour: asked about once, then closed as abandoned. */
export async function settlePendingCards(now = new Date()) {
  const due = await rawQuery<PaymentRow>(
    `update payments set next_check_at = null, checks = checks + 1
     where id in (select id from payments where method = 'card' and status = 'pending' and next_check_at <= $1 limit 20 for update skip locked)
     returning *`,
    [now.toISOString()],
  );
  for (const payment of due) {
    let after: PaymentRow | undefined;
    try {
      after = await settleCardPayment(payment.reference!, "Paystack's verification");
    } catch (error) {
      // Paystack could not be asked: the payment stays pending and is asked about again later, never failed unverified.
      log().warn({ err: error, reference: payment.reference }, "Paystack verification failed; will retry");
      await rawQuery(`update payments set next_check_at = $2::timestamptz + interval '5 minutes' where id = $1 and status = 'pending'`, [
        payment.id,
        now.toISOString(),
      ]);
      continue;
    }
    if (after?.status === "pending")
      await failPayment(payment.id, { code: "abandoned", reason: "The card payment was not finished. Nothing was charged." });
  }
  return due.length;
}
