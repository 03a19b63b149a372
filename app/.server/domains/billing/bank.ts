import { randomInt } from "node:crypto";
import { sql } from "drizzle-orm";
import { db, rawQuery, type Executor } from "../../infrastructure/db/client";
import { recordActivity } from "../activity";
import { englishOf, words } from "../../infrastructure/words/said";
import { completePayment, createPayment, issueTopupDocument, parseTopupAmount, refusePayment, type PaymentRow } from "./payments";
import { isUniqueViolation } from "../../infrastructure/db/errors";
import { m } from "~/paraglide/messages";

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
    if (repeated) return { payment, invoiceId: payment.invoice_id, repeated };
    const invoice = await issueTopupDocument(tx, payment, { pending: true });
    await tx.execute(sql`update payments set invoice_id = ${invoice.id} where id = ${payment.id}`);
    return { payment: { ...payment, invoice_id: invoice.id }, invoiceId: invoice.id, repeated };
  });
  // A repeat of the same request started nothing new.
  if (!outcome.repeated)
    await recordActivity({
      organizationId: actor.organizationId,
      userId: actor.userId,
      type: "billing",
      status: "success",
      action: "Bank transfer started",
      details: englishOf(
        words("app_activity_detail_bank_transfer_started", {
          amount: { kes: amountKes * 100 },
          reference: String(outcome.payment.reference),
        }),
      ),
    });
  return outcome;
}

/** The unique receipt a reconciled transfer carries: a bank reference credits once, whichever payment names it. */
export const bankReceipt = (statementReference: string) => `BANK-${statementReference.trim()}`;

export interface Reconciliation {
  /**
   * The value date the payer's bank gives (YYYY-MM-DD, a Nairobi day), kept on the invoice beside its
   * paid_at, which is always the moment the reconciliation was recorded (the partner ledger reads it).
   */
  valueDate?: string | null;
  note?: string | null;
  /** Runs in the credit's transaction (the admin audit record): it rolls back with it. */
  inTransaction?: (tx: Executor, payment: PaymentRow) => Promise<void>;
}

/**
 * An administrator matched the transfer on the bank statement: the wallet is credited once (the
 * payment's status guard, and the reference's receipt is unique), and its invoice marked paid and
 * reconciled, in one transaction.
 */
export async function reconcileBankTransfer(
  admin: { userId: string },
  paymentId: string,
  statementReference: string,
  options: Reconciliation = {},
) {
  const reference = statementReference.trim();
  if (!reference || reference.length > 64) throw refusePayment(422, "invalid_reference", m.billing_refusal_bank_reference());
  const [payment] = await rawQuery<PaymentRow>(`select * from payments where id = $1 and method = 'bank'`, [paymentId]);
  if (!payment) throw refusePayment(404, "not_found", m.billing_refusal_not_found());
  if (payment.status !== "pending")
    throw refusePayment(
      409,
      "payment_state",
      payment.status === "completed" ? m.billing_refusal_transfer_already_completed() : m.billing_refusal_transfer_already_failed(),
    );
  try {
    return await completePayment(
      payment.id,
      { receipt: bankReceipt(reference), via: "bank reconciliation", by: admin.userId },
      {
        inTransaction: async (tx, completed) => {
          // paid_at stays the moment it was recorded (creditPayment's now()); the payer's day and the bank's reference beside it.
          await tx.execute(sql`
            update invoices set reconciled = true, reconciled_at = now(), reconciled_by = ${admin.userId},
                   reconciliation_note = ${options.note ?? null}, value_date = ${options.valueDate ?? null}::date,
                   bank_reference = ${reference}
            where id = ${completed.invoice_id}`);
          await options.inTransaction?.(tx, completed);
        },
      },
    );
  } catch (error) {
    if (isUniqueViolation(error)) throw refusePayment(409, "duplicate_reference", m.billing_refusal_bank_reference_taken());
    throw error;
  }
}
