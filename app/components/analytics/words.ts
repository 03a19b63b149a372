import { daysInRange, PERIOD_LABELS, type AnalyticsFilters, type AnalyticsReport } from "~/lib/analytics";
import { longDate } from "~/lib/billing-words";

const decimalFormat = new Intl.NumberFormat("en-KE", { maximumFractionDigits: 1 });
export const decimal = (n: number) => decimalFormat.format(n);

/** "previous 7 days", "previous 24 hours": the period each change is measured against. */
export function comparedWith(filters: AnalyticsFilters) {
  if (filters.period === "24h") return "previous 24 hours";
  const days = daysInRange(filters.from, filters.to);
  return days === 1 ? "previous day" : `previous ${days} days`;
}

export function rangeWords(filters: AnalyticsFilters) {
  return filters.from === filters.to ? longDate(filters.from) : `${longDate(filters.from)} and ${longDate(filters.to)}`;
}

/** "Last 7 days: 18 November 2026 to 24 November 2026, compared with the 7 days before." */
export function periodWords(filters: AnalyticsFilters) {
  if (filters.period === "24h") return "Last 24 hours, to the current hour, compared with the 24 hours before.";
  const days = daysInRange(filters.from, filters.to);
  const span = filters.from === filters.to ? longDate(filters.from) : `${longDate(filters.from)} to ${longDate(filters.to)}`;
  return `${PERIOD_LABELS[filters.period]}: ${span}, compared with the ${days === 1 ? "day" : `${days} days`} before.`;
}

export function volumeCaption(report: AnalyticsReport) {
  return report.volume.mode === "hours" ? "Messages per hour, last 24 hours (Nairobi time)" : "Messages by hour of the day (Nairobi time)";
}
