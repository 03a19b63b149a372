import { sql } from "drizzle-orm";
import { db } from "../../../infrastructure/db/client";
import { queryRows } from "../../../infrastructure/db/query";
import type { CurrentUser } from "../../auth";
import type { RequestMeta } from "../../../infrastructure/http/request-meta";
import { isUuid } from "../../../infrastructure/db/keyset";
import { reconcileBankTransfer, AMOUNT_DUE_SQL, createPayment, nairobiDate } from "../../billing";
import { formatKes } from "~/lib/invoice";
import { recordAdminAction } from "../audit";
import { parseShillings, refuseAdminBilling, NOT_FOUND } from "./refusal";
import { isReconcilable } from "./invoice-table";
import { RECONCILE_NOTE_MAX } from "~/lib/admin-billing";
import { isRefusal } from "../../../infrastructure/refusal";
import { formatNumber } from "~/lib/dates";
import { m } from "~/paraglide/messages";

/**
 * Mark as Reconciled: an administrator found the transfer on the bank statement. An unreconciled
 * invoice still awaiting its money qualifies: a bank transfer the tenant started (JMB-BT-…), or any
 * unpaid tax invoice, whose number the invoice and its reminders tell the payer to quote. It is paid
 * for its amount due (a partly credited invoice: the rest), through completePayment like any payment.
 * The wallet is credited exactly once however often it is submitted (a second submit, a double click,
 * two administrators at once): the payment's guarded status change, and the statement reference as a
 * unique receipt. The invoice's paid_at is the moment this is recorded; the payment date given is its
 * value date, kept beside it. The audit record is in the credit's transaction.
 */
export interface ReconcileInput {
  reference: string;
  paymentDate: string;
  note: string;
  /** The amount on the statement (KES, optional): when given it must be the amount due. */
  amount?: string;
}

/** The payment date as the payer's bank gives it (a Nairobi day): the invoice's value date. */
function parsePaymentDate(value: string, issuedAt: Date, now = new Date()): string {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value) || Number.isNaN(Date.parse(`${value}T00:00:00Z`)))
    throw refuseAdminBilling(422, m.admin_reconcile_date_format(), "paymentDate");
  if (value > nairobiDate(now)) throw refuseAdminBilling(422, m.admin_reconcile_date_future(), "paymentDate");
  if (value < nairobiDate(issuedAt))
    throw refuseAdminBilling(422, m.admin_reconcile_date_before_issue({ date: nairobiDate(issuedAt) }), "paymentDate");
  return value;
}

/** The statement's amount in cents ("17,400", "17400.00"); undefined when left empty. */
function parseStatementAmount(value: string | undefined): number | undefined {
  if (!value?.trim()) return undefined;
  const cents = parseShillings(value);
  if (cents === null) throw refuseAdminBilling(422, m.admin_reconcile_amount_format(), "amount");
  return cents;
}

export async function reconcileInvoice(current: CurrentUser, meta: RequestMeta, invoiceId: string, input: ReconcileInput) {
  if (!isUuid(invoiceId)) throw refuseAdminBilling(404, NOT_FOUND);
  const [invoice] = await queryRows<{
    id: string;
    number: string;
    organization_id: string;
    kind: string;
    status: string;
    reconciled: boolean;
    payment_method: string | null;
    payment_id: string | null;
    total_cents: string | number;
    issued_at: string | Date;
  }>(
    db(),
    sql`select i.id, i.number, i.organization_id, i.kind, i.status, i.reconciled, i.payment_method, i.payment_id,
                ${AMOUNT_DUE_SQL} as total_cents, i.issued_at
         from invoices i where i.id = ${invoiceId}`,
  );
  if (!invoice) throw refuseAdminBilling(404, NOT_FOUND);
  if (!isReconcilable({ ...invoice, paymentMethod: invoice.payment_method }))
    throw refuseAdminBilling(
      409,
      invoice.reconciled
        ? m.admin_reconcile_already({ number: invoice.number })
        : invoice.status === "paid"
          ? m.admin_reconcile_paid({ number: invoice.number })
          : m.admin_reconcile_not_transfer({ number: invoice.number }),
    );
  const reference = input.reference.trim();
  if (!reference || reference.length > 64) throw refuseAdminBilling(422, m.admin_reconcile_reference_required(), "reference");
  if (input.note.length > RECONCILE_NOTE_MAX)
    throw refuseAdminBilling(422, m.admin_reconcile_notes_long({ max: formatNumber(RECONCILE_NOTE_MAX) }), "note");
  const valueDate = parsePaymentDate(input.paymentDate, new Date(invoice.issued_at));
  const dueCents = Number(invoice.total_cents);
  const statementCents = parseStatementAmount(input.amount);
  if (statementCents !== undefined && statementCents !== dueCents)
    throw refuseAdminBilling(
      422,
      m.admin_reconcile_amount_mismatch({ amount: formatKes(statementCents), due: formatKes(dueCents), number: invoice.number }),
      "amount",
    );
  const paymentId = invoice.payment_id ?? (await paymentForInvoice(invoice));
  try {
    const done = await reconcileBankTransfer({ userId: current.user.id }, paymentId, reference, {
      valueDate,
      note: input.note || null,
      inTransaction: async (tx) => {
        // The ledger's executor is the same transaction the audit record belongs in.
        await recordAdminAction(tx, current, meta, {
          action: "invoice.reconcile",
          organizationId: invoice.organization_id,
          targetType: "invoice",
          targetId: invoice.id,
          reason: input.note || null,
          before: { status: invoice.status, reconciled: false },
          after: {
            status: "paid",
            reconciled: true,
            reference,
            paymentDate: input.paymentDate,
            creditedCents: Number(invoice.total_cents),
          },
        });
      },
    });
    if (!done) throw refuseAdminBilling(409, m.admin_reconcile_already({ number: invoice.number }));
    return { number: invoice.number, amountCents: Number(invoice.total_cents) };
  } catch (error) {
    if (isRefusal(error, "payment"))
      throw refuseAdminBilling(
        error.status === 404 ? 404 : error.status === 422 ? 422 : 409,
        error.code === "payment_state" ? m.admin_reconcile_already({ number: invoice.number }) : error.message,
        error.code === "invalid_reference" || error.code === "duplicate_reference" ? "reference" : undefined,
      );
    throw error;
  }
}

/**
 * An invoice reconciled without a payment of its own (a postpaid month paid by a transfer quoting
 * its number) gets one, once, for its amount due: the idempotency key names the invoice.
 */
async function paymentForInvoice(invoice: { id: string; number: string; organization_id: string; total_cents: string | number }) {
  const { payment } = await db().transaction((tx) =>
    createPayment(tx, {
      organizationId: invoice.organization_id,
      method: "bank",
      amountCents: Number(invoice.total_cents),
      invoiceId: invoice.id,
      // The reference the payer was told to quote: the invoice's number.
      reference: invoice.number,
      idempotencyKey: `reconcile:${invoice.id}`,
    }),
  );
  return payment.id;
}
