import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { sql } from "drizzle-orm";
import { db, rawQuery, type Executor } from "../../infrastructure/db/client";
import { queryRow, queryRows } from "../../infrastructure/db/query";
import type { PaymentMethod } from "../../infrastructure/db/schema/billing";
import { recordActivity } from "../activity";
import { notify } from "../notifications";
import { englishOf, words, type Message, type MessageKey, type Said } from "../../infrastructure/words/said";
import { changeWallet } from "./ledger";
import { AMOUNT_DUE_SQL, issueInvoice } from "./invoices";
import { lineFromGross, lineFromNet } from "./vat";
import { announceWalletCredited } from "./wallet-credited";
import { payOpenInvoicesFromWallet } from "./settle-invoices";
import { clearLowBalanceAlert } from "./low-balance";
import { Refusal } from "../../infrastructure/refusal";
import { formatNumber } from "~/lib/dates";
import { m } from "~/paraglide/messages";

/**
 * Payments in (decision 035): created pending, then completed exactly once (the status guard, and a
 * receipt number that credits once) or failed with the reason in words. Completing credits the
 * wallet, writes the receipt or tax invoice, pays the invoice it was for, and wakes what waited.
 */

/** Top-up bounds, in shillings: M-Pesa takes whole shillings up to 250,000 a transaction. */
export const TOPUP_MIN_KES = 10;
export const TOPUP_MAX_KES = 250_000;

/** A refusal of a payment request: the field it is about and a sentence for the member. */
export const refusePayment = (
  status: 400 | 404 | 409 | 422 | 502 | 503,
  code: string,
  message: string,
  field?: "amount" | "phone" | "method" | "email",
) => new Refusal({ domain: "payment", status, code, message, field });

/** "Enter a whole number of shillings from KES 10 to KES 250,000.", in the request's language. */
export const amountWords = () => m.billing_refusal_topup_amount({ min: formatNumber(TOPUP_MIN_KES), max: formatNumber(TOPUP_MAX_KES) });

/** A top-up amount in shillings from a form or JSON (a number, or digits with optional commas). */
export function parseTopupAmount(value: unknown): number {
  const text = typeof value === "number" ? String(value) : typeof value === "string" ? value.trim().replace(/,/g, "") : "";
  if (!/^\d{1,7}(\.0{1,2})?$/.test(text)) throw refusePayment(422, "invalid_amount", amountWords(), "amount");
  const amount = Number(text);
  if (amount < TOPUP_MIN_KES || amount > TOPUP_MAX_KES) throw refusePayment(422, "invalid_amount", amountWords(), "amount");
  return amount;
}

export interface PaymentRow {
  id: string;
  organization_id: string;
  method: PaymentMethod;
  status: "pending" | "completed" | "failed";
  amount_cents: number | string;
  invoice_id: string | null;
  phone: string | null;
  checkout_request_id: string | null;
  merchant_request_id: string | null;
  callback_secret_hash: string | null;
  reference: string | null;
  checkout_url: string | null;
  receipt: string | null;
  result_code: string | null;
  failure_reason: string | null;
  checks: number;
  automatic: boolean;
  created_by: string | null;
  created_at: Date | string;
  completed_at: Date | string | null;
}

/** A secret for one payment's callback address, and the hash stored in its place. */
export function callbackSecret() {
  const secret = randomBytes(24).toString("base64url");
  return { secret, hash: hashSecret(secret) };
}
export const hashSecret = (secret: string) => createHash("sha256").update(secret).digest("hex");

/** Whether `secret` is the payment's callback secret (constant time). */
export function secretMatches(payment: Pick<PaymentRow, "callback_secret_hash">, secret: string) {
  if (!payment.callback_secret_hash) return false;
  const a = Buffer.from(payment.callback_secret_hash, "hex");
  const b = Buffer.from(hashSecret(secret), "hex");
  return a.length === b.length && timingSafeEqual(a, b);
}

export async function paymentById(id: string): Promise<PaymentRow | undefined> {
  if (!/^[0-9a-f-]{36}$/i.test(id)) return undefined;
  return (await rawQuery<PaymentRow>(`select * from payments where id = $1`, [id]))[0];
}

/** One of the organisation's payments (undefined: not theirs, or none). */
export async function paymentOf(organizationId: string, id: string): Promise<PaymentRow | undefined> {
  if (!/^[0-9a-f-]{36}$/i.test(id)) return undefined;
  return (await rawQuery<PaymentRow>(`select * from payments where id = $1 and organization_id = $2`, [id, organizationId]))[0];
}

export interface NewPayment {
  organizationId: string;
  method: PaymentMethod;
  amountCents: number;
  invoiceId?: string | null;
  phone?: string | null;
  reference?: string | null;
  callbackSecretHash?: string | null;
  automatic?: boolean;
  idempotencyKey?: string | null;
  createdBy?: string | null;
  /** When to check on it first (the M-Pesa query job). */
  firstCheckAt?: Date | null;
}

/**
 * Stores a pending payment; with an idempotency key, a repeat answers the first one instead, and the
 * same key with another method, amount or invoice is refused. Every statement goes through
 * `executor`: the caller's transaction when it has one (decision 043).
 */
export async function createPayment(executor: Executor, input: NewPayment): Promise<{ payment: PaymentRow; repeated: boolean }> {
  const result = await queryRows<PaymentRow>(
    executor,
    sql`
    insert into payments (organization_id, method, amount_cents, invoice_id, phone, reference, callback_secret_hash, automatic,
                          idempotency_key, created_by, next_check_at)
    values (${input.organizationId}, ${input.method}, ${input.amountCents}, ${input.invoiceId ?? null}, ${input.phone ?? null},
            ${input.reference ?? null}, ${input.callbackSecretHash ?? null}, ${input.automatic ?? false}, ${input.idempotencyKey ?? null},
            ${input.createdBy ?? null}, ${input.firstCheckAt?.toISOString() ?? null})
    on conflict (organization_id, idempotency_key) where idempotency_key is not null do nothing
    returning *`,
  );
  if (result[0]) return { payment: result[0], repeated: false };
  const earlier = await queryRow<PaymentRow>(
    executor,
    sql`select * from payments where organization_id = ${input.organizationId} and idempotency_key = ${input.idempotencyKey ?? null}`,
  );
  if (!earlier) throw new Error("A payment's idempotency key conflicted, but no payment holds it.");
  const sameRequest =
    earlier.method === input.method &&
    Number(earlier.amount_cents) === input.amountCents &&
    // A bank transfer's invoice is its own pending document, written after the payment.
    (input.method === "bank" || (earlier.invoice_id ?? null) === (input.invoiceId ?? null)) &&
    (input.method !== "mpesa" || earlier.phone === (input.phone ?? null));
  if (!sameRequest) throw refusePayment(409, "idempotency_conflict", idempotencyConflictWords());
  return { payment: earlier, repeated: true };
}

/** A repeated Idempotency-Key with another payment behind it, in the request's language. */
export const idempotencyConflictWords = () => m.billing_refusal_idempotency_conflict();

const METHOD_WORDS: Record<PaymentMethod, string> = { mpesa: "M-Pesa", c2b: "M-Pesa paybill", card: "card", bank: "bank transfer" };
const METHOD_NOTICE: Record<PaymentMethod, Message> = {
  mpesa: words("app_notice_method_mpesa"),
  c2b: words("app_notice_method_c2b"),
  card: words("app_notice_method_card"),
  bank: words("app_notice_method_bank"),
};
const VIA_NOTICE = new Map<string, MessageKey>([
  ["M-Pesa", "app_notice_via_mpesa"],
  ["M-Pesa's status query", "app_notice_via_mpesa_query"],
  ["M-Pesa paybill", "app_notice_via_paybill"],
  ["Paystack", "app_notice_via_paystack"],
  ["Paystack's verification", "app_notice_via_paystack_check"],
  ["bank reconciliation", "app_notice_via_bank"],
]);
/** Who confirmed a payment, in the reader's words when it is one of Jumbe's confirmations (else as given). */
const viaWords = (via: string): Said => {
  const key = VIA_NOTICE.get(via);
  return key ? words(key) : via;
};

/**
 * Completes a pending payment once: the wallet is credited (keyed by the receipt, so a receipt
 * number credits once across M-Pesa Express and the paybill), its receipt or tax invoice written,
 * and the invoice it paid marked paid. Answers null when it was not pending (already settled).
 */
export async function completePayment(
  paymentId: string,
  confirmation: {
    receipt: string | null;
    via: string;
    /** Who confirmed it (an administrator reconciling); the payer when not given. */ by?: string;
  },
  options: { inTransaction?: (tx: Executor, payment: PaymentRow) => Promise<void> } = {},
) {
  const done = await db().transaction(async (tx) => {
    const result = await queryRows<PaymentRow>(
      tx,
      sql`
      update payments set status = 'completed', receipt = coalesce(receipt, ${confirmation.receipt}), completed_at = now(),
             next_check_at = null, result_code = coalesce(result_code, '0')
      where id = ${paymentId} and status = 'pending'
      returning *`,
    );
    const payment = result[0];
    if (!payment) return null;
    await creditPayment(tx, payment, confirmation.via, confirmation.by);
    // What must happen with the credit or not at all (the reconciliation's own fields, the admin audit record).
    await options.inTransaction?.(tx, payment);
    return payment;
  });
  if (done) await afterCredit(done);
  return done;
}

/**
 * The reference a payment is known by on its documents, e-mails and the API: the receipt M-Pesa or
 * Paystack gave; for a bank transfer the one the payer quoted (JMB-BT-…, or the invoice's number),
 * never the ledger's unique key for the bank's reference (`BANK-…`, see bankReceipt).
 */
export const payerReference = (payment: Pick<PaymentRow, "method" | "receipt" | "reference">) =>
  payment.method === "bank" ? (payment.reference ?? payment.receipt) : (payment.receipt ?? payment.reference);

/** The wallet side of a completed payment, in its transaction. */
export async function creditPayment(tx: Executor, payment: PaymentRow, via: string, by?: string) {
  const amountCents = Number(payment.amount_cents);
  const entry = await changeWallet(tx, {
    organizationId: payment.organization_id,
    kind: "topup",
    amountCents,
    paymentId: payment.id,
    receipt: payment.receipt,
    description: `${METHOD_WORDS[payment.method]} payment ${payerReference(payment) ?? ""}`.trim(),
    createdBy: by ?? payment.created_by,
  });
  if (!entry) throw new Error(`The wallet of ${payment.organization_id} refused a credit.`);
  const invoice = payment.invoice_id
    ? await queryRow<{ id: string; kind: string; total_cents: number | string }>(
        tx,
        sql`select i.id, i.kind, ${AMOUNT_DUE_SQL} as total_cents from invoices i where i.id = ${payment.invoice_id} for update`,
      )
    : undefined;
  const method = payment.method === "c2b" ? "mpesa" : payment.method;
  if (invoice?.kind === "subscription") {
    // The invoice it was for is paid with it (its method and receipt on the invoice), if still open.
    const open = await queryRow<{ number: string }>(
      tx,
      sql`select number from invoices where id = ${invoice.id} and status in ('pending', 'overdue')`,
    );
    const total = Number(invoice.total_cents);
    const paid = open
      ? await changeWallet(tx, {
          organizationId: payment.organization_id,
          kind: "invoice_payment",
          amountCents: -total,
          invoiceId: invoice.id,
          paymentId: payment.id,
          description: `Invoice ${open.number} paid by ${METHOD_WORDS[payment.method]}`,
        })
      : null;
    if (paid)
      await tx.execute(sql`
        update invoices set status = 'paid', paid_at = now(), payment_id = ${payment.id}, payment_method = ${method},
               payment_reference = ${payerReference(payment)}
        where id = ${invoice.id}`);
  } else if (invoice) {
    // A bank transfer's own invoice: the money in is the top-up it invoiced.
    await tx.execute(sql`
      update invoices set status = 'paid', paid_at = now(), payment_id = ${payment.id}, payment_method = ${method},
             payment_reference = ${payerReference(payment)}
      where id = ${invoice.id}`);
  } else if (!invoice) {
    await issueTopupDocument(tx, payment);
  }
  // A postpaid organisation's money on account pays its open invoices, oldest first.
  await payOpenInvoicesFromWallet(tx, payment.organization_id);
  await notify(
    {
      organizationId: payment.organization_id,
      event: "payment_received",
      // The method and who confirmed it in the reader's words; a receipt number is M-Pesa's or Paystack's.
      words: {
        title: words("app_notice_payment_received_title", { amount: { kes: amountCents } }),
        body: payerReference(payment)
          ? words("app_notice_payment_received_receipt_body", {
              method: METHOD_NOTICE[payment.method],
              receipt: payerReference(payment)!,
              via: viaWords(via),
            })
          : words("app_notice_payment_received_body", { method: METHOD_NOTICE[payment.method], via: viaWords(via) }),
      },
      link: "/billing",
      dedupeKey: `payment-received:${payment.id}`,
      userIds: [payment.created_by],
    },
    tx,
  );
}

/** The document of a top-up: a tax invoice for a prepaid wallet (VAT inside), a receipt on account for a postpaid one. */
export async function issueTopupDocument(tx: Executor, payment: PaymentRow, options: { pending?: boolean } = {}) {
  const result = await queryRows<{ billing_type: string; plan_type: string }>(
    tx,
    sql`select billing_type, plan_type from organizations where id = ${payment.organization_id}`,
  );
  const org = result[0]!;
  const prepaid = org.billing_type === "prepaid";
  const amountCents = Number(payment.amount_cents);
  const line = { description: "Wallet top-up", itemCode: "JMB-TOPUP", quantity: 1, unit: "top-up", unitPriceCents: amountCents };
  const method = payment.method === "c2b" ? "mpesa" : payment.method;
  return issueInvoice(tx, {
    organizationId: payment.organization_id,
    series: prepaid ? "INV" : "RCT",
    kind: options.pending ? "bank_transfer" : "topup",
    status: options.pending ? "pending" : "paid",
    description: `${prepaid ? "Wallet top-up" : "Payment on account"}${options.pending ? " by bank transfer" : ""}`,
    dueAt: options.pending ? new Date(Date.now() + 14 * 86_400_000) : null,
    // Postpaid money on account carries no VAT of its own: the monthly invoice does.
    lines: [prepaid ? lineFromGross(line) : { ...lineFromNet(line), vatCents: 0, grossCents: amountCents }],
    pricesIncludeVat: prepaid,
    paidAt: options.pending ? null : new Date(),
    planType: org.plan_type,
    billingType: prepaid ? "prepaid" : "postpaid",
    paymentId: payment.id,
    paymentMethod: method,
    paymentReference: options.pending ? payment.reference : payerReference(payment),
  });
}

/** After a credit commits: campaigns that waited for money resume, and the low-balance alert may fire again later. */
async function afterCredit(payment: PaymentRow) {
  await clearLowBalanceAlert(payment.organization_id);
  await announceWalletCredited(payment.organization_id);
  await recordActivity({
    organizationId: payment.organization_id,
    userId: payment.created_by,
    type: "billing",
    status: "success",
    action: "Payment received",
    details: englishOf(
      payerReference(payment)
        ? words("app_activity_detail_payment_received_receipt", {
            amount: { kes: Number(payment.amount_cents) },
            method: METHOD_NOTICE[payment.method],
            receipt: payerReference(payment)!,
          })
        : words("app_activity_detail_payment_received", {
            amount: { kes: Number(payment.amount_cents) },
            method: METHOD_NOTICE[payment.method],
          }),
    ),
  });
}

/** Fails a pending payment once, with Safaricom's or Paystack's code and the reason in words. */
export async function failPayment(paymentId: string, failure: { code: string; reason: string }) {
  const payment = await db().transaction(async (tx) => {
    const result = await queryRows<PaymentRow>(
      tx,
      sql`
      update payments set status = 'failed', result_code = ${failure.code}, failure_reason = ${failure.reason}, completed_at = now(),
             next_check_at = null
      where id = ${paymentId} and status = 'pending'
      returning *`,
    );
    const failed = result[0];
    if (!failed) return null;
    await notify(
      {
        organizationId: failed.organization_id,
        event: "payment_failed",
        // The reason is Safaricom's or Paystack's own text, kept as they wrote it.
        words: {
          title: words("app_notice_payment_failed_title", { amount: { kes: Number(failed.amount_cents) } }),
          body: failure.reason,
        },
        link: "/billing",
        dedupeKey: `payment-failed:${failed.id}`,
        userIds: [failed.created_by],
        roles: [],
      },
      tx,
    );
    return failed;
  });
  if (payment)
    await recordActivity({
      organizationId: payment.organization_id,
      userId: payment.created_by,
      type: "billing",
      status: "warning",
      action: "Payment failed",
      // Safaricom's or Paystack's reason as they wrote it.
      details: englishOf(
        words("app_activity_detail_payment_failed", {
          amount: { kes: Number(payment.amount_cents) },
          method: METHOD_NOTICE[payment.method],
          reason: failure.reason,
        }),
      ),
    });
  return payment;
}

/** What a member sees of a payment (the JSON API and the page's wait). */
export function paymentView(payment: PaymentRow) {
  return {
    id: payment.id,
    method: payment.method,
    status: payment.status,
    amountCents: Number(payment.amount_cents),
    amount: Number(payment.amount_cents) / 100,
    currency: "KES" as const,
    checkoutRequestId: payment.checkout_request_id,
    receipt: payment.status === "completed" ? payerReference(payment) : payment.receipt,
    reason: payment.status === "failed" ? payment.failure_reason : null,
    createdAt: new Date(payment.created_at).toISOString(),
    completedAt: payment.completed_at ? new Date(payment.completed_at).toISOString() : null,
  };
}
export type PaymentView = ReturnType<typeof paymentView>;
