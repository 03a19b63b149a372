import { sql } from "drizzle-orm";
import { db } from "../../../infrastructure/db/client";
import { queryRows } from "../../../infrastructure/db/query";
import type { CurrentUser } from "../../auth";
import type { PlatformScope } from "../../../infrastructure/db/scope";
import type { RequestMeta } from "../../../infrastructure/http/request-meta";
import { isUuid } from "../../../infrastructure/db/keyset";
import { invoiceDocument, nairobiDate } from "../../billing";
import { queueMail } from "../../../infrastructure/mail/queue";
import { wakeWorkers } from "../../../infrastructure/jobs/worker";
import { env } from "../../../infrastructure/config/env";
import { formatKes } from "~/lib/invoice";
import { amountDueCents, transferReference } from "~/lib/invoice-document";
import { longDate } from "~/lib/billing-words";
import { recordAdminAction } from "../audit";
import { refuseAdminBilling, NOT_FOUND } from "./refusal";
import { isReconcilable } from "./invoice-table";
import { m } from "~/paraglide/messages";

/** An invoice as the console shows it: the document, its organisation, its payment and reconciliation, its disputes. */
export async function adminInvoice(_scope: PlatformScope, invoiceId: string) {
  if (!isUuid(invoiceId)) return null;
  const [row] = await queryRows<{
    id: string;
    organization_id: string;
    business: string | null;
    kind: string;
    status: string;
    payment_method: string | null;
    payment_id: string | null;
    payment_reference: string | null;
    reconciled: boolean;
    reconciled_at: string | Date | null;
    reconciled_by_email: string | null;
    reconciliation_note: string | null;
    value_date: string | Date | null;
    bank_reference: string | null;
    reminders: number;
    last_reminder_at: string | Date | null;
    credits_invoice_id: string | null;
    credits_number: string | null;
    owner_email: string | null;
  }>(
    db(),
    sql`
    select i.id, i.organization_id, o.name as business, i.kind, i.status, i.payment_method, i.payment_id, i.payment_reference,
           i.reconciled, i.reconciled_at, r.email as reconciled_by_email, i.reconciliation_note, i.value_date, i.bank_reference, i.reminders, i.last_reminder_at,
           i.credits_invoice_id, c.number as credits_number,
           (select email from users u where u.organization_id = i.organization_id and u.org_role = 'owner' order by u.created_at limit 1) as owner_email
    from invoices i
    left join organizations o on o.id = i.organization_id
    left join users r on r.id = i.reconciled_by
    left join invoices c on c.id = i.credits_invoice_id
    where i.id = ${invoiceId}`,
  );
  if (!row) return null;
  const document = await invoiceDocument(row.organization_id, invoiceId);
  if (!document) return null;
  const disputes = await queryRows<{ id: string; status: string; outcome: string | null; reason: string; created_at: string | Date }>(
    db(),
    sql`
    select id, status, outcome, reason, created_at from invoice_disputes where invoice_id = ${invoiceId} order by created_at desc`,
  );
  const when = (v: string | Date | null) => (v === null ? null : new Date(v).toISOString());
  return {
    id: row.id,
    organizationId: row.organization_id,
    businessName: row.business ?? document.buyer.name,
    ownerEmail: row.owner_email,
    document,
    kind: row.kind,
    status: row.status,
    paymentMethod: row.payment_method,
    paymentReference: row.payment_reference,
    reconciled: row.reconciled,
    reconciledAt: when(row.reconciled_at),
    reconciledBy: row.reconciled_by_email,
    reconciliationNote: row.reconciliation_note,
    /** The payer's value date (YYYY-MM-DD) of a reconciled transfer, and the bank's own reference. */
    valueDate: document.valueDate,
    bankReference: row.bank_reference,
    reminders: Number(row.reminders),
    lastReminderAt: when(row.last_reminder_at),
    creditsInvoice: row.credits_invoice_id ? { id: row.credits_invoice_id, number: row.credits_number ?? "" } : null,
    reconcilable: isReconcilable({ status: row.status, reconciled: row.reconciled, kind: row.kind, paymentMethod: row.payment_method }),
    remindable: row.status === "pending" || row.status === "overdue",
    disputes: disputes.map((d) => ({ id: d.id, status: d.status, outcome: d.outcome, reason: d.reason, raisedAt: when(d.created_at)! })),
  };
}
export type AdminInvoice = NonNullable<Awaited<ReturnType<typeof adminInvoice>>>;

/** " is due on 9 December 2026", " is due today", " was due on 9 November 2026" (Nairobi days), or " is awaiting payment". */
export function dueWords(dueAt: string | null, now = new Date()): string {
  if (!dueAt) return " is awaiting payment";
  const due = nairobiDate(new Date(dueAt));
  const today = nairobiDate(now);
  if (due === today) return ` is due today, ${longDate(due)}`;
  return due > today ? ` is due on ${longDate(due)}` : ` was due on ${longDate(due)}`;
}

/** The reminder's words: what is owed, by when (is due or was due, as the day is), and how to pay or dispute it. */
export function reminderMail(
  to: string,
  invoice: { number: string; totalCents: number; dueAt: string | null; business: string; reference: string },
  now = new Date(),
) {
  const link = `${env().APP_URL}/billing`;
  return {
    to,
    subject: `Reminder: invoice ${invoice.number} for ${formatKes(invoice.totalCents)}`,
    text: [
      `Hello,`,
      ``,
      `Invoice ${invoice.number} for ${invoice.business}, ${formatKes(invoice.totalCents)},${dueWords(invoice.dueAt, now)}.`,
      `Pay it on the Billing page by M-Pesa, card or bank transfer: ${link}`,
      `For a bank transfer, quote the reference ${invoice.reference}.`,
      `If something on it is wrong, dispute it there and our billing team will reply.`,
      ``,
      `Jumbe billing`,
    ].join("\n"),
  };
}

/**
 * Send Reminder: e-mails the organisation's owner about an unpaid invoice, counts it on the invoice
 * (reminders, last_reminder_at) and records the action. A paid, void or disputed invoice is refused.
 */
export async function sendInvoiceReminder(current: CurrentUser, meta: RequestMeta, invoiceId: string) {
  const invoice = await adminInvoice({ kind: "platform" }, invoiceId);
  if (!invoice) throw refuseAdminBilling(404, NOT_FOUND);
  if (!invoice.remindable)
    throw refuseAdminBilling(
      409,
      invoice.status === "paid"
        ? m.admin_reminder_paid({ number: invoice.document.number })
        : invoice.status === "void"
          ? m.admin_reminder_void({ number: invoice.document.number })
          : m.admin_reminder_not_unpaid({ number: invoice.document.number, status: invoice.status }),
    );
  if (!invoice.ownerEmail) throw refuseAdminBilling(409, m.admin_reminder_no_owner());
  const mail = reminderMail(invoice.ownerEmail, {
    number: invoice.document.number,
    totalCents: amountDueCents(invoice.document),
    dueAt: invoice.document.dueAt,
    business: invoice.businessName,
    reference: transferReference(invoice.document),
  });
  await db().transaction(async (tx) => {
    // Queued with the count, so a mail server that is down fails no click and the job retries it.
    await queueMail(mail, { executor: tx });
    const result = await queryRows<{ reminders: number }>(
      tx,
      sql`
      update invoices set reminders = reminders + 1, last_reminder_at = now() where id = ${invoiceId} returning reminders`,
    );
    await recordAdminAction(tx, current, meta, {
      action: "invoice.reminder",
      organizationId: invoice.organizationId,
      targetType: "invoice",
      targetId: invoiceId,
      before: { reminders: invoice.reminders },
      after: { reminders: Number(result[0]?.reminders ?? invoice.reminders + 1), to: invoice.ownerEmail },
    });
  });
  wakeWorkers();
  return { number: invoice.document.number, to: invoice.ownerEmail };
}
