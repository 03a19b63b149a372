import { VAT_RATE_BASIS_POINTS, type InvoiceLine } from "~/lib/invoice";

/** VAT of a VAT-exclusive amount, half-up to the cent. */
export function vatOnNet(netCents: number, rateBp = VAT_RATE_BASIS_POINTS) {
  const sign = netCents < 0 ? -1 : 1;
  return sign * Math.floor((Math.abs(netCents) * rateBp + 5000) / 10000);
}

/** Net and VAT of a VAT-inclusive amount: net + vat = gross. */
export function splitGross(grossCents: number, rateBp = VAT_RATE_BASIS_POINTS) {
  const sign = grossCents < 0 ? -1 : 1;
  const abs = Math.abs(grossCents);
  const net = Math.floor((abs * 10000 * 2 + (10000 + rateBp)) / (2 * (10000 + rateBp)));
  return { netCents: sign * net, vatCents: sign * (abs - net) };
}

type LineInput = Pick<InvoiceLine, "description" | "itemCode" | "quantity" | "unit" | "unitPriceCents">;

export function lineFromNet(input: LineInput): InvoiceLine {
  const netCents = input.quantity * input.unitPriceCents;
  const vatCents = vatOnNet(netCents);
  return { ...input, netCents, vatCents, grossCents: netCents + vatCents };
}

export function lineFromGross(input: LineInput): InvoiceLine {
  const grossCents = input.quantity * input.unitPriceCents;
  const { netCents, vatCents } = splitGross(grossCents);
  return { ...input, netCents, vatCents, grossCents };
}

export function totalsOf(lines: InvoiceLine[]) {
  const netCents = lines.reduce((n, l) => n + l.netCents, 0);
  const vatCents = lines.reduce((n, l) => n + l.vatCents, 0);
  return { netCents, vatCents, totalCents: netCents + vatCents };
}
