import { rawQuery } from "../../infrastructure/db/client";
import { listInvoices, type InvoiceRow } from "./invoices";
import { paymentView, type PaymentRow, type PaymentView } from "./payments";
import { periodAt, type Period } from "./periods";
import { listPlans } from "./settings";
import { walletSummary } from "./summary";
import { USAGE_ROWS } from "./usage-fold";
import { m } from "~/paraglide/messages";

/**
 * What the /billing pages read, in few statements: the wallet and plan, the price list, the invoice
 * history, this period's spend broken down by template category and by number, and the wallet's
 * alert settings (side by side); a payment with its document and the wallet after it.
 */

export interface SpendLine {
  /** The template category ("marketing", "utility", ...) or the number's display form. */
  label: string;
  messages: number;
  amountCents: number;
}

export interface SpendBreakdown {
  byCategory: SpendLine[];
  byNumber: SpendLine[];
}

/** This period's usage rollup grouped by category and by number in one statement (grouping sets). */
export async function spendBreakdown(organizationId: string, period: Pick<Period, "start" | "end">): Promise<SpendBreakdown> {
  const rows = await rawQuery<{
    category: string | null;
    phone_number_id: string | null;
    display: string | null;
    grouped_by_category: number;
    messages: number | string;
    amount_cents: number | string;
  }>(
    `select u.category, u.phone_number_id, max(n.display_phone_number) as display,
            grouping(u.category)::int as grouped_by_category,
            sum(u.messages)::bigint as messages, sum(u.amount_cents)::bigint as amount_cents
     from ${USAGE_ROWS} u
     left join whatsapp_phone_numbers n on n.phone_number_id = u.phone_number_id and n.organization_id = u.organization_id
     where u.organization_id = $1 and u.day between $2::date and $3::date
     group by grouping sets ((u.category), (u.phone_number_id))
     order by amount_cents desc, messages desc`,
    [organizationId, period.start, period.end],
  );
  const line = (label: string, r: (typeof rows)[number]): SpendLine => ({
    label,
    messages: Number(r.messages),
    amountCents: Number(r.amount_cents),
  });
  return {
    // grouping(category) is 0 where the row is a category's total, 1 where it is a number's.
    byCategory: rows.filter((r) => Number(r.grouped_by_category) === 0).map((r) => line(r.category ?? "other", r)),
    byNumber: rows
      .filter((r) => Number(r.grouped_by_category) === 1)
      .map((r) => line(r.display ?? r.phone_number_id ?? m.billing_spend_unknown_number(), r)),
  };
}

export interface WalletAlerts {
  lowBalanceCents: number | null;
  autoTopupBelowCents: number | null;
  autoTopupAmountCents: number | null;
  autoTopupPhone: string | null;
}

/** The wallet's low-balance alert and automatic M-Pesa prompt, as saved. */
export async function walletAlerts(organizationId: string): Promise<WalletAlerts> {
  const [row] = await rawQuery<{
    low_balance_threshold_cents: number | string | null;
    auto_topup_threshold_cents: number | string | null;
    auto_topup_amount_cents: number | string | null;
    auto_topup_phone: string | null;
  }>(
    `select low_balance_threshold_cents, auto_topup_threshold_cents, auto_topup_amount_cents, auto_topup_phone
     from wallets where organization_id = $1`,
    [organizationId],
  );
  const cents = (value: number | string | null | undefined) => (value === null || value === undefined ? null : Number(value));
  return {
    lowBalanceCents: cents(row?.low_balance_threshold_cents),
    autoTopupBelowCents: cents(row?.auto_topup_threshold_cents),
    autoTopupAmountCents: cents(row?.auto_topup_amount_cents),
    autoTopupPhone: row?.auto_topup_phone ?? null,
  };
}

/** How many invoices /billing lists. */
export const BILLING_PAGE_INVOICES = 25;

/** Everything /billing shows, read side by side: five statements. */
export async function billingPageData(organizationId: string, now = new Date()) {
  const period = periodAt(now);
  const [summary, plans, invoices, spend, alerts] = await Promise.all([
    walletSummary(organizationId, now),
    listPlans(),
    listInvoices(organizationId, { limit: BILLING_PAGE_INVOICES }),
    spendBreakdown(organizationId, period),
    walletAlerts(organizationId),
  ]);
  return { summary, plans, invoices: invoices.map(invoiceLineOf), spend, alerts };
}

/** An invoice as a line of /billing's history shows it: not its plan, method, due and paid dates (issue 42). */
export type InvoiceLine = Pick<
  InvoiceRow,
  "id" | "number" | "status" | "description" | "issuedAt" | "totalCents" | "creditedCents" | "disputeReason" | "disputeOutcome"
>;

function invoiceLineOf(row: InvoiceRow): InvoiceLine {
  const { id, number, status, description, issuedAt, totalCents, creditedCents, disputeReason, disputeOutcome } = row;
  return { id, number, status, description, issuedAt, totalCents, creditedCents, disputeReason, disputeOutcome };
}
export type BillingPageData = Awaited<ReturnType<typeof billingPageData>>;
export type { InvoiceRow };

export interface PaymentPage {
  payment: PaymentView;
  phone: string | null;
  reference: string | null;
  /** Its receipt or tax invoice (a bank transfer's pending invoice), when there is one. */
  invoice: { id: string; number: string; status: string } | null;
  balanceCents: number;
}

/** One of the organisation's payments with its document and the wallet's balance now, in one statement (null: not theirs). */
export async function paymentPageData(organizationId: string, paymentId: string): Promise<PaymentPage | null> {
  if (!/^[0-9a-f-]{36}$/i.test(paymentId)) return null;
  const [row] = await rawQuery<
    PaymentRow & {
      invoice_ref_id: string | null;
      invoice_number: string | null;
      invoice_status: string | null;
      wallet_balance_cents: number | string | null;
    }
  >(
    `select p.*, i.id as invoice_ref_id, i.number as invoice_number, i.status as invoice_status, w.balance_cents as wallet_balance_cents
     from payments p
     left join lateral (select id, number, status from invoices
                        where organization_id = p.organization_id and (id = p.invoice_id or payment_id = p.id)
                        order by (id = p.invoice_id) is true desc limit 1) i on true
     left join wallets w on w.organization_id = p.organization_id
     where p.id = $1 and p.organization_id = $2`,
    [paymentId, organizationId],
  );
  if (!row) return null;
  return {
    payment: paymentView(row),
    phone: row.phone,
    reference: row.reference,
    invoice: row.invoice_ref_id ? { id: row.invoice_ref_id, number: row.invoice_number!, status: row.invoice_status! } : null,
    balanceCents: Number(row.wallet_balance_cents ?? 0),
  };
}

/** An invoice's open dispute, if any: its reason and when it was raised. */
export async function openDisputeOf(organizationId: string, invoiceId: string) {
  if (!/^[0-9a-f-]{36}$/i.test(invoiceId)) return null;
  const [row] = await rawQuery<{ reason: string; created_at: Date | string }>(
    `select reason, created_at from invoice_disputes where invoice_id = $1 and organization_id = $2 and status = 'open'
     order by created_at desc limit 1`,
    [invoiceId, organizationId],
  );
  return row ? { reason: row.reason, raisedAt: new Date(row.created_at).toISOString() } : null;
}

/** How the invoice's last dispute was resolved (issue 19), as the tenant sees it: null while none was. */
export async function resolvedDisputeOf(organizationId: string, invoiceId: string) {
  if (!/^[0-9a-f-]{36}$/i.test(invoiceId)) return null;
  const [row] = await rawQuery<{
    outcome: "credited" | "rejected";
    resolution: string | null;
    resolved_at: Date | string;
    credit_note_id: string | null;
    credit_note_number: string | null;
  }>(
    `select d.outcome, d.resolution, d.resolved_at, d.credit_note_id, c.number as credit_note_number
     from invoice_disputes d left join invoices c on c.id = d.credit_note_id
     where d.invoice_id = $1 and d.organization_id = $2 and d.status = 'resolved' and d.outcome is not null
     order by d.resolved_at desc limit 1`,
    [invoiceId, organizationId],
  );
  return row
    ? {
        outcome: row.outcome,
        note: row.resolution,
        resolvedAt: new Date(row.resolved_at).toISOString(),
        creditNote: row.credit_note_id ? { id: row.credit_note_id, number: row.credit_note_number! } : null,
      }
    : null;
}
