import { env } from "../../infrastructure/config/env";

export type TemplateCategory = "marketing" | "utility" | "authentication";

/** The price table from configuration: Meta's USD rates by category, the dollar in KES, Jumbe's fee. */
export function priceTable() {
  const config = env();
  const rates = Object.fromEntries(
    config.META_RATES_USD.split(",").map((pair) => {
      const [category, rate] = pair.split("=").map((part) => part.trim());
      return [category, Number(rate)];
    }),
  ) as Record<TemplateCategory, number>;
  return { ratesUsd: rates, usdKes: config.USD_KES_RATE, feeKes: config.JUMBE_FEE_KES };
}

/**
 * What `recipients` template messages of `category` cost, in KES cents: Meta's rate converted at
 * the configured dollar rate, plus Jumbe's fee, rounded once for the whole send (a per-message
 * rounding would add up to a shilling per hundred messages).
 */
export function estimateCostCents(category: string, recipients: number) {
  const table = priceTable();
  const rateUsd = table.ratesUsd[category.toLowerCase() as TemplateCategory] ?? table.ratesUsd.marketing;
  const perMessageKes = rateUsd * table.usdKes + table.feeKes;
  return { totalCents: Math.round(recipients * perMessageKes * 100), perMessageKes };
}
