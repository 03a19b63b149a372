import { sql } from "drizzle-orm";
import { rawQuery, type Executor } from "../../infrastructure/db/client";
import { queryRows } from "../../infrastructure/db/query";
import { env } from "../../infrastructure/config/env";
import type { InvoiceDocument, InvoiceKind, InvoiceLine, InvoiceStatus } from "~/lib/invoice";
import type { BillingType, PaymentMethod, Reclassification } from "../../infrastructure/db/schema/billing";
import { totalsOf } from "./vat";
import { nairobiDate } from "./periods";

/**
 * Invoices and receipts: numbered without gaps per series and year, the seller, buyer and lines
 * frozen when issued (decision 035). INV: tax invoices (prepaid top-ups, postpaid months, bank
 * transfers); RCT: receipts of money paid on account by a postpaid organisation, not tax invoices
 * (decision 050: its VAT is on the monthly tax invoice, which the receipt names).
 */
export type Series = "INV" | "RCT" | "CRN";

/** The next number of a series in a Nairobi year, taken in the caller's transaction: a rollback gives it back. */
export async function nextInvoiceNumber(tx: Executor, series: Series, year: number) {
  const result = await queryRows<{ last: number }>(
    tx,
    sql`
    insert into invoice_counters (series, year, last) values (${series}, ${year}, 1)
    on conflict (series, year) do update set last = invoice_counters.last + 1
    returning last`,
  );
  return `${series}-${year}-${String(result[0]!.last).padStart(6, "0")}`;
}

export interface IssueInvoice {
  organizationId: string;
  series: Series;
  kind: InvoiceKind;
  status: InvoiceStatus;
  description: string;
  lines: InvoiceLine[];
  pricesIncludeVat: boolean;
  issuedAt?: Date;
  dueAt?: Date | null;
  paidAt?: Date | null;
  periodStart?: string | null;
  periodEnd?: string | null;
  planType?: string | null;
  billingType?: BillingType | null;
  paymentId?: string | null;
  paymentMethod?: PaymentMethod | null;
  paymentReference?: string | null;
  /** A credit note: the invoice it credits. */
  creditsInvoiceId?: string | null;
  /** A document written by a change of billing type (decision 124). */
  reclassifies?: Reclassification | null;
}

interface Buyer {
  name: string;
  kraPin: string | null;
  address: string | null;
  county: string | null;
  businessId: string;
  email: string | null;
}

/** The organisation as its invoices name it, from Account Settings, with its owner's address. */
async function buyerOf(tx: Executor, organizationId: string): Promise<Buyer> {
  const result = await queryRows<{
    name: string;
    kra_pin: string | null;
    postal_address: string | null;
    county: string | null;
    business_id: string;
    email: string | null;
  }>(
    tx,
    sql`
    select o.name, o.kra_pin, o.postal_address, o.county, o.business_id,
           (select email from users u where u.organization_id = o.id and u.org_role = 'owner' order by created_at limit 1) as email
    from organizations o where o.id = ${organizationId}`,
  );
  const row = result[0];
  if (!row) throw new Error(`No organisation ${organizationId} to invoice.`);
  return {
    name: row.name,
    kraPin: row.kra_pin,
    address: row.postal_address,
    county: row.county,
    businessId: row.business_id,
    email: row.email,
  };
}

/** Issues an invoice or receipt in the caller's transaction; answers its id and number. */
export async function issueInvoice(tx: Executor, input: IssueInvoice): Promise<{ id: string; number: string; totalCents: number }> {
  const issuedAt = input.issuedAt ?? new Date();
  const number = await nextInvoiceNumber(tx, input.series, Number(nairobiDate(issuedAt).slice(0, 4)));
  const totals = totalsOf(input.lines);
  const config = env();
  const seller = { name: config.INVOICE_SELLER_NAME, kraPin: config.INVOICE_SELLER_KRA_PIN, address: config.INVOICE_SELLER_ADDRESS };
  const buyer = await buyerOf(tx, input.organizationId);
  const result = await queryRows<{ id: string }>(
    tx,
    sql`
    insert into invoices (organization_id, number, series, kind, status, issued_at, due_at, paid_at, period_start, period_end, description,
                          plan_type, billing_type, net_cents, vat_cents, total_cents, prices_include_vat, seller, buyer, lines,
                          payment_id, payment_method, payment_reference, credits_invoice_id, reclassifies)
    values (${input.organizationId}, ${number}, ${input.series}, ${input.kind}, ${input.status}, ${issuedAt.toISOString()},
            ${input.dueAt?.toISOString() ?? null}, ${input.paidAt?.toISOString() ?? null}, ${input.periodStart ?? null}, ${input.periodEnd ?? null},
            ${input.description}, ${input.planType ?? null}, ${input.billingType ?? null}, ${totals.netCents}, ${totals.vatCents},
            ${totals.totalCents}, ${input.pricesIncludeVat}, ${JSON.stringify(seller)}::jsonb, ${JSON.stringify(buyer)}::jsonb,
            ${JSON.stringify(input.lines)}::jsonb, ${input.paymentId ?? null}, ${input.paymentMethod ?? null}, ${input.paymentReference ?? null},
            ${input.creditsInvoiceId ?? null}, ${input.reclassifies ?? null})
    returning id`,
  );
  return { id: result[0]!.id, number, totalCents: totals.totalCents };
}

export interface InvoiceRow {
  id: string;
  number: string;
  kind: InvoiceKind;
  status: InvoiceStatus;
  description: string;
  issuedAt: string;
  dueAt: string | null;
  paidAt: string | null;
  totalCents: number;
  planType: string | null;
  billingType: BillingType | null;
  paymentMethod: PaymentMethod | null;
  /** The reference the payment is known by (an M-Pesa or card receipt; a transfer's JMB-BT-… or the invoice's number). */
  paymentReference: string | null;
  /** A reconciled transfer: the day the payer's bank gives (YYYY-MM-DD); paidAt is when it was recorded. */
  valueDate: string | null;
  /** Credit notes against it (cents): while unpaid they lower what is due. */
  creditedCents: number;
  /** An open dispute's reason. */
  disputeReason: string | null;
  /** How its last dispute was resolved (issue 19): a credit note, or rejected with a note. */
  disputeOutcome: DisputeOutcome | null;
}

export interface DisputeOutcome {
  outcome: "credited" | "rejected";
  note: string | null;
  creditNoteNumber: string | null;
  resolvedAt: string;
}

interface StoredInvoice {
  id: string;
  number: string;
  series: Series;
  kind: InvoiceKind;
  status: InvoiceStatus;
  description: string;
  issued_at: Date | string;
  due_at: Date | string | null;
  paid_at: Date | string | null;
  period_start: string | Date | null;
  period_end: string | Date | null;
  total_cents: number | string;
  net_cents: number | string;
  vat_cents: number | string;
  prices_include_vat: boolean;
  plan_type: string | null;
  billing_type: BillingType | null;
  payment_method: PaymentMethod | null;
  payment_reference: string | null;
  value_date?: string | Date | null;
  credits_invoice_id?: string | null;
  reclassifies?: Reclassification | null;
  seller: InvoiceDocument["seller"];
  buyer: InvoiceDocument["buyer"];
  lines: InvoiceLine[];
  etims_cu_serial: string | null;
  etims_cu_invoice_number: string | null;
  etims_qr_url: string | null;
  dispute_reason?: string | null;
  resolved_outcome?: "credited" | "rejected" | null;
  resolved_note?: string | null;
  resolved_credit_note?: string | null;
  resolved_at?: Date | string | null;
  credited_cents?: number | string;
}

const iso = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString());
const day = (value: Date | string | null) => (value === null ? null : typeof value === "string" ? value.slice(0, 10) : nairobiDate(value));

/** The organisation's invoices, newest first (a page of them: `limit`, before an issue time). */
export async function listInvoices(
  organizationId: string,
  options: { limit?: number; status?: InvoiceStatus } = {},
): Promise<InvoiceRow[]> {
  const rows = await rawQuery<StoredInvoice>(
    `select i.*, d.reason as dispute_reason, r.outcome as resolved_outcome, r.resolution as resolved_note,
            coalesce((select sum(c.total_cents) from invoices c where c.credits_invoice_id = i.id and c.kind = 'credit_note'), 0) as credited_cents,
            r.credit_note as resolved_credit_note, r.resolved_at
     from invoices i
     left join invoice_disputes d on d.invoice_id = i.id and d.status = 'open'
     left join lateral (select x.outcome, x.resolution, x.resolved_at, c.number as credit_note from invoice_disputes x
                        left join invoices c on c.id = x.credit_note_id
                        where x.invoice_id = i.id and x.status = 'resolved' order by x.resolved_at desc limit 1) r on true
     where i.organization_id = $1 and ($2::text is null or i.status = $2)
     order by i.issued_at desc, i.number desc limit $3`,
    [organizationId, options.status ?? null, options.limit ?? 50],
  );
  return rows.map((r) => ({
    id: r.id,
    number: r.number,
    kind: r.kind,
    status: r.status,
    description: r.description,
    issuedAt: iso(r.issued_at)!,
    dueAt: iso(r.due_at),
    paidAt: iso(r.paid_at),
    totalCents: Number(r.total_cents),
    planType: r.plan_type,
    billingType: r.billing_type,
    paymentMethod: r.payment_method,
    paymentReference: r.payment_reference,
    valueDate: day(r.value_date ?? null),
    creditedCents: Number(r.credited_cents ?? 0),
    disputeReason: r.dispute_reason ?? null,
    disputeOutcome: r.resolved_outcome
      ? {
          outcome: r.resolved_outcome,
          note: r.resolved_note ?? null,
          creditNoteNumber: r.resolved_credit_note ?? null,
          resolvedAt: iso(r.resolved_at ?? null)!,
        }
      : null,
  }));
}

/** One invoice of the organisation as its document (null: not theirs, or none). */
export async function invoiceDocument(organizationId: string, invoiceId: string): Promise<InvoiceDocument | null> {
  if (!/^[0-9a-f-]{36}$/i.test(invoiceId)) return null;
  // The invoice with the credit notes against it, in one statement.
  const [row] = await rawQuery<
    StoredInvoice & { credit_notes: { number: string; total_cents: string | number }[]; credits_number: string | null }
  >(
    `select i.*, coalesce((select json_agg(json_build_object('number', c.number, 'total_cents', c.total_cents) order by c.number)
                          from invoices c where c.credits_invoice_id = i.id and c.kind = 'credit_note'), '[]'::json) as credit_notes,
            (select x.number from invoices x where x.id = i.credits_invoice_id and x.organization_id = i.organization_id) as credits_number
     from invoices i where i.id = $1 and i.organization_id = $2`,
    [invoiceId, organizationId],
  );
  if (!row) return null;
  const unpaid = row.status === "pending" || row.status === "overdue";
  const notes = typeof row.credit_notes === "string" ? (JSON.parse(row.credit_notes) as typeof row.credit_notes) : row.credit_notes;
  const credited = { cents: notes.reduce((sum, n) => sum + Number(n.total_cents), 0), notes: notes.map((n) => n.number) };
  const coveredBy = row.series === "RCT" ? await coveringInvoice(organizationId, new Date(row.issued_at)) : undefined;
  return {
    number: row.number,
    kind: row.kind,
    status: row.status,
    issuedAt: iso(row.issued_at)!,
    dueAt: iso(row.due_at),
    paidAt: iso(row.paid_at),
    valueDate: day(row.value_date ?? null),
    periodStart: day(row.period_start),
    periodEnd: day(row.period_end),
    seller: row.seller,
    buyer: row.buyer,
    lines: row.lines,
    netCents: Number(row.net_cents),
    vatCents: Number(row.vat_cents),
    totalCents: Number(row.total_cents),
    pricesIncludeVat: row.prices_include_vat,
    payment: { method: row.payment_method === "c2b" ? "mpesa" : row.payment_method, reference: row.payment_reference },
    credited: credited.cents > 0 ? credited : undefined,
    coveredBy,
    credits: row.kind === "credit_note" && row.credits_number ? { number: row.credits_number } : undefined,
    reclassifies: row.reclassifies ?? undefined,
    bank: unpaid ? env().bankTransfer : null,
    etims: { cuSerial: row.etims_cu_serial, cuInvoiceNumber: row.etims_cu_invoice_number, qrUrl: row.etims_qr_url },
  };
}

/**
 * The credit notes issued against an invoice (resolved disputes). While the invoice is unpaid they
 * lower what is due (decision 035's credit notes, issue 40): the wallet is neither credited nor charged.
 */
export async function creditedOf(invoiceId: string, executor?: Executor): Promise<{ cents: number; notes: string[] }> {
  const query = sql`select number, total_cents from invoices where credits_invoice_id = ${invoiceId} and kind = 'credit_note' order by number`;
  const rows = executor
    ? await queryRows<{ number: string; total_cents: string | number }>(executor, query)
    : await rawQuery<{ number: string; total_cents: string | number }>(
        `select number, total_cents from invoices where credits_invoice_id = $1 and kind = 'credit_note' order by number`,
        [invoiceId],
      );
  return { cents: rows.reduce((sum, r) => sum + Number(r.total_cents), 0), notes: rows.map((r) => r.number) };
}

/** SQL for what an invoice `i` still owes: its total less the credit notes against it. */
export const AMOUNT_DUE_SQL = sql`(i.total_cents - coalesce((select sum(c.total_cents) from invoices c
  where c.credits_invoice_id = i.id and c.kind = 'credit_note'), 0))`;

/**
 * The monthly tax invoice of the month a receipt's money was paid in (decision 050), as it stood when
 * the receipt was issued: its number only if it had been issued by then, so the receipt's words never
 * change afterwards (decision 105). Which invoice the money later paid is the invoice's own page's fact.
 */
async function coveringInvoice(organizationId: string, issuedAt: Date): Promise<{ number: string | null; month: string }> {
  const paidOn = nairobiDate(issuedAt);
  const [row] = await rawQuery<{ number: string }>(
    `select number from invoices where organization_id = $1 and kind = 'subscription' and series = 'INV'
       and period_start <= $2::date and period_end >= $2::date and issued_at <= $3::timestamptz order by issued_at limit 1`,
    [organizationId, paidOn, issuedAt.toISOString()],
  );
  return { number: row?.number ?? null, month: `${paidOn.slice(0, 7)}-01` };
}
