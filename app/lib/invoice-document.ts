// What an invoice document says (the page, the PDF, the console): its title, subtitle, labels and
// amounts due. Apart from app/lib/invoice.ts, whose formatters nearly every page loads, so a page
// that only shows amounts does not carry the document's words.
import { formatInvoiceDate, VAT_RATE_BASIS_POINTS, type InvoiceDocument, type InvoiceKind, type InvoiceStatus } from "./invoice";

/** What an invoice says in place of its eTIMS fields before it has been transmitted. */
export const ETIMS_PENDING_TEXT = "Pending transmission to KRA eTIMS";

/** An invoice that charges VAT is titled a tax invoice (a paid one says it is also the receipt: see `documentSubtitle`). */
export const DOCUMENT_TITLE = "TAX INVOICE";

/**
 * A receipt (RCT series, decision 050): money a postpaid organisation paid on account. It charges no
 * VAT of its own, so it is not a tax invoice; the monthly tax invoice covering it charges the VAT.
 */
export const isReceipt = (invoice: Pick<InvoiceDocument, "number">) => invoice.number.startsWith("RCT-");

/** Each document titled for what it is: a credit note, a receipt, or (where VAT is charged) a tax invoice. */
export const documentTitle = (invoice: Pick<InvoiceDocument, "kind" | "number">) =>
  invoice.kind === "credit_note" ? "CREDIT NOTE" : isReceipt(invoice) ? "RECEIPT" : DOCUMENT_TITLE;

/** "November 2026" from "2026-11-01". */
export function monthWords(ymd: string): string {
  const m = /^(\d{4})-(\d{2})/.exec(ymd);
  return m ? `${MONTH_NAMES[Number(m[2]) - 1]} ${m[1]}` : ymd;
}
const MONTH_NAMES = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];

/** A receipt's note on the tax invoice that covers it (null for any other document). */
export function coveringInvoiceWords(invoice: Pick<InvoiceDocument, "number" | "coveredBy">): string | null {
  if (!isReceipt(invoice) || !invoice.coveredBy) return null;
  const { number, month } = invoice.coveredBy;
  return number
    ? `This receipt is not a tax invoice. VAT on what this payment pays for is charged on tax invoice ${number}, for ${monthWords(month)}.`
    : `This receipt is not a tax invoice. VAT on what this payment pays for is charged on the monthly tax invoice for ${monthWords(month)}, issued when the month ends.`;
}

export const INVOICE_KIND_LABELS: Record<InvoiceKind, string> = {
  topup: "Wallet top-up",
  subscription: "Postpaid subscription",
  bank_transfer: "Bank transfer",
  credit_note: "Credit note",
};

export const INVOICE_STATUS_LABELS: Record<InvoiceStatus, string> = {
  paid: "Paid",
  pending: "Awaiting payment",
  overdue: "Overdue",
  disputed: "Disputed",
  void: "Void",
};

export const PAYMENT_METHOD_LABELS: Record<"mpesa" | "card" | "bank", string> = {
  mpesa: "M-Pesa",
  card: "Card",
  bank: "Bank transfer",
};

/**
 * The line under the title. A top-up is paid before its invoice exists, and the top-up is the VAT tax
 * point (kenya-payments.md 3.1), so its document is a tax invoice that doubles as the receipt.
 */
export function documentSubtitle(invoice: Pick<InvoiceDocument, "kind" | "status" | "number">): string | null {
  if (invoice.status === "void") return "Void: not valid for tax purposes";
  if (isReceipt(invoice)) return "Payment received on account: not a tax invoice";
  if (invoice.kind === "credit_note") return "Credit note: it reduces what the invoice it names charged";
  if (invoice.status !== "paid") return null;
  return invoice.kind === "topup" ? "Receipt for a wallet top-up, paid in full" : "Paid in full: this tax invoice is also your receipt";
}

/** Whether the bank details belong on the invoice: it is unpaid (and not void) and there are details to show. */
export function showsBankDetails(invoice: Pick<InvoiceDocument, "status" | "bank">): boolean {
  return invoice.bank !== null && invoice.status !== "paid" && invoice.status !== "void";
}

/** "16%" from 1600 basis points; "12.5%" from 1250. */
export function formatRate(rateBp = VAT_RATE_BASIS_POINTS): string {
  return `${rateBp / 100}%`;
}

/** "VAT 16%": the label of the VAT column and the VAT total. */
export const VAT_LABEL = `VAT ${formatRate()}`;

/** "01/10/2026 - 31/10/2026", or null when the invoice has no period (a top-up). */
export function formatPeriod(invoice: Pick<InvoiceDocument, "periodStart" | "periodEnd">): string | null {
  if (!invoice.periodStart || !invoice.periodEnd) return null;
  return `${formatInvoiceDate(invoice.periodStart)} - ${formatInvoiceDate(invoice.periodEnd)}`;
}

/** "Total due (KES)" while it is owed, "Total paid (KES)" once paid, "Total (KES)" otherwise. */
export function totalLabel(status: InvoiceStatus): string {
  if (status === "paid") return "Total paid (KES)";
  return status === "pending" || status === "overdue" ? "Total due (KES)" : "Total (KES)";
}

/** "M-Pesa", "Card", "Bank transfer", "Wallet" (paid from the wallet), or null when the invoice has no payment yet. */
export function paymentMethodLabel(invoice: Pick<InvoiceDocument, "payment" | "status">): string | null {
  if (invoice.payment.method) return PAYMENT_METHOD_LABELS[invoice.payment.method];
  return invoice.status === "paid" && invoice.payment.reference === WALLET_REFERENCE ? "Wallet" : null;
}

/** The reference an invoice paid from the wallet carries. */
export const WALLET_REFERENCE = "Wallet";

/**
 * An invoice's status in words, the same on the page, the PDF and the console's export: a credit
 * note on an unpaid invoice makes it "Partly credited" (the rest still due), on a paid one
 * "Paid · credit note".
 */
export function invoiceStatusWords(invoice: { status: InvoiceStatus; credited?: { cents: number } | null }): string {
  const credited = (invoice.credited?.cents ?? 0) > 0;
  if (credited && (invoice.status === "pending" || invoice.status === "overdue")) return "Partly credited";
  if (credited && invoice.status === "paid") return "Paid · credit note";
  return INVOICE_STATUS_LABELS[invoice.status];
}

/** What is still owed: the total less the credit notes against it. */
export const amountDueCents = (invoice: { totalCents: number; credited?: { cents: number } | null }) =>
  invoice.totalCents - (invoice.credited?.cents ?? 0);

/**
 * The one reference a payer quotes for a bank transfer of this invoice, on the page, the PDF and the
 * e-mails: the transfer's own (JMB-BT-…) when the tenant started one, otherwise the invoice number.
 * Administrators find an invoice by either when reconciling.
 */
export function transferReference(invoice: Pick<InvoiceDocument, "number" | "payment">): string {
  return invoice.payment.method === "bank" && invoice.payment.reference ? invoice.payment.reference : invoice.number;
}
