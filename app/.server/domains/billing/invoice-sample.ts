import type { InvoiceDocument } from "~/lib/invoice";
import { lineFromGross, lineFromNet, totalsOf } from "./vat";

/**
 * Realistic invoices for tests, previews and the demo. The seller and bank are the configuration's
 * defaults (app/.server/infrastructure/config/env.ts: INVOICE_SELLER_*, BANK_TRANSFER_DETAILS), so a sample looks like
 * what a dev server issues; nothing here reads the environment.
 */

const DEMO_SELLER: InvoiceDocument["seller"] = {
  name: "Jumbe Technologies Limited",
  kraPin: "P000000000A",
  address: "Ngong Lane Plaza, 4th Floor, P.O. Box 10120-00100, Nairobi",
};

const DEMO_BANK: NonNullable<InvoiceDocument["bank"]> = {
  bank: "NCBA Bank Kenya",
  branch: "Upper Hill",
  accountName: "Jumbe Technologies Limited",
  accountNumber: "1002345678",
};

const SACCO: InvoiceDocument["buyer"] = {
  name: "Ufanisi Wakulima SACCO Society Ltd",
  kraPin: "P051987654M",
  address: "Uchumi House, 6th Floor, Agha Khan Walk, P.O. Box 45678-00100, Nairobi",
  county: "Nairobi",
  businessId: "JMB-7KQ2M9XD",
  email: "accounts@ufanisisacco.co.ke",
};

/**
 * October 2026's invoice for a Nairobi SACCO on the postpaid Enterprise plan: the KES 15,000 monthly fee
 * and 12,480 messages beyond the plan's 100,000 at KES 0.20, prices VAT-exclusive. Issued on 1 November
 * (Nairobi), due in 14 days, unpaid (so it shows the bank details), not yet transmitted to eTIMS.
 * Totals: net 17,496.00, VAT 2,799.36, total 20,295.36. `overrides` replace whole fields.
 */
export function sampleInvoice(overrides: Partial<InvoiceDocument> = {}): InvoiceDocument {
  const lines = [
    lineFromNet({
      description: "Enterprise plan, postpaid: monthly fee for October 2026 (100,000 messages included)",
      itemCode: "JMB-PLAN-ENT",
      quantity: 1,
      unit: "month",
      unitPriceCents: 1_500_000,
    }),
    lineFromNet({
      description: "WhatsApp messages beyond the plan's 100,000 (October 2026)",
      itemCode: "JMB-MSG-OVER",
      quantity: 12_480,
      unit: "message",
      unitPriceCents: 20,
    }),
  ];
  return {
    number: "INV-2026-000184",
    kind: "subscription",
    status: "pending",
    issuedAt: "2026-10-31T21:05:00.000Z", // 01/11/2026 00:05 in Nairobi
    dueAt: "2026-11-14T21:05:00.000Z",
    paidAt: null,
    periodStart: "2026-10-01",
    periodEnd: "2026-10-31",
    seller: DEMO_SELLER,
    buyer: SACCO,
    lines,
    ...totalsOf(lines),
    pricesIncludeVat: false,
    payment: { method: null, reference: null },
    bank: DEMO_BANK,
    etims: { cuSerial: null, cuInvoiceNumber: null, qrUrl: null },
    ...overrides,
  };
}

/**
 * A KES 1,000 M-Pesa top-up by the same SACCO, paid, VAT-inclusive (862.07 + 137.93), and transmitted to
 * eTIMS (the CU fields and QR link are made up in KRA's shapes). `overrides` replace whole fields.
 */
export function sampleTopUpReceipt(overrides: Partial<InvoiceDocument> = {}): InvoiceDocument {
  const lines = [
    lineFromGross({ description: "Wallet top-up by M-Pesa", itemCode: "JMB-TOPUP", quantity: 1, unit: "top-up", unitPriceCents: 100_000 }),
  ];
  return {
    number: "INV-2026-000185",
    kind: "topup",
    status: "paid",
    issuedAt: "2026-11-03T06:42:17.000Z", // 03/11/2026 09:42 in Nairobi
    dueAt: null,
    paidAt: "2026-11-03T06:42:09.000Z",
    periodStart: null,
    periodEnd: null,
    seller: DEMO_SELLER,
    buyer: SACCO,
    lines,
    ...totalsOf(lines),
    pricesIncludeVat: true,
    payment: { method: "mpesa", reference: "TK3H7Q2XAB" },
    bank: null,
    etims: {
      cuSerial: "KRACU0300001234",
      cuInvoiceNumber: "0300001234/185",
      qrUrl: "https://etims.kra.go.ke/common/link/etims/receipt/indexEtimsReceiptData?Data=P000000000A00KRACU0300001234185",
    },
    ...overrides,
  };
}
