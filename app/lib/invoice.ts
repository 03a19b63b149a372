/**
 * An invoice as a document: the shape the PDF (app/.server/domains/billing/invoice-pdf.ts) and the HTML view
 * (app/components/billing/invoice-view.tsx) both render, and the formatting they share so the two never
 * disagree on a figure or a date. Shared by server and browser: no server imports here.
 * Money is integer cents of KES throughout; the VAT arithmetic is in app/.server/domains/billing/vat.ts.
 */
import { baseLocale, getLocale } from "~/paraglide/runtime";
import { intlLocale } from "./intl";

export const VAT_RATE_BASIS_POINTS = 1600; // 16%: VAT Act 2013 s.5(2)(b)

export type InvoiceKind = "topup" | "subscription" | "bank_transfer" | "credit_note";
export type InvoiceStatus = "paid" | "pending" | "overdue" | "disputed" | "void";

export interface InvoiceLine {
  description: string;
  /** The item code the line is declared under to KRA eTIMS. */
  itemCode: string;
  /** Whole units: a line's amount is quantity × unit price, a whole number of cents. */
  quantity: number;
  /** e.g. "message", "month", "top-up" */
  unit: string;
  /** Integer cents; VAT-exclusive, or VAT-inclusive when the invoice's `pricesIncludeVat`. */
  unitPriceCents: number;
  netCents: number;
  vatCents: number;
  grossCents: number;
}

export interface InvoiceDocument {
  number: string;
  kind: InvoiceKind;
  status: InvoiceStatus;
  /** ISO instants */
  issuedAt: string;
  dueAt: string | null;
  /** When the payment was recorded (an ISO instant). */
  paidAt: string | null;
  /** A reconciled bank transfer: the day the payer's bank gives for it (YYYY-MM-DD), beside when it was recorded. */
  valueDate?: string | null;
  /** ISO dates (Africa/Nairobi days), postpaid only */
  periodStart: string | null;
  periodEnd: string | null;
  seller: { name: string; kraPin: string; address: string };
  buyer: { name: string; kraPin: string | null; address: string | null; county: string | null; businessId: string; email: string | null };
  lines: InvoiceLine[];
  netCents: number;
  vatCents: number;
  totalCents: number;
  pricesIncludeVat: boolean;
  payment: { method: "mpesa" | "card" | "bank" | null; reference: string | null };
  /** Credit notes issued against it (a resolved dispute): while unpaid they lower what is due. */
  credited?: { cents: number; notes: string[] };
  /** A receipt's covering tax invoice: the monthly one of the month it was paid in (its number only if issued before the receipt). */
  coveredBy?: { number: string | null; month: string };
  /** A credit note: the invoice it credits (a fact of its issue). */
  credits?: { number: string };
  /**
   * Written by a change of billing type (decision 124): "to_account", a credit note turning unspent
   * prepaid credit into money on account (nothing paid back); "to_prepaid", a tax invoice paid from
   * money on account that makes it prepaid credit.
   */
  reclassifies?: "to_account" | "to_prepaid";
  /** Shown on unpaid invoices. */
  bank: { bank: string; branch: string; accountName: string; accountNumber: string } | null;
  /** All null until the invoice is transmitted to KRA eTIMS. */
  etims: { cuSerial: string | null; cuInvoiceNumber: string | null; qrUrl: string | null };
}

function groupThousands(digits: string): string {
  return digits.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/**
 * "KES 15,000.00" from 1500000 cents, with an ordinary space (Intl puts a no-break space there, which
 * breaks string comparisons and the PDF's fonts); negatives "-KES 1,234.50". A fraction of a cent is
 * rounded (half away from zero) rather than shown: amounts are meant to be whole cents. In Swahili and
 * French the figure is grouped by `Intl` for the language (issue 43), and the currency is always its
 * code, KES, as invoices, the API and M-Pesa write it (issue 74: never "Ksh", sw-KE's symbol):
 * "KES 15,000.00" in Swahili, "15 000,00 KES" in French.
 */
export function formatKes(cents: number): string {
  if (getLocale() !== baseLocale) return localMoney(true).format(wholeCents(cents) / 100);
  const amount = formatAmount(cents);
  return amount.startsWith("-") ? `-KES ${amount.slice(1)}` : `KES ${amount}`;
}

/** "15,000.00" from 1500000 cents: an amount without the currency, for table columns headed "(KES)". */
export function formatAmount(cents: number): string {
  if (getLocale() !== baseLocale) return localMoney(false).format(wholeCents(cents) / 100);
  const whole = Math.round(Math.abs(cents));
  const shillings = groupThousands(Math.floor(whole / 100).toString());
  const sign = cents < 0 && whole !== 0 ? "-" : "";
  return `${sign}${shillings}.${(whole % 100).toString().padStart(2, "0")}`;
}

/** "12,480": a quantity, grouped ("12 480" in French). */
export function formatQuantity(quantity: number): string {
  if (getLocale() !== baseLocale) return localMoney(null).format(quantity);
  const [whole = "0", fraction] = Math.abs(quantity).toString().split(".");
  return `${quantity < 0 ? "-" : ""}${groupThousands(whole)}${fraction ? `.${fraction}` : ""}`;
}

/** Whole cents, a half rounded away from zero, and never a negative zero. */
function wholeCents(cents: number) {
  const whole = Math.round(Math.abs(cents));
  return whole === 0 ? 0 : Math.sign(cents) * whole;
}

const moneyFormats = new Map<string, Intl.NumberFormat>();

/** The language's formatter: of shillings (with the currency, or two decimals without it) or of a quantity. */
function localMoney(currency: boolean | null) {
  const locale = intlLocale();
  const key = `${locale} ${currency}`;
  let format = moneyFormats.get(key);
  if (!format) {
    const options: Intl.NumberFormatOptions =
      currency === true
        ? { style: "currency", currency: "KES", currencyDisplay: "code" }
        : currency === false
          ? { minimumFractionDigits: 2, maximumFractionDigits: 2 }
          : { maximumFractionDigits: 20 };
    moneyFormats.set(key, (format = new Intl.NumberFormat(locale, options)));
  }
  return format;
}

// Africa/Nairobi is UTC+3 all year, no daylight saving since 1960, so plain arithmetic gives its wall
// clock without Intl (whose output differs between ICU versions).
const NAIROBI_OFFSET_MS = 3 * 60 * 60 * 1000;

function nairobiParts(iso: string) {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return null;
  const wall = new Date(at.getTime() + NAIROBI_OFFSET_MS).toISOString();
  return { year: wall.slice(0, 4), month: wall.slice(5, 7), day: wall.slice(8, 10), time: wall.slice(11, 16) };
}

/** "22/11/2026 14:05": an instant on Nairobi's wall clock, as Kenyan invoices write it. "" for an unreadable value. */
export function formatInvoiceDateTime(iso: string): string {
  const parts = nairobiParts(iso);
  return parts ? `${parts.day}/${parts.month}/${parts.year} ${parts.time}` : "";
}

/**
 * "22/11/2026": the Nairobi day of an instant, or a plain YYYY-MM-DD date as it stands (a period's
 * days are already Nairobi's). "" for an unreadable value.
 */
export function formatInvoiceDate(isoDateOrInstant: string): string {
  const plain = /^(\d{4})-(\d{2})-(\d{2})$/.exec(isoDateOrInstant);
  if (plain) return `${plain[3]}/${plain[2]}/${plain[1]}`;
  const parts = nairobiParts(isoDateOrInstant);
  return parts ? `${parts.day}/${parts.month}/${parts.year}` : "";
}
