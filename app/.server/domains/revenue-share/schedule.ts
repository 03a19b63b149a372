import { sql } from "drizzle-orm";
import { db } from "../../infrastructure/db/client";
import { queryRow } from "../../infrastructure/db/query";
import { env } from "../../infrastructure/config/env";
import { log } from "../../infrastructure/log";
import { nairobiDate, nairobiMonth, nairobiMonthBounds } from "../billing";
import { settleMonth, type WithholdingRates } from "./settle";

export { nairobiMonth };

/**
 * The programme's recurring work (issue 46, decision 087), a recurring job enqueued once across
 * instances and safe to run twice all the same. (The ledger itself needs no job: a transaction is
 * written in the transaction that pays its invoice, decision 102.)
 * - on the 15th (Nairobi), the previous month is settled, then marked done. A run that dies before the mark is simply
 *   run again (settleMonth marks each transaction once); a month missed entirely (every instance
 *   down from the 15th to the month's end) is settled on the next check.
 */

export const SETTLE_QUEUE = "partners.settle";
/** The settlement is looked for this often; it runs once a month. */
export const SETTLE_CHECK_EVERY_SECONDS = 10 * 60;
/** The day of the month (Nairobi) the previous month is settled. */
export const SETTLEMENT_DAY = 15;

/** The rates the deployment configured (PARTNER_WITHHOLDING_*). */
export function configuredWithholding(): WithholdingRates {
  const e = env();
  return {
    residentBps: e.PARTNER_WITHHOLDING_RESIDENT_BPS,
    nonResidentBps: e.PARTNER_WITHHOLDING_NON_RESIDENT_BPS,
    thresholdCents: e.PARTNER_WITHHOLDING_THRESHOLD_CENTS,
  };
}

/** The month whose settlement is due at `now`: the previous one from the 15th (Nairobi), the one before until then. */
export function dueSettlementPeriod(now: Date) {
  const day = Number(nairobiDate(now).slice(8, 10));
  return nairobiMonth(now, day >= SETTLEMENT_DAY ? 1 : 2);
}

/** The settlement day of the month `first` (YYYY-MM-01), as YYYY-MM-DD. */
const settlementDayOf = (first: string) => `${first.slice(0, 8)}${String(SETTLEMENT_DAY).padStart(2, "0")}`;

/**
 * The day the next settlement runs (YYYY-MM-DD, Nairobi): this month's settlement day until this
 * month's run has completed (the previous month marked settled), then next month's. On the 15th
 * itself it is today until the run, the 15th of next month after it.
 */
export async function nextSettlementDay(now = new Date()) {
  const done = await mark("settlement");
  const settledThisMonth = done !== null && done.getTime() >= nairobiMonthBounds(nairobiMonth(now, 1)).start.getTime();
  return settlementDayOf(nairobiMonth(now, settledThisMonth ? -1 : 0));
}

async function mark(name: "settlement") {
  const row = await queryRow<{ at: Date | string }>(db(), sql`select at from partner_schedule where name = ${name}`);
  return row ? new Date(row.at) : null;
}

async function moveMark(name: "settlement", at: Date) {
  // Never backwards: a slower run that started earlier cannot undo a later one's mark.
  await db().execute(sql`
    insert into partner_schedule (name, at) values (${name}, ${at.toISOString()}::timestamptz)
    on conflict (name) do update set at = greatest(partner_schedule.at, excluded.at), updated_at = now()`);
}

/**
 * The settlement check: when a month's settlement is due and not yet done, it is run (recording
 * first) with the configured withholding and marked done. Answers the month settled, or null.
 */
export async function settleDueMonth(now = new Date(), rates: WithholdingRates = configuredWithholding()) {
  const period = dueSettlementPeriod(now);
  const done = await mark("settlement");
  const { start } = nairobiMonthBounds(period);
  if (done && done.getTime() >= start.getTime()) return null;
  const settlements = await settleMonth(period, rates);
  await moveMark("settlement", start);
  log().info({ period, settlements: settlements.length }, "partner settlements");
  return period;
}
