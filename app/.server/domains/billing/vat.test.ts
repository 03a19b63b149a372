import { describe, expect, it } from "vitest";
import { formatKes } from "~/lib/invoice";
import { sampleInvoice, sampleTopUpReceipt } from "./invoice-sample";
import { invoiceDiscrepancies, lineFromGross, lineFromNet, splitGross, totalsOf, vatOnNet } from "./vat";

/** A seeded generator (mulberry32), so the property tests are the same on every run and a failure reproduces. */
function seededRandom(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Amounts from 0 to about KES 100 million, spread over every magnitude (1 cent, tens, thousands, ...). */
function randomAmounts(count: number, seed: number) {
  const random = seededRandom(seed);
  return Array.from({ length: count }, () => Math.floor(random() * 10 ** Math.floor(random() * 11)));
}

describe("vatOnNet", () => {
  it("is 16% of a VAT-exclusive amount: KES 15,000 carries KES 2,400, total KES 17,400", () => {
    const vat = vatOnNet(1_500_000);
    expect(vat).toBe(240_000);
    expect(formatKes(vat)).toBe("KES 2,400.00");
    expect(formatKes(1_500_000 + vat)).toBe("KES 17,400.00");
  });

  it("rounds to the nearest cent: 1 and 3 cents carry none, 4 cents carries one", () => {
    expect(vatOnNet(0)).toBe(0);
    expect(vatOnNet(1)).toBe(0); // 0.16
    expect(vatOnNet(3)).toBe(0); // 0.48
    expect(vatOnNet(4)).toBe(1); // 0.64
    expect(vatOnNet(249_600)).toBe(39_936); // 12,480 messages at KES 0.20
    expect(vatOnNet(123_457)).toBe(19_753); // 19,753.12
    expect(vatOnNet(123_459)).toBe(19_753); // 19,753.44
    expect(vatOnNet(123_460)).toBe(19_754); // 19,753.60
  });

  it("rounds an exact half up, and a negative half down by the same (at 12.5%, where halves occur)", () => {
    expect(vatOnNet(4, 1250)).toBe(1); // 0.5
    expect(vatOnNet(12, 1250)).toBe(2); // 1.5
    expect(vatOnNet(-4, 1250)).toBe(-1);
    expect(vatOnNet(-12, 1250)).toBe(-2);
  });

  it("gives a credit exactly minus the VAT of the same debit", () => {
    for (const net of randomAmounts(500, 7)) expect(vatOnNet(-net) + vatOnNet(net)).toBe(0);
    expect(Object.is(vatOnNet(-3), 0)).toBe(true); // not -0, which would print as "-KES 0.00" in some formatters
  });

  it("takes other rates: zero-rated lines carry no VAT", () => {
    expect(vatOnNet(1_500_000, 0)).toBe(0);
    expect(vatOnNet(1_500_000, 800)).toBe(120_000);
  });

  it("keeps every cent of amounts too large for floating point products", () => {
    const net = Number.MAX_SAFE_INTEGER; // × 1600 is far past 2^53
    const expected = (BigInt(net) * 1600n * 2n + 10_000n) / 20_000n;
    expect(BigInt(vatOnNet(net))).toBe(expected);
  });

  it("refuses what is not whole cents or a rate in basis points", () => {
    expect(() => vatOnNet(10.5)).toThrow(RangeError);
    expect(() => vatOnNet(Number.NaN)).toThrow(RangeError);
    expect(() => vatOnNet(100, 16.5)).toThrow(RangeError);
    expect(() => vatOnNet(100, -1)).toThrow(RangeError);
    expect(() => vatOnNet(100, 10_001)).toThrow(RangeError);
  });
});

describe("splitGross", () => {
  it("splits KES 15,000 with VAT into 12,931.03 + 2,068.97", () => {
    expect(splitGross(1_500_000)).toEqual({ netCents: 1_293_103, vatCents: 206_897 });
  });

  it("splits a KES 1,000 top-up into 862.07 + 137.93", () => {
    expect(splitGross(100_000)).toEqual({ netCents: 86_207, vatCents: 13_793 });
  });

  it("splits a few cents without losing one", () => {
    expect(splitGross(0)).toEqual({ netCents: 0, vatCents: 0 });
    expect(splitGross(1)).toEqual({ netCents: 1, vatCents: 0 }); // 0.862
    expect(splitGross(3)).toEqual({ netCents: 3, vatCents: 0 }); // 2.586
    expect(splitGross(7)).toEqual({ netCents: 6, vatCents: 1 }); // 6.034
    expect(splitGross(232)).toEqual({ netCents: 200, vatCents: 32 }); // KES 2.32, a KES 2 message with VAT
    expect(splitGross(-100_000)).toEqual({ netCents: -86_207, vatCents: -13_793 });
  });

  it("always adds back up to the gross, with VAT within a cent of 16% of the net (5,000 amounts)", () => {
    for (const gross of randomAmounts(5_000, 2026)) {
      const { netCents, vatCents } = splitGross(gross);
      expect(netCents + vatCents).toBe(gross);
      expect(Math.abs(vatCents - Math.round((netCents * 16) / 100))).toBeLessThanOrEqual(1);
      expect(Math.abs(netCents - Math.round((gross * 100) / 116))).toBeLessThanOrEqual(0);
    }
  });
});

describe("vatOnNet against a floating-point reference (5,000 amounts)", () => {
  it("matches Math.round(net × 0.16), which is exact at these sizes and never meets a half at 16%", () => {
    for (const net of randomAmounts(5_000, 17)) expect(vatOnNet(net)).toBe(Math.round((net * 16) / 100));
  });
});

describe("lines and totals", () => {
  it("prices a VAT-exclusive line: quantity × unit price is the net, VAT on top", () => {
    const line = lineFromNet({ description: "Overage", itemCode: "JMB-MSG-OVER", quantity: 12_480, unit: "message", unitPriceCents: 20 });
    expect(line).toEqual({
      description: "Overage",
      itemCode: "JMB-MSG-OVER",
      quantity: 12_480,
      unit: "message",
      unitPriceCents: 20,
      netCents: 249_600,
      vatCents: 39_936,
      grossCents: 289_536,
    });
  });

  it("prices a VAT-inclusive line: quantity × unit price is the gross, split", () => {
    const line = lineFromGross({ description: "Top-up", itemCode: "JMB-TOPUP", quantity: 1, unit: "top-up", unitPriceCents: 100_000 });
    expect([line.netCents, line.vatCents, line.grossCents]).toEqual([86_207, 13_793, 100_000]);
    const messages = lineFromGross({ description: "Messages", itemCode: "JMB-MSG", quantity: 3, unit: "message", unitPriceCents: 200 });
    expect([messages.netCents, messages.vatCents, messages.grossCents]).toEqual([517, 83, 600]); // 5.17 + 0.83
  });

  it("keeps only the pricing fields it was given", () => {
    const extra = { description: "x", itemCode: "y", quantity: 1, unit: "month", unitPriceCents: 100, organisationId: "leak" };
    expect(Object.keys(lineFromNet(extra))).not.toContain("organisationId");
  });

  it("refuses a fractional quantity or a unit price that is not whole cents", () => {
    const pricing = { description: "x", itemCode: "y", unit: "month" };
    expect(() => lineFromNet({ ...pricing, quantity: 1.5, unitPriceCents: 1001 })).toThrow(RangeError);
    expect(() => lineFromNet({ ...pricing, quantity: 2, unitPriceCents: 0.5 })).toThrow(RangeError);
    expect(() => lineFromGross({ ...pricing, quantity: Number.MAX_SAFE_INTEGER, unitPriceCents: 3 })).toThrow(RangeError);
  });

  it("sums lines into the invoice's totals (the sample: 17,496.00 + 2,799.36 = 20,295.36)", () => {
    const invoice = sampleInvoice();
    expect(totalsOf(invoice.lines)).toEqual({ netCents: 1_749_600, vatCents: 279_936, totalCents: 2_029_536 });
    expect([invoice.netCents, invoice.vatCents, invoice.totalCents]).toEqual([1_749_600, 279_936, 2_029_536]);
    expect(totalsOf([])).toEqual({ netCents: 0, vatCents: 0, totalCents: 0 });
  });

  it("sums many random lines so that net + VAT = total, each line and the whole", () => {
    const random = seededRandom(99);
    const lines = Array.from({ length: 200 }, (_, i) =>
      (i % 2 ? lineFromNet : lineFromGross)({
        description: `Line ${i}`,
        itemCode: `L${i}`,
        quantity: 1 + Math.floor(random() * 20_000),
        unit: "message",
        unitPriceCents: Math.floor(random() * 5_000),
      }),
    );
    for (const line of lines) expect(line.netCents + line.vatCents).toBe(line.grossCents);
    const totals = totalsOf(lines);
    expect(totals.totalCents).toBe(lines.reduce((sum, line) => sum + line.grossCents, 0));
  });
});

describe("invoiceDiscrepancies", () => {
  it("finds none in the samples", () => {
    expect(invoiceDiscrepancies(sampleInvoice())).toEqual([]);
    expect(invoiceDiscrepancies(sampleTopUpReceipt())).toEqual([]);
  });

  it("names a line that does not add up and totals that are not the lines' sums", () => {
    const invoice = sampleInvoice();
    const [first, second] = invoice.lines;
    const broken = { ...invoice, lines: [{ ...first!, vatCents: first!.vatCents + 1 }, second!], totalCents: invoice.totalCents + 5 };
    expect(invoiceDiscrepancies(broken)).toEqual([
      "line 1 (Enterprise plan, postpaid: monthly fee for October 2026 (100,000 messages included)): net 1500000 + VAT 240001 is not gross 1740000",
      "VAT 279936 is not the lines' 279937",
      "total 2029541 is not net 1749600 + VAT 279936",
    ]);
    expect(invoiceDiscrepancies({ ...invoice, pricesIncludeVat: true })).toHaveLength(2); // priced on net, read as gross
  });
});
