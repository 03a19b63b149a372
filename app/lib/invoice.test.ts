import { describe, expect, it } from "vitest";
import { formatAmount, formatInvoiceDate, formatInvoiceDateTime, formatKes, formatQuantity } from "./invoice";
import { documentSubtitle, formatPeriod, showsBankDetails } from "./invoice-document";

describe("formatKes", () => {
  it("writes cents as shillings with the ISO code and an ordinary space", () => {
    expect(formatKes(1_500_000)).toBe("KES 15,000.00");
    expect(formatKes(1_740_000)).toBe("KES 17,400.00");
    expect(formatKes(0)).toBe("KES 0.00");
    expect(formatKes(1)).toBe("KES 0.01");
    expect(formatKes(20)).toBe("KES 0.20");
    expect(formatKes(123_456_789_01)).toBe("KES 123,456,789.01");
    expect(formatKes(1_500_000)).not.toContain("\u00a0");
  });

  it("puts the minus before the code", () => {
    expect(formatKes(-123_450)).toBe("-KES 1,234.50");
    expect(formatKes(-1)).toBe("-KES 0.01");
    expect(formatKes(-0)).toBe("KES 0.00");
  });

  it("rounds a stray fraction of a cent rather than printing it", () => {
    expect(formatKes(99.5)).toBe("KES 1.00");
    expect(formatKes(-0.4)).toBe("KES 0.00");
  });

  it("has a bare form for table columns", () => {
    expect(formatAmount(289_536)).toBe("2,895.36");
    expect(formatAmount(-5)).toBe("-0.05");
  });
});

describe("quantities and dates", () => {
  it("groups quantities", () => {
    expect(formatQuantity(12_480)).toBe("12,480");
    expect(formatQuantity(1)).toBe("1");
    expect(formatQuantity(-1_000)).toBe("-1,000");
  });

  it("writes instants on Nairobi's clock as DD/MM/YYYY HH:mm, whatever the machine's zone", () => {
    expect(formatInvoiceDateTime("2026-10-31T21:05:00.000Z")).toBe("01/11/2026 00:05");
    expect(formatInvoiceDateTime("2026-12-31T20:59:00Z")).toBe("31/12/2026 23:59");
    expect(formatInvoiceDateTime("2026-12-31T21:00:00Z")).toBe("01/01/2027 00:00");
    expect(formatInvoiceDateTime("not a date")).toBe("");
  });

  it("writes days as DD/MM/YYYY: an instant's Nairobi day, a plain date as it is", () => {
    expect(formatInvoiceDate("2026-11-14T21:05:00.000Z")).toBe("15/11/2026");
    expect(formatInvoiceDate("2026-10-01")).toBe("01/10/2026");
    expect(formatPeriod({ periodStart: "2026-10-01", periodEnd: "2026-10-31" })).toBe("01/10/2026 - 31/10/2026");
    expect(formatPeriod({ periodStart: null, periodEnd: null })).toBeNull();
  });
});

describe("what a document says about itself", () => {
  it("calls a paid document the receipt too, and a void one not valid", () => {
    expect(documentSubtitle({ number: "INV-2026-000001", kind: "topup", status: "paid" })).toBe(
      "Receipt for a wallet top-up, paid in full",
    );
    expect(documentSubtitle({ number: "INV-2026-000001", kind: "subscription", status: "paid" })).toMatch(/also your receipt/);
    expect(documentSubtitle({ number: "INV-2026-000001", kind: "subscription", status: "pending" })).toBeNull();
    expect(documentSubtitle({ number: "INV-2026-000001", kind: "subscription", status: "void" })).toMatch(/not valid/);
  });

  it("shows the bank details only while there is something to pay", () => {
    const bank = { bank: "B", branch: "Br", accountName: "N", accountNumber: "1" };
    expect(showsBankDetails({ status: "pending", bank })).toBe(true);
    expect(showsBankDetails({ status: "overdue", bank })).toBe(true);
    expect(showsBankDetails({ status: "paid", bank })).toBe(false);
    expect(showsBankDetails({ status: "void", bank })).toBe(false);
    expect(showsBankDetails({ status: "pending", bank: null })).toBe(false);
  });
});
