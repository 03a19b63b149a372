import { randomInt } from "node:crypto";
import { sql } from "drizzle-orm";
import { db, rawQuery } from "../db/client";
import { recordActivity } from "../activity/record";
import { formatKes } from "~/lib/invoice";
import { completePayment, createPayment, issueTopupDocument, parseTopupAmount, PaymentRefusal, type PaymentRow } from "./payments";

/**
 * Bank transfers (decision 035): the member is shown Jumbe's account and a reference of their own;
 * a pending invoice says what to pay. A platform administrator reconciles it against the bank
 * statement (the admin console's Billing tab), which credits the wallet and marks it paid.
 */

const REFERENCE_LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
const bankReference = () => `JMB-BT-${Array.from({ length: 6 }, () => REFERENCE_LETTERS[randomInt(REFERENCE_LETTERS.length)]).join("")}`;

export async function startBankTransfer(
  actor: { organizationId: string; userId: string | null },
  request: { amount: unknown; idempotencyKey?: string | null },
) {
  const amountKes = parseTopupAmount(request.amount);
  const outcome = await db().transaction(async (tx) => {
    const { payment, repeated } = await createPayment(tx, {
      organizationId: actor.organizationId,
      method: "bank",
      amountCents: amountKes * 100,
      reference: bankReference(),
      idempotencyKey: request.idempotencyKey ?? null,
      createdBy: actor.userId,
    });
    if (repeated) return { payment, invoiceId: payment.invoice_id };
    const invoice = await issueTopupDocument(tx, payment, { pending: true });
    await tx.execute(sql`update payments set invoice_id = ${invoice.id} where id = ${payment.id}`);
    return { payment: { ...payment, invoice_id: invoice.id }, invoiceId: invoice.id };
  });
  await recordActivity({
    organizationId: actor.organizationId,
    userId: actor.userId,
    type: "billing",
    status: "success",
    action: "Bank transfer started",
    details: `${formatKes(amountKes * 100)}, reference ${outcome.payment.reference}.`,
  });
  return outcome;
}

/** An administrator matched the transfer on the bank statement: the wallet is credited once. */
export async function reconcileBankTransfer(admin: { userId: string }, paymentId: string, statementReference: string) {
  const reference = statementReference.trim();
  if (!reference || reference.length > 64)
    throw new PaymentRefusal(422, "invalid_reference", "Enter the bank's reference for the transfer (up to 64 characters).");
  const [payment] = await rawQuery<PaymentRow>(`select * from payments where id = $1 and method = 'bank'`, [paymentId]);
  if (!payment) throw new PaymentRefusal(404, "not_found", "Not Found: The requested resource does not exist.");
  if (payment.status !== "pending") throw new PaymentRefusal(409, "payment_state", `This transfer is already ${payment.status}.`);
  const done = await completePayment(payment.id, { receipt: `BANK-${reference}`, via: "bank reconciliation" });
  if (done)
    await rawQuery(`update invoices set reconciled = true, reconciled_at = now(), reconciled_by = $2 where id = $1`, [
      payment.invoice_id,
      admin.userId,
    ]);
  return done;
}
