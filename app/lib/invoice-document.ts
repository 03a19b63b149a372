// What an invoice document says (the page, the PDF, the console): its title, subtitle, labels and
// amounts due. Apart from app/lib/invoice.ts, whose formatters nearly every page loads, so a page
// that only shows amounts does not carry the document's words.
// Its words are the request's language (issue 43): functions and getters, read when a document is drawn.
import { m } from "~/paraglide/messages";
import { baseLocale, getLocale } from "~/paraglide/runtime";
import { formatInvoiceDate, VAT_RATE_BASIS_POINTS, type InvoiceDocument, type InvoiceKind, type InvoiceStatus } from "./invoice";
import { dateTimeFormat, intlLocale, numberFormat } from "./intl";

/** What an invoice says in place of its eTIMS fields before it has been transmitted, in the request's language. */
export const etimsPendingText = () => m.documents_etims_pending();

/**
 * The English of `etimsPendingText()`, kept for callers not yet moved to it.
 * @deprecated English only: use `etimsPendingText()`.
 */
export const ETIMS_PENDING_TEXT = "Pending transmission to KRA eTIMS";

/**
 * A receipt (RCT series, decision 050): money a postpaid organisation paid on account. It charges no
 * VAT of its own, so it is not a tax invoice; the monthly tax invoice covering it charges the VAT.
 */
export const isReceipt = (invoice: Pick<InvoiceDocument, "number">) => invoice.number.startsWith("RCT-");

/** Each document titled for what it is: a credit note, a receipt, or (where VAT is charged) a tax invoice. */
export const documentTitle = (invoice: Pick<InvoiceDocument, "kind" | "number">) =>
  invoice.kind === "credit_note"
    ? m.documents_title_credit_note()
    : isReceipt(invoice)
      ? m.documents_title_receipt()
      : // An invoice that charges VAT is titled a tax invoice (a paid one says it is also the receipt: see `documentSubtitle`).
        m.documents_title_tax_invoice();

/** "November 2026" from "2026-11-01" ("Novemba 2026", "novembre 2026"). */
export function monthWords(ymd: string): string {
  const match = /^(\d{4})-(\d{2})/.exec(ymd);
  if (!match) return ymd;
  if (getLocale() !== baseLocale) {
    const month = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, 1));
    return dateTimeFormat(intlLocale(), { month: "long", year: "numeric", timeZone: "UTC" }).format(month);
  }
  return `${MONTH_NAMES[Number(match[2]) - 1]} ${match[1]}`;
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
    ? m.documents_covered_by_invoice({ number, month: monthWords(month) })
    : m.documents_covered_by_monthly_invoice({ month: monthWords(month) });
}

/**
 * What a document written by a change of billing type is (decision 124), in place of the usual VAT
 * note: a credit note that pays nothing back and turns unspent prepaid credit into money on account,
 * or a tax invoice paid from money on account that makes it prepaid credit. Null for any other document.
 */
export function reclassificationWords(invoice: Pick<InvoiceDocument, "reclassifies">): string | null {
  if (invoice.reclassifies === "to_account") return m.documents_reclassified_to_account();
  if (invoice.reclassifies === "to_prepaid") return m.documents_reclassified_to_prepaid();
  return null;
}

/** Labels by what a document is: a tax invoice, a receipt (RCT) or a credit note (CRN). */
function byNature<T>(
  invoice: Pick<InvoiceDocument, "kind" | "number">,
  words: { invoice: () => T; receipt: () => T; creditNote: () => T },
): T {
  if (invoice.kind === "credit_note") return words.creditNote();
  return isReceipt(invoice) ? words.receipt() : words.invoice();
}

/** "Invoice details", "Receipt details", "Credit note details": the heading of a document's own details. */
export const detailsHeading = (invoice: Pick<InvoiceDocument, "kind" | "number">) =>
  byNature(invoice, {
    invoice: m.documents_details_invoice,
    receipt: m.documents_details_receipt,
    creditNote: m.documents_details_credit_note,
  });

/** "Invoice number", "Receipt number", "Credit note number". */
export const numberLabel = (invoice: Pick<InvoiceDocument, "kind" | "number">) =>
  byNature(invoice, {
    invoice: m.documents_number_invoice,
    receipt: m.documents_number_receipt,
    creditNote: m.documents_number_credit_note,
  });

/**
 * A document's status as the document itself says it: a credit note is "Issued" (it is not paid), a
 * receipt "Received"; a tax invoice its status in words (`invoiceStatusWords`). Void is void for all.
 */
export function documentStatusWords(invoice: Pick<InvoiceDocument, "kind" | "number" | "status" | "credited">): string {
  if (invoice.status === "void") return INVOICE_STATUS_LABELS.void;
  return byNature(invoice, {
    invoice: () => invoiceStatusWords(invoice),
    receipt: m.documents_status_received,
    creditNote: m.documents_status_issued,
  });
}

/** The label of a document's total: "Amount received" on a receipt, "Total credited" on a credit note, else `totalLabel`. */
export const documentTotalLabel = (invoice: Pick<InvoiceDocument, "kind" | "number" | "status">) =>
  byNature(invoice, {
    invoice: () => totalLabel(invoice.status),
    receipt: m.documents_pdf_amount_received,
    creditNote: m.documents_total_credited,
  });

/**
 * Whether a document carries VAT columns and goes to KRA eTIMS: a tax invoice and a credit note do;
 * a receipt charges no VAT of its own (decision 050), so it has neither.
 */
export const isTaxDocument = (invoice: Pick<InvoiceDocument, "number">) => !isReceipt(invoice);

/** Each kind in words, in the request's language (getters: read when used). */
export const INVOICE_KIND_LABELS: Record<InvoiceKind, string> = {
  get topup() {
    return m.documents_kind_topup();
  },
  get subscription() {
    return m.documents_kind_subscription();
  },
  get bank_transfer() {
    return m.documents_bank_transfer();
  },
  get credit_note() {
    return m.documents_kind_credit_note();
  },
};

/** Each status in words, in the request's language (getters: read when used). */
export const INVOICE_STATUS_LABELS: Record<InvoiceStatus, string> = {
  get paid() {
    return m.documents_status_paid();
  },
  get pending() {
    return m.documents_status_pending();
  },
  get overdue() {
    return m.documents_status_overdue();
  },
  get disputed() {
    return m.documents_status_disputed();
  },
  get void() {
    return m.documents_status_void();
  },
};

/** Each payment method in words, in the request's language (getters: read when used). */
export const PAYMENT_METHOD_LABELS: Record<"mpesa" | "card" | "bank", string> = {
  mpesa: "M-Pesa",
  get card() {
    return m.documents_method_card();
  },
  get bank() {
    return m.documents_bank_transfer();
  },
};

/**
 * The line under the title. A top-up is paid before its invoice exists, and the top-up is the VAT tax
 * point (kenya-payments.md 3.1), so its document is a tax invoice that doubles as the receipt.
 */
export function documentSubtitle(invoice: Pick<InvoiceDocument, "kind" | "status" | "number">): string | null {
  if (invoice.status === "void") return m.documents_subtitle_void();
  if (isReceipt(invoice)) return m.documents_subtitle_receipt();
  if (invoice.kind === "credit_note") return m.documents_subtitle_credit_note();
  if (invoice.status !== "paid") return null;
  return invoice.kind === "topup" ? m.documents_subtitle_topup_paid() : m.documents_subtitle_paid();
}

/** Whether the bank details belong on the invoice: it is unpaid (and not void) and there are details to show. */
export function showsBankDetails(invoice: Pick<InvoiceDocument, "status" | "bank">): boolean {
  return invoice.bank !== null && invoice.status !== "paid" && invoice.status !== "void";
}

/** "16%" from 1600 basis points; "12.5%" from 1250 (in French "16 %", "12,5 %", by `Intl`). */
export function formatRate(rateBp = VAT_RATE_BASIS_POINTS): string {
  if (getLocale() !== baseLocale) return numberFormat(intlLocale(), { style: "percent", maximumFractionDigits: 2 }).format(rateBp / 10_000);
  return `${rateBp / 100}%`;
}

/** "VAT 16%" ("TVA 16 %"): the label of the VAT column and the VAT total, in the request's language. */
export const vatLabel = () => m.documents_vat_label({ rate: formatRate() });

/**
 * The English of `vatLabel()`, kept for callers not yet moved to it.
 * @deprecated English only: use `vatLabel()`.
 */
export const VAT_LABEL = `VAT ${VAT_RATE_BASIS_POINTS / 100}%`;

/** "01/10/2026 - 31/10/2026", or null when the invoice has no period (a top-up). */
export function formatPeriod(invoice: Pick<InvoiceDocument, "periodStart" | "periodEnd">): string | null {
  if (!invoice.periodStart || !invoice.periodEnd) return null;
  return `${formatInvoiceDate(invoice.periodStart)} - ${formatInvoiceDate(invoice.periodEnd)}`;
}

/** "Total due (KES)" while it is owed, "Total paid (KES)" once paid, "Total (KES)" otherwise. */
export function totalLabel(status: InvoiceStatus): string {
  if (status === "paid") return m.documents_total_paid();
  return status === "pending" || status === "overdue" ? m.documents_total_due() : m.documents_total();
}

/** "M-Pesa", "Card", "Bank transfer", "Wallet" (paid from the wallet), or null when the invoice has no payment yet. */
export function paymentMethodLabel(invoice: Pick<InvoiceDocument, "payment" | "status">): string | null {
  if (invoice.payment.method) return PAYMENT_METHOD_LABELS[invoice.payment.method];
  return invoice.status === "paid" && invoice.payment.reference === WALLET_REFERENCE ? m.documents_method_wallet() : null;
}

/** The reference an invoice paid from the wallet carries (stored, not words: the same in every language). */
export const WALLET_REFERENCE = "Wallet";

/**
 * An invoice's status in words, the same on the page, the PDF and the console's export: a credit
 * note on an unpaid invoice makes it "Partly credited" (the rest still due), on a paid one
 * "Paid · credit note".
 */
export function invoiceStatusWords(invoice: { status: InvoiceStatus; credited?: { cents: number } | null }): string {
  const credited = (invoice.credited?.cents ?? 0) > 0;
  if (credited && (invoice.status === "pending" || invoice.status === "overdue")) return m.documents_status_partly_credited();
  if (credited && invoice.status === "paid") return m.documents_status_paid_credit_note();
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
