export const VAT_RATE_BASIS_POINTS = 1600;
export type InvoiceKind = "topup" | "subscription" | "bank_transfer";
export type InvoiceStatus = "paid" | "pending" | "overdue" | "disputed" | "void";
export interface InvoiceLine {
  description: string;
  itemCode: string;
  quantity: number;
  unit: string;
  unitPriceCents: number;
  netCents: number;
  vatCents: number;
  grossCents: number;
}
export interface InvoiceDocument {
  number: string;
  kind: InvoiceKind;
  status: InvoiceStatus;
  issuedAt: string;
  dueAt: string | null;
  paidAt: string | null;
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
  bank: { bank: string; branch: string; accountName: string; accountNumber: string } | null;
  etims: { cuSerial: string | null; cuInvoiceNumber: string | null; qrUrl: string | null };
}

/** KES from cents, as invoices show it: "KES 15,000.00" (an ordinary space), negatives "-KES 1,234.50". */
export function formatKes(cents: number): string {
  const sign = cents < 0 ? "-" : "";
  const abs = Math.abs(Math.trunc(cents));
  const shillings = Math.floor(abs / 100).toLocaleString("en-US");
  return `${sign}KES ${shillings}.${String(abs % 100).padStart(2, "0")}`;
}
