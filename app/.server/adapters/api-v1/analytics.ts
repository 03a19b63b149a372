import { z } from "zod";
import { ApiProblem } from "./problem";
import { analyticsNumbers, analyticsRange, analyticsReport } from "../../domains/analytics/report";
import { paymentFigures } from "../../domains/analytics/payments";
import { adFigures } from "../../domains/analytics/ads";
import { ANALYTICS_PERIODS, parseAnalyticsFilters } from "~/lib/analytics";
import { m } from "~/paraglide/messages";

/** GET /api/v1/analytics: the Analytics page's cards and daily rows (decision 036), for scripts and dashboards. */

export const AnalyticsQuery = z
  .object({
    period: z.enum(ANALYTICS_PERIODS).default("7d").describe("24h, 7d, 30d, 90d (Africa/Nairobi days, today included), or custom."),
    from: z.iso.date().optional().describe("First Nairobi day of a custom range, YYYY-MM-DD."),
    to: z.iso.date().optional().describe("Last Nairobi day of a custom range, YYYY-MM-DD (today at the latest; at most 366 days)."),
    number: z
      .string()
      .regex(/^\d{1,32}$/)
      .optional()
      .describe("One of your business numbers' phone number id (see /api/v1/phone-numbers); all numbers when left out."),
  })
  .strict();

const Compared = (description: string) =>
  z
    .object({
      value: z.number().nullable().describe("This period."),
      previous: z.number().nullable().describe("The period of the same length just before."),
    })
    .describe(description);

const PaymentRows = (description: string) =>
  z
    .array(
      z.object({
        id: z.string().describe("The member's, flow's or campaign's id."),
        name: z.string(),
        requested: z.number().int(),
        paid: z.number().int(),
        conversion: z.number().nullable(),
        kesCollected: z.number().int(),
      }),
    )
    .describe(description);

const AdRow = z.object({
  id: z.string().describe("The ad's (or boosted post's) id at Meta (source_id); for a source type row, the type."),
  headline: z.string().nullable().describe("The ad's latest headline, null when it has none."),
  sourceType: z.enum(["ad", "post", "unknown"]).nullable(),
  conversations: z.number().int().describe("Conversations a customer started or continued from it in the period."),
  answered: z.number().int().describe("Of those, answered by a team member, an automation or a free-form API message."),
  medianResponseMinutes: z.number().nullable().describe("Median minutes to the first answer; null when none was answered."),
  orders: z.number().int().describe("Shop orders in those conversations after the customer came from it (last ad before the order)."),
  paymentsPaid: z.number().int().describe("M-Pesa payment requests in those conversations that were paid."),
  kesCollected: z.number().int().describe("Whole Kenya shillings M-Pesa took for them."),
});

export const Analytics = z
  .object({
    period: z.enum(ANALYTICS_PERIODS),
    from: z.string().describe("First Nairobi day of the period (for 24h: yesterday)."),
    to: z.string().describe("Last Nairobi day of the period."),
    number: z.string().nullable(),
    range: z.object({
      start: z.iso.datetime().describe("Start of the period (inclusive)."),
      end: z.iso.datetime().describe("End of the period (exclusive)."),
      previousStart: z.iso.datetime().describe("Start of the period compared with; it ends where this one starts."),
    }),
    cards: z.object({
      sent: Compared("Messages Meta accepted."),
      delivered: Compared("Delivered (a message read without a delivered status counts as delivered)."),
      read: Compared("Read."),
      replied: Compared("Business messages a customer answered (their next message on that number within 24 hours)."),
      failed: Compared("Failed."),
      received: Compared("Customers' messages received."),
      uniqueContacts: Compared("Different contacts with a message either way."),
      avgResponseMinutes: Compared("Average first response time in minutes, null when nobody was answered."),
      deliveryRate: Compared("Delivered ÷ sent, percent."),
      readRate: Compared("Read ÷ delivered, percent."),
      spendCents: Compared("Charged to the prepaid wallet, in KES cents."),
    }),
    daily: z
      .array(
        z.object({
          period: z.string().describe("A Nairobi day (YYYY-MM-DD), or an hour (YYYY-MM-DDTHH:00) for the 24h period."),
          messagesSent: z.number().int(),
          messagesDelivered: z.number().int(),
          messagesRead: z.number().int(),
          messagesReplied: z.number().int(),
          uniqueContacts: z.number().int(),
          avgResponseTime: z.number().nullable().describe("Minutes."),
        }),
      )
      .describe("One row per day of the period (per hour for 24h), oldest first."),
    payments: z
      .object({
        requested: z.number().int().describe("M-Pesa payment requests made in the period."),
        paid: z.number().int().describe("How many of them were paid (whenever they were)."),
        conversion: z.number().nullable().describe("Paid ÷ requested, percent; null when none was made."),
        kesCollected: z.number().int().describe("Whole Kenya shillings M-Pesa took for them (a different amount counts as paid)."),
        amountMismatches: z.number().int().describe("Paid requests whose paid amount differs from the one asked."),
        byAgent: PaymentRows("By the team member who made them, the ten that collected most."),
        byFlow: PaymentRows("By the chatbot flow that sent them, the ten that collected most."),
        byCampaign: PaymentRows(
          "By the last campaign the customer replied to in the 72 hours before the request, the ten that collected most.",
        ),
      })
      .describe("The period's payment requests (made in the period), as the Analytics page's Payments section shows them."),
    ads: z
      .object({
        total: AdRow,
        byAd: z.array(AdRow).describe("Every ad customers came from in the period, the most collected first."),
        bySourceType: z.array(AdRow).describe("Ads and boosted posts apart."),
      })
      .describe("Click-to-WhatsApp ads (customers who came from one in the period), as the Analytics page's Ads tab shows them."),
  })
  .meta({ id: "Analytics" });

export async function apiAnalytics(organizationId: string, query: z.output<typeof AnalyticsQuery>) {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, value);
  const parsed = parseAnalyticsFilters(params);
  if (!parsed.ok) throw new ApiProblem(400, "invalid_request", parsed.error);
  const { filters } = parsed;
  if (filters.number && !(await analyticsNumbers(organizationId)).some((n) => n.id === filters.number))
    throw new ApiProblem(400, "invalid_request", "number: That business number is not one of yours.");
  const range = analyticsRange(filters);
  const [report, payments, ads] = await Promise.all([
    analyticsReport(organizationId, filters),
    paymentFigures(organizationId, { start: range.start, end: range.end, number: filters.number, goneName: m.app_analytics_payments_gone }),
    adFigures(organizationId, { start: range.start, end: range.end, number: filters.number, top: Number.POSITIVE_INFINITY }),
  ]);
  return {
    period: filters.period,
    from: filters.from,
    to: filters.to,
    number: filters.number,
    range: { start: report.range.start, end: report.range.end, previousStart: report.range.previousStart },
    cards: report.cards,
    daily: report.daily,
    payments,
    ads,
  };
}
