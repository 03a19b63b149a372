import { nairobiDate } from "./dates";
import { m } from "~/paraglide/messages";

/**
 * The Analytics page's filters and figures, shared by the server (which computes them), the page and
 * the public API. Periods are Africa/Nairobi hours and days (decision 036).
 */

/** The spec's periods (24 hours, 7, 30, 90 days) and a custom range of days. */
export const ANALYTICS_PERIODS = ["24h", "7d", "30d", "90d", "custom"] as const;
export type AnalyticsPeriod = (typeof ANALYTICS_PERIODS)[number];
/** The periods' names, in the language of the page that reads them (getters: issue 43). */
export const PERIOD_LABELS: Readonly<Record<AnalyticsPeriod, string>> = {
  get "24h"() {
    return m.app_period_24h();
  },
  get "7d"() {
    return m.app_period_7d();
  },
  get "30d"() {
    return m.app_period_30d();
  },
  get "90d"() {
    return m.app_period_90d();
  },
  get custom() {
    return m.app_period_custom();
  },
};
export const DEFAULT_PERIOD: AnalyticsPeriod = "7d";
/** The longest custom range, in days, and how far back one may start. */
export const CUSTOM_RANGE_MAX_DAYS = 366;
export const CUSTOM_RANGE_OLDEST_DAYS = 731;

export const CHART_SERIES = ["sent", "delivered", "read"] as const;
export type ChartSeries = (typeof CHART_SERIES)[number];
export const CHART_LABELS: Readonly<Record<ChartSeries, string>> = {
  get sent() {
    return m.app_analytics_sent();
  },
  get delivered() {
    return m.app_analytics_delivered();
  },
  get read() {
    return m.app_analytics_read();
  },
};

export const PRICING_CATEGORIES = ["marketing", "utility", "authentication", "service"] as const;
export type PricingCategory = (typeof PRICING_CATEGORIES)[number];
export const CATEGORY_LABELS: Readonly<Record<PricingCategory, string>> = {
  get marketing() {
    return m.app_analytics_category_marketing();
  },
  get utility() {
    return m.app_analytics_category_utility();
  },
  get authentication() {
    return m.app_analytics_category_authentication();
  },
  get service() {
    return m.app_analytics_category_service();
  },
};

export interface AnalyticsFilters {
  period: AnalyticsPeriod;
  /** Nairobi dates (YYYY-MM-DD) of a custom range, inclusive; set for every period once resolved. */
  from: string;
  to: string;
  /** One business number's id, or null for all. */
  number: string | null;
  chart: ChartSeries;
}

/** What a query string asks for, or the words that say what is wrong with it (shown on the page, 400). */
export type ParsedFilters = { ok: true; filters: AnalyticsFilters } | { ok: false; filters: AnalyticsFilters; error: string };

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** Today's date in Nairobi, YYYY-MM-DD. */
export function nairobiToday(now = new Date()) {
  return nairobiDate(now);
}

/** A date plus a number of days (negative: before), YYYY-MM-DD. */
export function addDays(day: string, days: number) {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

/** Whole days from `from` to `to`, inclusive. */
export function daysInRange(from: string, to: string) {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000) + 1;
}

function validDate(value: string) {
  if (!DATE.test(value)) return false;
  const d = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === value;
}

/** The filters in a URL's query: period, from, to, number, chart. Unknown values are refused, not guessed. */
export function parseAnalyticsFilters(params: URLSearchParams, now = new Date()): ParsedFilters {
  const today = nairobiToday(now);
  const fallback: AnalyticsFilters = { period: DEFAULT_PERIOD, from: addDays(today, -6), to: today, number: null, chart: "sent" };
  const fail = (error: string): ParsedFilters => ({ ok: false, filters: fallback, error });

  const chartValue = params.get("chart") ?? "sent";
  if (!(CHART_SERIES as readonly string[]).includes(chartValue)) return fail(m.app_analytics_error_chart());
  const chart = chartValue as ChartSeries;
  fallback.chart = chart;

  const numberValue = params.get("number")?.trim() || null;
  if (numberValue && !/^\d{1,32}$/.test(numberValue)) return fail(m.app_analytics_error_number());
  const number = numberValue;

  const periodValue = params.get("period") ?? DEFAULT_PERIOD;
  if (!(ANALYTICS_PERIODS as readonly string[]).includes(periodValue)) return fail(m.app_analytics_error_period());
  const period = periodValue as AnalyticsPeriod;

  if (period !== "custom") {
    const days = period === "24h" ? 1 : Number(period.slice(0, -1));
    const from = period === "24h" ? addDays(today, -1) : addDays(today, -(days - 1));
    return { ok: true, filters: { period, from, to: today, number, chart } };
  }
  const from = params.get("from")?.trim() ?? "";
  const to = params.get("to")?.trim() ?? "";
  if (!from || !to) return fail(m.app_analytics_error_both_dates());
  if (!validDate(from) || !validDate(to)) return fail(m.app_analytics_error_date_format());
  if (to < from) return fail(m.app_analytics_error_end_before_start());
  if (to > today) return fail(m.app_analytics_error_future());
  if (daysInRange(from, to) > CUSTOM_RANGE_MAX_DAYS) return fail(m.app_analytics_error_too_long({ days: CUSTOM_RANGE_MAX_DAYS }));
  if (daysInRange(from, today) > CUSTOM_RANGE_OLDEST_DAYS) return fail(m.app_analytics_error_too_old());
  return { ok: true, filters: { period, from, to, number, chart } };
}

/** The query string of a set of filters (a link keeps the others when it changes one). */
export function analyticsQuery(filters: AnalyticsFilters, change: Partial<AnalyticsFilters> = {}) {
  const next = { ...filters, ...change };
  const params = new URLSearchParams();
  params.set("period", next.period);
  if (next.period === "custom") {
    params.set("from", next.from);
    params.set("to", next.to);
  }
  if (next.number) params.set("number", next.number);
  if (next.chart !== "sent") params.set("chart", next.chart);
  return `?${params.toString()}`;
}

/** A figure of a period and of the period of the same length before it. */
export interface Compared {
  value: number | null;
  previous: number | null;
}

export interface AnalyticsCards {
  sent: Compared;
  delivered: Compared;
  read: Compared;
  replied: Compared;
  failed: Compared;
  received: Compared;
  uniqueContacts: Compared;
  /** Average first response time in minutes (null: no response in the period). */
  avgResponseMinutes: Compared;
  /** Delivered ÷ sent and read ÷ delivered, in percent (null when the divisor is 0). */
  deliveryRate: Compared;
  readRate: Compared;
  spendCents: Compared;
}

export interface AnalyticsVolumePoint {
  /** "14:00" (an hour of the range, or an hour of the day for longer periods). */
  label: string;
  sent: number;
  delivered: number;
  read: number;
}

export interface AnalyticsTemplateRow {
  id: string;
  name: string;
  language: string | null;
  sent: number;
  delivered: number;
  read: number;
  replied: number;
}

/** The spec's Analytics daily entity, one row per day (per hour for the 24-hour period). */
export interface AnalyticsDailyRow {
  /** YYYY-MM-DD, or YYYY-MM-DDTHH:00 for an hour. */
  period: string;
  messagesSent: number;
  messagesDelivered: number;
  messagesRead: number;
  messagesReplied: number;
  uniqueContacts: number;
  /** Minutes, one decimal; null when nobody was answered then. */
  avgResponseTime: number | null;
}

export interface AnalyticsCategoryRow {
  category: PricingCategory;
  messages: number;
  spendCents: number;
}

export interface AnalyticsReport {
  filters: AnalyticsFilters;
  /** The range read and the one compared with, as ISO instants (start inclusive, end exclusive). */
  range: { start: string; end: string; previousStart: string; previousEnd: string; grain: "hour" | "day" };
  /** The tenant's business numbers, for the number filter (shown when there are several). */
  numbers: { id: string; label: string }[];
  billingType: "prepaid" | "postpaid";
  cards: AnalyticsCards;
  /** 24 points: each hour of a 24-hour period, or each hour of the day summed over a longer one. */
  volume: { mode: "hours" | "hour-of-day"; points: AnalyticsVolumePoint[] };
  templates: AnalyticsTemplateRow[];
  daily: AnalyticsDailyRow[];
  funnel: { sent: number; delivered: number; read: number; replied: number };
  categories: AnalyticsCategoryRow[];
}

/** A percentage with one decimal, or null when there is nothing to divide by. */
export function rate(part: number, whole: number) {
  return whole > 0 ? Math.round((part / whole) * 1000) / 10 : null;
}

/** The change from the previous period in percent, or null when it cannot be said (nothing before). */
export function change({ value, previous }: Compared) {
  if (value === null || previous === null || previous === 0) return null;
  return Math.round(((value - previous) / previous) * 1000) / 10;
}
