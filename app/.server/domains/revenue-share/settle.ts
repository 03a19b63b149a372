import { sql, type SQL } from "drizzle-orm";
import { db } from "../../infrastructure/db/client";
import { queryRows } from "../../infrastructure/db/query";
import { nairobiMonthBounds } from "../billing";

/**
 * Monthly settlements (issue 46, decision 086): on the 15th (Nairobi), each partner's unsettled
 * transactions up to the end of the previous month are summed into one settlement with withholding
 * tax deducted. One statement marks each transaction with its settlement (each row written once) and
 * inserts the settlements from what it marked; a settlement's id is derived from the partner and the
 * month, so a second run (another instance, a retry after a crash) finds nothing left to mark and
 * inserts nothing twice; a run that finds more for a pending settlement adds it and works out the
 * withholding and the payment again over the whole. A partner whose credit notes outweigh its month gets no settlement: its
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

/** The Nairobi month `period` (YYYY-MM-01) as instants: [start, end) (billing's one definition of a month). */
export const monthBounds = nairobiMonthBounds;

/**
 * A settlement's id from its partner and month, the same on every run and instance: the md5 of
 * "partner:YYYY-MM-01" laid out as a name-based UUID, version 3 and RFC 4122's variant (issue 72:
 * the bare md5 was no UUID by the API's format). Migration 0058 moved the earlier ids by the same
 * two nibbles, so each old id maps to its new one.
 */
const derivedSettlementId = (partnerId: SQL, period: string) => sql`(
  select overlay(overlay(h placing '3' from 13 for 1)
                 placing substr('89ab', (('x' || substr(h, 17, 1))::bit(4)::int & 3) + 1, 1) from 17 for 1)::uuid
  from (select md5(${partnerId}::text || ':' || ${period}) as h) d)`;

/**
 * A settlement's figures from its partner's whole share for the month `earned` (issue 72: on a
 * re-run, the threshold and the rate apply to the whole settlement, not to what the run adds) and
 * the cents its earlier settlements could not pay `carriedIn`: withholding at the partner's rate
 * now, the net, and what is paid. M-Pesa pays whole shillings, so an M-Pesa settlement pays the
 * shillings of net + carried in and carries the cents to the next; a bank transfer pays to the cent.
 */
function figures(earned: SQL, carriedIn: SQL, partnerId: SQL, method: SQL, rates: WithholdingRates) {
  const bps = sql`(case when ${earned} <= ${rates.thresholdCents} then 0
                        when (select p.resident from partners p where p.id = ${partnerId}) then ${rates.residentBps}
                        else ${rates.nonResidentBps} end)`;
  const withholding = sql`greatest(round(${earned} * ${bps} / 10000.0), 0)::bigint`;
  const net = sql`(${earned} - ${withholding})`;
  const carriedOut = sql`(case when ${method} = 'mpesa' then (${net} + ${carriedIn}) % 100 else 0 end)`;
  return { bps, withholding, net, carriedOut, payable: sql`(${net} + ${carriedIn} - ${carriedOut})` };
}

export interface SettlementRow {
  id: string;
  partner_id: string;
  transactions: number;
  partner_cents: string;
  withholding_cents: string;
  net_cents: string;
  carried_in_cents: string;
  carried_out_cents: string;
  payable_cents: string;
}

/**
 * Settles `period` for every partner owed something up to its end; answers the settlements this run
 * created or added to (none when an earlier run did it all).
 */
export async function settleMonth(period: string, rates: WithholdingRates = DEFAULT_WITHHOLDING): Promise<SettlementRow[]> {
  const { end } = monthBounds(period);
  const first = figures(
    sql.raw("month.earned"),
    sql.raw("month.carried_in"),
    sql.raw("month.partner_id"),
    sql.raw("p.payout_method"),
    rates,
  );
  const again = figures(
    sql.raw("(partner_settlements.partner_cents + excluded.partner_cents)"),
    sql.raw("excluded.carried_in_cents"),
    sql.raw("partner_settlements.partner_id"),
    sql.raw("partner_settlements.payout_method"),
    rates,
  );
  return db().transaction(async (tx) =>
    queryRows<SettlementRow>(
      tx,
      sql`
      with owed as (
        -- Partners owed something: their unsettled transactions up to the month's end (a late one of an
        -- earlier month, a credit note carried) sum to more than nothing, their settlement of the month
        -- is not already being paid, and no later month is settled yet (a late transaction then goes
        -- to the next settlement, never to one whose cents were already carried on).
        select t.partner_id,
               coalesce((select s.id from partner_settlements s where s.partner_id = t.partner_id and s.period = ${period}::date),
                        ${derivedSettlementId(sql.raw("t.partner_id"), period)}) as settlement_id
        from partner_transactions t
        where t.occurred_at < ${end.toISOString()}::timestamptz and t.settlement_id is null
          and not exists (select 1 from partner_settlements s where s.partner_id = t.partner_id
                            and (s.period > ${period}::date or (s.period = ${period}::date and s.status <> 'pending')))
        group by t.partner_id having sum(t.partner_cents) > 0
      ),
      marked as (
        update partner_transactions t
        set settlement_id = owed.settlement_id
        from owed
        where t.partner_id = owed.partner_id and t.occurred_at < ${end.toISOString()}::timestamptz and t.settlement_id is null
        returning t.partner_id, t.settlement_id, t.amount_cents, t.partner_cents
      ),
      month as (
        select m.partner_id, m.settlement_id, count(*)::int as transactions, sum(m.amount_cents)::bigint as revenue,
               sum(m.partner_cents)::bigint as earned,
               -- Every cent the partner's earlier settlements counted and did not pay.
               coalesce((select sum(s.net_cents - s.payable_cents) from partner_settlements s
                         where s.partner_id = m.partner_id and s.period < ${period}::date), 0)::bigint as carried_in
        from marked m group by m.partner_id, m.settlement_id
      )
      insert into partner_settlements (id, partner_id, period, transactions, revenue_cents, partner_cents, withholding_bps,
                                       withholding_cents, net_cents, carried_in_cents, carried_out_cents, payable_cents, payout_method)
      select month.settlement_id, month.partner_id, ${period}::date, month.transactions, month.revenue, month.earned, ${first.bps},
             ${first.withholding}, ${first.net}, month.carried_in, ${first.carriedOut}, ${first.payable}, p.payout_method
      from month join partners p on p.id = month.partner_id
      on conflict (partner_id, period) do update
        set transactions = partner_settlements.transactions + excluded.transactions,
            revenue_cents = partner_settlements.revenue_cents + excluded.revenue_cents,
            partner_cents = partner_settlements.partner_cents + excluded.partner_cents,
            withholding_bps = ${again.bps},
            withholding_cents = ${again.withholding},
            net_cents = ${again.net},
            carried_in_cents = excluded.carried_in_cents,
            carried_out_cents = ${again.carriedOut},
            payable_cents = ${again.payable}
        where partner_settlements.status = 'pending'
      returning id, partner_id, transactions, partner_cents::text, withholding_cents::text, net_cents::text, carried_in_cents::text,
                carried_out_cents::text, payable_cents::text`,
    ),
  );
}
