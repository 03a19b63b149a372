import { z } from "zod";
import { sql } from "drizzle-orm";
import { db } from "../../infrastructure/db/client";
import { queryRow, queryRows } from "../../infrastructure/db/query";
import { env } from "../../infrastructure/config/env";
import { nairobiMonth, nairobiMonthBounds } from "../../domains/billing/periods";
import { ApiProblem } from "./problem";

/**
 * `GET /api/v1/partner` (issue 46): the calling organisation's own place in the revenue share
 * programme, for partners who reconcile in their own systems: its partner record, the organisations
 * it brought, its transactions (a page at a time, by month) and its settlements. An organisation
 * that is not a partner gets 404; nothing of another partner is ever read (every statement is
 * keyed by the caller's organisation).
 */

export const NOT_A_PARTNER = "No partner record: your organisation is not a partner in Jumbe's revenue share programme.";

/** A cursor of the transactions: base64url of "t<id>", the last row of the page (its time is read again, to the microsecond). */
function decodeCursor(value: string): number | undefined {
  if (!/^[A-Za-z0-9_-]{1,40}$/.test(value)) return undefined;
  const found = /^t(\d{1,15})$/.exec(Buffer.from(value, "base64url").toString());
  return found ? Number(found[1]) : undefined;
}
const encodeCursor = (id: number) => Buffer.from(`t${id}`).toString("base64url");

export const PartnerQuery = z
  .object({
    month: z
      .string()
      .regex(/^\d{4}-(0[1-9]|1[0-2])$/, "a month as YYYY-MM")
      .optional()
      .describe("Only the transactions of this Nairobi month (YYYY-MM)."),
    cursor: z
      .string()
      .refine((v) => !!decodeCursor(v), "not a cursor of this list: pass transactions.nextCursor from the previous page")
      .optional()
      .describe("transactions.nextCursor of the previous page."),
    limit: z.coerce.number().int().min(1).max(100).default(25).describe("Transactions per page, 1 to 100."),
  })
  .strict();

const Cents = z.int().describe("KES cents.");

export const PartnerView = z
  .object({
    partner: z.object({
      id: z.uuid(),
      name: z.string(),
      category: z.string(),
      status: z.enum(["pending", "active", "suspended"]).describe("pending: applied, not yet approved; suspended: accrues nothing new."),
      shareBps: z.int().describe("Your share of what your clients pay, net of VAT, in basis points (1500 = 15%)."),
      code: z.string().describe("Your referral code."),
      referralLink: z.string().describe("The sign-up link that brings an organisation to you."),
      payoutMethod: z.enum(["mpesa", "bank"]),
    }),
    clients: z
      .array(
        z.object({
          name: z.string(),
          joinedAt: z.iso.datetime().describe("When the organisation became your client."),
          paidThisMonthCents: Cents.describe("What it paid this Nairobi month, net of VAT and of credit notes, in KES cents."),
        }),
      )
      .describe("The organisations you brought, newest first."),
    transactions: z.object({
      data: z
        .array(
          z.object({
            id: z.string().describe("The transaction's id."),
            client: z.string().nullable().describe("The client organisation's name (null once it is closed)."),
            kind: z.enum(["topup", "subscription", "bank_transfer", "credit_note"]),
            amountCents: Cents.describe("What the client paid, net of VAT (negative: a credit note)."),
            shareBps: z.int(),
            partnerCents: Cents.describe("Your part."),
            occurredAt: z.iso.datetime(),
            settlementId: z.uuid().nullable().describe("The settlement that counted it; null until then."),
          }),
        )
        .describe("Newest first."),
      nextCursor: z.string().nullable().describe("Pass as `cursor` for the next page; null on the last page."),
      hasMore: z.boolean().describe("Whether another page follows: true with a nextCursor to pass as cursor, false on the last page."),
    }),
    settlements: z
      .array(
        z.object({
          id: z.uuid(),
          month: z.string().describe("YYYY-MM."),
          status: z.enum(["pending", "processing", "paid", "failed"]),
          transactions: z.int(),
          revenueCents: Cents,
          partnerCents: Cents,
          withholdingBps: z.int(),
          withholdingCents: Cents,
          netCents: Cents.describe("Your share less the withholding tax, in KES cents."),
          carriedInCents: Cents.describe(
            "Cents your earlier settlements counted and could not pay (M-Pesa pays whole shillings), paid with this one.",
          ),
          carriedOutCents: Cents.describe(
            "Cents this settlement cannot pay by M-Pesa (under a shilling), carried to your next settlement; 0 by bank.",
          ),
          payoutCents: Cents.describe(
            "What is paid, or to be paid: netCents + carriedInCents - carriedOutCents. The statement shows the same.",
          ),
          method: z.enum(["mpesa", "bank"]),
          reference: z.string().nullable().describe("The M-Pesa receipt or the bank's reference, once paid."),
          paidAt: z.iso.datetime().nullable(),
        }),
      )
      .describe("Newest month first."),
  })
  .meta({ id: "Partner" });

type Query = z.infer<typeof PartnerQuery>;
const iso = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString());

// long: the partner endpoint's one answer: four reads of one partner shaped into the documented PartnerView, field by field
export async function getApiPartner(organizationId: string, query: Query): Promise<z.infer<typeof PartnerView>> {
  const partner = await queryRow<{
    id: string;
    name: string;
    category: string;
    status: "pending" | "active" | "suspended";
    share_bps: number;
    code: string;
    payout_method: "mpesa" | "bank";
  }>(db(), sql`select id, name, category, status, share_bps, code, payout_method from partners where organization_id = ${organizationId}`);
  if (!partner) throw new ApiProblem(404, "not_found", NOT_A_PARTNER);

  const thisMonth = nairobiMonthBounds(nairobiMonth(new Date()));
  const clients = await queryRows<{ name: string; started_at: Date | string; paid: string }>(
    db(),
    sql`select o.name, a.started_at,
               coalesce((select sum(t.amount_cents) from partner_transactions t
                         where t.partner_id = a.partner_id and t.client_organization_id = a.organization_id
                           and t.occurred_at >= ${thisMonth.start.toISOString()}::timestamptz
                           and t.occurred_at < ${thisMonth.end.toISOString()}::timestamptz), 0)::text as paid
        from partner_attributions a join organizations o on o.id = a.organization_id
        where a.partner_id = ${partner.id} and a.ended_at is null
        order by a.started_at desc, a.id desc`,
  );

  const month = query.month ? nairobiMonthBounds(`${query.month}-01`) : null;
  const after = query.cursor ? (decodeCursor(query.cursor) ?? null) : null;
  const rows = await queryRows<{
    id: string;
    name: string | null;
    kind: "topup" | "subscription" | "bank_transfer" | "credit_note";
    amount_cents: string;
    share_bps: number;
    partner_cents: string;
    occurred_at: Date | string;
    settlement_id: string | null;
  }>(
    db(),
    sql`select t.id::text, o.name, t.kind, t.amount_cents::text, t.share_bps, t.partner_cents::text, t.occurred_at, t.settlement_id
        from partner_transactions t left join organizations o on o.id = t.client_organization_id
        where t.partner_id = ${partner.id}
          ${month ? sql`and t.occurred_at >= ${month.start.toISOString()}::timestamptz and t.occurred_at < ${month.end.toISOString()}::timestamptz` : sql``}
          ${after === null ? sql`` : sql`and (t.occurred_at, t.id) < (select c.occurred_at, c.id from partner_transactions c where c.id = ${after} and c.partner_id = ${partner.id})`}
        order by t.occurred_at desc, t.id desc
        limit ${query.limit + 1}`,
  );
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);

  const settlements = await queryRows<{
    id: string;
    month: string;
    status: "pending" | "processing" | "paid" | "failed";
    transactions: number;
    revenue_cents: string;
    partner_cents: string;
    withholding_bps: number;
    withholding_cents: string;
    net_cents: string;
    carried_in_cents: string;
    carried_out_cents: string;
    payable_cents: string;
    payout_method: "mpesa" | "bank";
    payout_reference: string | null;
    paid_at: Date | string | null;
  }>(
    db(),
    sql`select id, to_char(period, 'YYYY-MM') as month, status, transactions, revenue_cents::text, partner_cents::text, withholding_bps,
               withholding_cents::text, net_cents::text, carried_in_cents::text, carried_out_cents::text, payable_cents::text, payout_method, payout_reference, paid_at
        from partner_settlements where partner_id = ${partner.id} order by period desc`,
  );

  return {
    partner: {
      id: partner.id,
      name: partner.name,
      category: partner.category,
      status: partner.status,
      shareBps: partner.share_bps,
      code: partner.code,
      referralLink: `${env().APP_URL}/signup?ref=${encodeURIComponent(partner.code)}`,
      payoutMethod: partner.payout_method,
    },
    clients: clients.map((c) => ({ name: c.name, joinedAt: iso(c.started_at)!, paidThisMonthCents: Number(c.paid) })),
    transactions: {
      data: page.map((t) => ({
        id: t.id,
        client: t.name,
        kind: t.kind,
        amountCents: Number(t.amount_cents),
        shareBps: t.share_bps,
        partnerCents: Number(t.partner_cents),
        occurredAt: iso(t.occurred_at)!,
        settlementId: t.settlement_id,
      })),
      nextCursor: rows.length > query.limit && last ? encodeCursor(Number(last.id)) : null,
      hasMore: rows.length > query.limit,
    },
    settlements: settlements.map((s) => ({
      id: s.id,
      month: s.month,
      status: s.status,
      transactions: s.transactions,
      revenueCents: Number(s.revenue_cents),
      partnerCents: Number(s.partner_cents),
      withholdingBps: s.withholding_bps,
      withholdingCents: Number(s.withholding_cents),
      netCents: Number(s.net_cents),
      carriedInCents: Number(s.carried_in_cents),
      carriedOutCents: Number(s.carried_out_cents),
      payoutCents: Number(s.payable_cents),
      method: s.payout_method,
      reference: s.payout_reference,
      paidAt: iso(s.paid_at),
    })),
  };
}
