import { sql } from "drizzle-orm";
import { db } from "../../infrastructure/db/client";
import { queryRows } from "../../infrastructure/db/query";

/**
 * The usage fold (decision 173). A charge or a refund adds its messages and spend as a row of
 * billing_usage_pending (an insert, which waits for nobody); this adds them into billing_usage_daily.
 * One statement moves a batch: the rows deleted are the rows added, so a crash or a second fold on
 * another instance counts nothing twice (a row another fold deleted first is not deleted again), and
 * the daily rows are written in key order, so two folds never deadlock.
 */
export const USAGE_FOLD_QUEUE = "billing.usage-fold";
export const USAGE_FOLD_EVERY_SECONDS = 2;
const BATCH = 20_000;

/**
 * The usage rows readers add up: the rollup's and what waits for the fold (a few seconds' worth),
 * so "messages this month" and the spend never lag behind a charge. As SQL for a `from` item.
 */
export const USAGE_ROWS = `(select organization_id, day, phone_number_id, category, messages, amount_cents from billing_usage_daily
        union all select organization_id, day, phone_number_id, category, messages, amount_cents from billing_usage_pending)`;

/** Folds until nothing is pending; answers how many pending rows it moved. */
export async function foldUsage() {
  let moved = 0;
  for (;;) {
    const [row] = await queryRows<{ n: number | string }>(
      db(),
      sql`
      with moved as (
        delete from billing_usage_pending
        where id in (select id from billing_usage_pending order by id limit ${BATCH})
        returning organization_id, day, phone_number_id, category, messages, amount_cents
      ), added as (
        insert into billing_usage_daily (organization_id, day, phone_number_id, category, messages, amount_cents)
        select organization_id, day, phone_number_id, category, sum(messages), sum(amount_cents)
        from moved group by 1, 2, 3, 4 order by 1, 2, 3, 4
        on conflict (organization_id, day, phone_number_id, category) do update
          set messages = billing_usage_daily.messages + excluded.messages,
              amount_cents = billing_usage_daily.amount_cents + excluded.amount_cents
        returning 1
      )
      select count(*) as n from moved`,
    );
    const n = Number(row?.n ?? 0);
    moved += n;
    if (n < BATCH) return moved;
  }
}

/** How many charges wait for the fold (/metrics): a few seconds' worth, unless the fold has stopped. */
export async function pendingUsageRows() {
  const [row] = await queryRows<{ n: number | string }>(db(), sql`select count(*) as n from billing_usage_pending`);
  return Number(row?.n ?? 0);
}
