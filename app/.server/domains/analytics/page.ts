import { analyticsNumbers, analyticsRange, analyticsReport, type AnalyticsNumber } from "./report";
import { automationFigures, type AutomationFigures } from "../automations";
import { paymentFigures, type PaymentFigures } from "./payments";
import { adFigures, type AdFigures } from "./ads";
import { m } from "~/paraglide/messages";
import { ANALYTICS_PERIODS, parseAnalyticsFilters, type AnalyticsFilters, type AnalyticsReport, type ParsedFilters } from "~/lib/analytics";

/** The words for a number filter naming a number the tenant has never had (or another tenant's). */
export const notYourNumber = () => m.app_analytics_error_number();

/**
 * The filters of an Analytics URL for one tenant: parsed, and the number checked against the
 * tenant's own (a foreign one is refused, never read). On any refusal, the default filters.
 */
export async function tenantAnalyticsFilters(organizationId: string, params: URLSearchParams, now = new Date()): Promise<ParsedFilters> {
  const parsed = parseAnalyticsFilters(params, now);
  if (!parsed.ok || !parsed.filters.number) return parsed;
  const numbers = await analyticsNumbers(organizationId);
  if (numbers.some((n) => n.id === parsed.filters.number)) return parsed;
  const fallback = parseAnalyticsFilters(new URLSearchParams({ chart: parsed.filters.chart }), now).filters;
  return { ok: false, filters: fallback, error: notYourNumber() };
}

/** What the form shows: what was asked for (so a refused custom range can be corrected), or the filters read. */
export interface AnalyticsForm {
  period: string;
  from: string;
  to: string;
  number: string;
}

export interface AnalyticsPage {
  report: AnalyticsReport;
  /** The period's conversations answered by automations alone, handed over, resolved by people. */
  automations: AutomationFigures;
  /** The period's M-Pesa payment requests: made, paid, collected, by agent, flow and campaign. */
  payments: PaymentFigures;
  /** Why the query was refused (the page then shows the default filters' report, with status 400). */
  error: string | null;
  form: AnalyticsForm;
}

/** The Analytics page's data: the report of the URL's filters, or of the defaults with the reason they were refused. */
export async function analyticsPage(
  organizationId: string,
  params: URLSearchParams,
  now = new Date(),
  resolved?: ParsedFilters,
): Promise<AnalyticsPage> {
  resolved ??= await tenantAnalyticsFilters(organizationId, params, now);
  const range = analyticsRange(resolved.filters, now);
  const [report, automations, payments] = await Promise.all([
    analyticsReport(organizationId, resolved.filters, now),
    automationFigures(organizationId, { start: range.start, end: range.end, phoneNumberId: resolved.filters.number }),
    paymentFigures(organizationId, {
      start: range.start,
      end: range.end,
      number: resolved.filters.number,
      goneName: m.app_analytics_payments_gone,
    }),
  ]);
  return {
    report,
    automations,
    payments,
    error: resolved.ok ? null : resolved.error,
    form: resolved.ok ? formOf(resolved.filters) : askedFor(params, resolved.filters),
  };
}

export interface AnalyticsAdsPage {
  filters: AnalyticsFilters;
  numbers: AnalyticsNumber[];
  /** The period's figures by ad and by source type (issue 77). */
  ads: AdFigures;
  error: string | null;
  form: AnalyticsForm;
}

/** The Ads tab's data: the same filters as the page's other tab, the tenant's numbers for the form, the figures by ad. */
export async function analyticsAdsPage(organizationId: string, params: URLSearchParams, resolved: ParsedFilters, now = new Date()) {
  const range = analyticsRange(resolved.filters, now);
  const [numbers, ads] = await Promise.all([
    analyticsNumbers(organizationId),
    adFigures(organizationId, { start: range.start, end: range.end, number: resolved.filters.number }),
  ]);
  const page: AnalyticsAdsPage = {
    filters: resolved.filters,
    numbers,
    ads,
    error: resolved.ok ? null : resolved.error,
    form: resolved.ok ? formOf(resolved.filters) : askedFor(params, resolved.filters),
  };
  return page;
}

const formOf = (filters: AnalyticsFilters): AnalyticsForm => ({
  period: filters.period,
  from: filters.from,
  to: filters.to,
  number: filters.number ?? "",
});

/** A refused query's own values, each only where the form can show it (a known period, a date-like text). */
function askedFor(params: URLSearchParams, fallback: AnalyticsFilters): AnalyticsForm {
  const form = formOf(fallback);
  const period = params.get("period");
  if (period && (ANALYTICS_PERIODS as readonly string[]).includes(period)) form.period = period;
  const date = (value: string | null) => (value && /^[\d-]{1,10}$/.test(value.trim()) ? value.trim() : null);
  form.from = date(params.get("from")) ?? form.from;
  form.to = date(params.get("to")) ?? form.to;
  return form;
}
