import { sql } from "drizzle-orm";
import { db } from "../../infrastructure/db/client";
import { queryRows } from "../../infrastructure/db/query";

/**
 * Monthly settlements (issue 46, decision 086): on the 15th (Nairobi), each partner's unsettled
 * transactions up to the end of the previous month are summed into one settlement with withholding
 * tax deducted. One statement marks each transaction with its settlement (each row written once) and
 * inserts the settlements from what it marked; a settlement's id is derived from the partner and the
 * month, so a second run (another instance, a retry after a crash) finds nothing left to mark and
 * inserts nothing twice. A partner whose credit notes outweigh its month gets no settlement: its
 * transactions stay unsettled and carry into the next month, as does an invoice recorded after its
 * month's settlement went to be paid.
 */

export interface WithholdingRates {
  /** Kenyan residents (KRA's agency and consultancy fees): default 5%. */
  residentBps: number;
  /** Non-residents: default 20%. */
  nonResidentBps: number;
  /** A month's share at or below this (cents) is paid without withholding; 0: always withheld. */
  thresholdCents: number;
}

export const DEFAULT_WITHHOLDING: WithholdingRates = { residentBps: 500, nonResidentBps: 2000, thresholdCents: 0 };

/** The Nairobi month `period` (YYYY-MM-01) as instants: [start, end). */
export function monthBounds(period: string) {
  if (!/^\d{4}-\d{2}-01$/.test(period)) throw new RangeError(`A settlement period is the first day of a month, not "${period}".`);
  const [year, month] = period.split("-").map(Number) as [number, number];
  const start = new Date(Date.UTC(year, month - 1, 1) - 3 * 3600_000);
  const end = new Date(Date.UTC(year, month, 1) - 3 * 3600_000);
  return { start, end };
}

export interface SettlementRow {
  id: string;
  partner_id: string;
  transactions: number;
  partner_cents: string;
  withholding_cents: string;
  net_cents: string;
}

/**
 * Settles `period` for every partner owed something up to its end; answers the settlements this run
 * created or added to (none when an earlier run did it all).
 */
export async function settleMonth(period: string, rates: WithholdingRates = DEFAULT_WITHHOLDING): Promise<SettlementRow[]> {
  const { end } = monthBounds(period);
  return db().transaction(async (tx) =>
    queryRows<SettlementRow>(
      tx,
      sql`
      with owed as (
        -- Partners owed something: their unsettled transactions up to the month's end (a late one of an
        -- earlier month, a credit note carried) sum to more than nothing, and their settlement of the
        -- month is not already being paid.
        select t.partner_id from partner_transactions t
        where t.occurred_at < ${end.toISOString()}::timestamptz and t.settlement_id is null
          and not exists (select 1 from partner_settlements s where s.partner_id = t.partner_id and s.period = ${period}::date
                            and s.status <> 'pending')
        group by t.partner_id having sum(t.partner_cents) > 0
      ),
      marked as (
        update partner_transactions t
        set settlement_id = md5(t.partner_id::text || ':' || ${period})::uuid
        from owed
        where t.partner_id = owed.partner_id and t.occurred_at < ${end.toISOString()}::timestamptz and t.settlement_id is null
        returning t.partner_id, t.settlement_id, t.amount_cents, t.partner_cents
      ),
      month as (
        select m.partner_id, m.settlement_id, count(*)::int as transactions, sum(m.amount_cents)::bigint as revenue,
               sum(m.partner_cents)::bigint as earned
        from marked m group by m.partner_id, m.settlement_id
      ),
      taxed as (
        select month.*, p.payout_method,
               case when month.earned <= ${rates.thresholdCents} then 0
                    when p.resident then ${rates.residentBps} else ${rates.nonResidentBps} end as bps
        from month join partners p on p.id = month.partner_id
      )
      insert into partner_settlements (id, partner_id, period, transactions, revenue_cents, partner_cents, withholding_bps,
                                       withholding_cents, net_cents, payout_method)
      select settlement_id, partner_id, ${period}::date, transactions, revenue, earned, bps,
             greatest(round(earned * bps / 10000.0), 0)::bigint, earned - greatest(round(earned * bps / 10000.0), 0)::bigint, payout_method
      from taxed
      on conflict (partner_id, period) do update
        set transactions = partner_settlements.transactions + excluded.transactions,
            revenue_cents = partner_settlements.revenue_cents + excluded.revenue_cents,
            partner_cents = partner_settlements.partner_cents + excluded.partner_cents,
            withholding_cents = partner_settlements.withholding_cents + excluded.withholding_cents,
            net_cents = partner_settlements.net_cents + excluded.net_cents
        where partner_settlements.status = 'pending'
      returning id, partner_id, transactions, partner_cents::text, withholding_cents::text, net_cents::text`,
    ),
  );
}
