import { daysInRange, PERIOD_LABELS, type AnalyticsFilters, type AnalyticsReport } from "~/lib/analytics";
import { longDate } from "~/lib/billing-words";
import { intlLocale } from "~/lib/intl";
import { m } from "~/paraglide/messages";

const decimalFormats = new Map<string, Intl.NumberFormat>();

/** A figure with at most one decimal, as the page's language writes it ("12.5", "12,5"). */
export function decimal(n: number) {
  const locale = intlLocale();
  let format = decimalFormats.get(locale);
  if (!format) decimalFormats.set(locale, (format = new Intl.NumberFormat(locale, { maximumFractionDigits: 1 })));
  return format.format(n);
}

/** "previous 7 days", "previous 24 hours": the period each change is measured against. */
export function comparedWith(filters: AnalyticsFilters) {
  if (filters.period === "24h") return m.app_analytics_previous_24_hours();
  const days = daysInRange(filters.from, filters.to);
  return days === 1 ? m.app_analytics_previous_day() : m.app_analytics_previous_days({ days });
}

export function rangeWords(filters: AnalyticsFilters) {
  return filters.from === filters.to
    ? longDate(filters.from)
    : m.app_analytics_range_and({ from: longDate(filters.from), to: longDate(filters.to) });
}

/** "Last 7 days: 18 November 2026 to 24 November 2026, compared with the 7 days before." */
export function periodWords(filters: AnalyticsFilters) {
  if (filters.period === "24h") return m.app_analytics_period_24h();
  const days = daysInRange(filters.from, filters.to);
  const span =
    filters.from === filters.to ? longDate(filters.from) : m.app_range_from_to({ from: longDate(filters.from), to: longDate(filters.to) });
  const period = PERIOD_LABELS[filters.period];
  return days === 1 ? m.app_analytics_period_day_before({ period, span }) : m.app_analytics_period_days_before({ period, span, days });
}

export function volumeCaption(report: AnalyticsReport) {
  return report.volume.mode === "hours" ? m.app_analytics_volume_hours() : m.app_analytics_volume_hour_of_day();
}
