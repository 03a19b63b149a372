import { VAT_RATE_BASIS_POINTS, type InvoiceDocument, type InvoiceLine } from "~/lib/invoice";

/**
 * VAT arithmetic for invoices, in integer cents of KES. The decisions (kenya-payments.md 3.4 found no KRA
 * rule on rounding, so these are ours):
 * - Rates are in basis points (1600 = 16%), so every figure is an integer and nothing goes through floats.
 * - Rounding is half-up to the cent, and symmetric for negatives (half away from zero): a credit of
 *   -X rounds to exactly minus what X does, so a credit note mirrors its invoice.
 * - VAT is worked out per line, and an invoice's totals are the sums of its lines. eTIMS carries a tax
 *   amount per item, and summing keeps net + VAT = gross on every line and on the invoice.
 * - A VAT-inclusive amount is split by rounding its net part; the VAT is what remains, so the two always
 *   add back to the amount charged (the figure M-Pesa or the card actually moved).
 * - Products are worked in BigInt, so a large amount times a rate never loses a cent; the results must
 *   fit a safe integer. Anything that is not a whole number of cents throws a RangeError: a caller bug,
 *   never customer input (which is validated, in shillings, before it gets here).
 */

const BASIS = 10_000n;

export interface LineTotals {
  netCents: number;
  vatCents: number;
  totalCents: number;
}

/** What a line is priced from: `unitPriceCents` is net for `lineFromNet`, gross for `lineFromGross`. */
export type LinePricing = Pick<InvoiceLine, "description" | "itemCode" | "quantity" | "unit" | "unitPriceCents">;

function requireCents(name: string, value: number) {
  if (!Number.isSafeInteger(value)) throw new RangeError(`${name} must be a whole number of cents, got ${value}`);
}

function requireRate(rateBp: number) {
  if (!Number.isSafeInteger(rateBp) || rateBp < 0 || rateBp > 10_000)
    throw new RangeError(`a VAT rate must be whole basis points between 0 and 10000, got ${rateBp}`);
}

function toCents(value: bigint, what: string): number {
  const cents = Number(value);
  if (!Number.isSafeInteger(cents)) throw new RangeError(`${what} is too large to hold in cents: ${value}`);
  return cents;
}

/** numerator / denominator (denominator > 0), rounded half away from zero: floor((2|n| + d) / 2d), signed. */
function divideRoundingHalfUp(numerator: bigint, denominator: bigint): bigint {
  const magnitude = numerator < 0n ? -numerator : numerator;
  const rounded = (magnitude * 2n + denominator) / (denominator * 2n);
  return numerator < 0n ? -rounded : rounded;
}

/**
 * The VAT on a VAT-exclusive amount, rounded half-up to the cent: 1500000 (KES 15,000) gives 240000
 * (KES 2,400). Negative amounts (credits) give the negative of the VAT on their size.
 */
export function vatOnNet(netCents: number, rateBp = VAT_RATE_BASIS_POINTS): number {
  requireCents("netCents", netCents);
  requireRate(rateBp);
  return toCents(divideRoundingHalfUp(BigInt(netCents) * BigInt(rateBp), BASIS), "the VAT");
}

/**
 * A VAT-inclusive amount split into net and VAT: net is gross × 10000 / (10000 + rate) rounded half-up,
 * VAT is the rest, so net + VAT = gross always. 1500000 gives 1293103 + 206897 (KES 12,931.03 + 2,068.97).
 * The VAT is within a cent of `vatOnNet(net)` (the rounding of net moves it by at most 0.58 of a cent).
 */
export function splitGross(grossCents: number, rateBp = VAT_RATE_BASIS_POINTS): { netCents: number; vatCents: number } {
  requireCents("grossCents", grossCents);
  requireRate(rateBp);
  const netCents = toCents(divideRoundingHalfUp(BigInt(grossCents) * BASIS, BASIS + BigInt(rateBp)), "the net amount");
  return { netCents, vatCents: grossCents - netCents };
}

/** quantity × unit price, which must be a whole number of cents (so quantities are whole units). */
function lineAmount(pricing: LinePricing): number {
  if (!Number.isSafeInteger(pricing.quantity)) throw new RangeError(`a line's quantity must be a whole number, got ${pricing.quantity}`);
  requireCents("unitPriceCents", pricing.unitPriceCents);
  return toCents(BigInt(pricing.quantity) * BigInt(pricing.unitPriceCents), "the line's amount");
}

/** A line priced without VAT: net = quantity × unit price, VAT on top (12,480 messages at 20 cents: 2,496.00 + 399.36). */
export function lineFromNet(pricing: LinePricing, rateBp = VAT_RATE_BASIS_POINTS): InvoiceLine {
  const netCents = lineAmount(pricing);
  const vatCents = vatOnNet(netCents, rateBp);
  return { ...pickPricing(pricing), netCents, vatCents, grossCents: netCents + vatCents };
}

/** A line priced with VAT included: gross = quantity × unit price, split into net and VAT (a KES 1,000 top-up: 862.07 + 137.93). */
export function lineFromGross(pricing: LinePricing, rateBp = VAT_RATE_BASIS_POINTS): InvoiceLine {
  const grossCents = lineAmount(pricing);
  return { ...pickPricing(pricing), ...splitGross(grossCents, rateBp), grossCents };
}

function pickPricing({ description, itemCode, quantity, unit, unitPriceCents }: LinePricing): LinePricing {
  return { description, itemCode, quantity, unit, unitPriceCents };
}

/** An invoice's totals: the sums of its lines' net and VAT, and their sum. */
export function totalsOf(lines: readonly Pick<InvoiceLine, "netCents" | "vatCents">[]): LineTotals {
  let netCents = 0;
  let vatCents = 0;
  for (const line of lines) {
    netCents += line.netCents;
    vatCents += line.vatCents;
  }
  return { netCents, vatCents, totalCents: netCents + vatCents };
}

/**
 * Every way an invoice's figures fail to add up, in words (empty when they all do): a line whose amount
 * is not quantity × unit price or whose net + VAT is not its gross, or totals that are not the lines'
 * sums. For tests and for checking an invoice before it is issued or transmitted.
 */
export function invoiceDiscrepancies(
  invoice: Pick<InvoiceDocument, "lines" | "netCents" | "vatCents" | "totalCents" | "pricesIncludeVat">,
) {
  const problems: string[] = [];
  invoice.lines.forEach((line, index) => {
    const name = `line ${index + 1} (${line.description})`;
    const priced = invoice.pricesIncludeVat ? line.grossCents : line.netCents;
    if (line.quantity * line.unitPriceCents !== priced)
      problems.push(
        `${name}: ${line.quantity} × ${line.unitPriceCents} is not its ${invoice.pricesIncludeVat ? "gross" : "net"} ${priced}`,
      );
    if (line.netCents + line.vatCents !== line.grossCents)
      problems.push(`${name}: net ${line.netCents} + VAT ${line.vatCents} is not gross ${line.grossCents}`);
  });
  const sums = totalsOf(invoice.lines);
  if (sums.netCents !== invoice.netCents) problems.push(`net ${invoice.netCents} is not the lines' ${sums.netCents}`);
  if (sums.vatCents !== invoice.vatCents) problems.push(`VAT ${invoice.vatCents} is not the lines' ${sums.vatCents}`);
  if (invoice.netCents + invoice.vatCents !== invoice.totalCents)
    problems.push(`total ${invoice.totalCents} is not net ${invoice.netCents} + VAT ${invoice.vatCents}`);
  return problems;
}
