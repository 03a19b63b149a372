import { sql } from "drizzle-orm";
import { db } from "../../infrastructure/db/client";
import { queryRows } from "../../infrastructure/db/query";
import { ADMIN_AUDIT_YEARS, RETENTION_LIMITS } from "~/lib/retention-limits";

/** How long the platform keeps a webhook delivery out, and so its idempotency key (decision 169). */
const DELIVERIES_KEEP_DAYS = RETENTION_LIMITS.logs.max;

/**
 * The tables partitioned by month (decisions 164, 169 and 181, migrations 0085, 0086 and 0092): each by the
 * column that says when a row was written, and how long the platform keeps any of it. A partition
 * whose month ended before that is dropped whole; shorter retentions (each organisation's) are
 * deletes of rows (retention.ts).
 */
export const PARTITIONED_TABLES = [
  { table: "activity_logs", key: "created_at", keepDays: RETENTION_LIMITS.logs.max },
  { table: "webhook_events", key: "received_at", keepDays: RETENTION_LIMITS.logs.max },
  { table: "admin_audit_log", key: "created_at", keepDays: ADMIN_AUDIT_YEARS * 366 },
  { table: "webhook_deliveries", key: "created_at", keepDays: DELIVERIES_KEEP_DAYS },
  // A message's row outlives its body (statuses, prices, the conversation's order): kept as long as
  // the longest message retention an organisation may choose.
  { table: "messages", key: "created_at", keepDays: RETENTION_LIMITS.messages.max },
] as const;

/** Months made ahead of the current one: three missed daily runs in a row still find their month. */
export const PARTITION_MONTHS_AHEAD = 3;

export const PARTITIONS_QUEUE = "partitions";
/** Daily, once across all instances (a recurring job). */
export const PARTITIONS_EVERY_SECONDS = 24 * 60 * 60;

/**
 * Makes each partitioned table's partitions from this month (UTC) to PARTITION_MONTHS_AHEAD ahead,
 * those missing only (rows the default partition took for one move into it). Answers how many it made.
 */
export async function createPartitionsAhead(): Promise<number> {
  let created = 0;
  for (const { table, key } of PARTITIONED_TABLES) {
    const [row] = await queryRows<{ created: number }>(
      db(),
      sql`select count(*) filter (where jumbe_ensure_month_partition(${table}, ${key}, month::date))::int as created
          from generate_series(date_trunc('month', now() at time zone 'UTC'),
                               date_trunc('month', now() at time zone 'UTC') + make_interval(months => ${PARTITION_MONTHS_AHEAD}),
                               interval '1 month') as month`,
    );
    created += row?.created ?? 0;
  }
  return created;
}

/**
 * Drops, whole, each partition whose month ended more than the platform keeps its table's rows
 * (no organisation may keep them longer): a catalogue change, not a delete of each row. The
 * activity log's hourly and daily counts of those months go with them. Answers the partitions dropped.
 */
export async function dropExpiredPartitions(): Promise<string[]> {
  const dropped: string[] = [];
  for (const { table, keepDays } of PARTITIONED_TABLES) {
    if (table === "messages") await releaseExpiredMessageMonths(keepDays);
    const rows = await queryRows<{ name: string }>(
      db(),
      sql`select jumbe_drop_month_partitions(${table}, now() - make_interval(days => ${keepDays})) as name`,
    );
    dropped.push(...rows.map((row) => row.name));
  }
  await dropExpiredDeliveryKeys();
  if (dropped.some((name) => name.startsWith("activity_logs_"))) {
    const before = sql`now() - make_interval(days => ${RETENTION_LIMITS.logs.max})`;
    await db().execute(
      sql`delete from activity_hourly_counts where hour < date_trunc('month', (${before}) at time zone 'UTC') at time zone 'UTC'`,
    );
    await db().execute(sql`delete from activity_daily_counts where day < date_trunc('month', (${before}) at time zone 'UTC')::date`);
  }
  return dropped;
}

/**
 * Before a month of messages is dropped: the automation runs, HubSpot log rows and SMS fallbacks of
 * its messages go, orders and Shopify events lose their link, and the messages' wamid keys go
 * (`messages_release_partition`, migration 0092), set based by joining the month's partition, as the
 * messages' deletion would have done (decision 180). Months the drop below will take, by the same
 * bound; a month released but not dropped (the drop failed) is released again the next day.
 */
async function releaseExpiredMessageMonths(keepDays: number) {
  await db().execute(sql`
    select messages_release_partition(c.relname::text)
    from pg_inherits i join pg_class c on c.oid = i.inhrelid
    where i.inhparent = to_regclass('messages') and c.relname ~ '^messages_p[0-9]{4}_[0-9]{2}$'
      and (to_date(right(c.relname, 7), 'YYYY_MM') + interval '1 month')::timestamp at time zone 'UTC'
          <= now() - make_interval(days => ${keepDays})`);
}

/**
 * The idempotency keys of webhook deliveries out (decision 169) whose month was dropped: one
 * statement by the keys' created_at range, up to the first month kept. A key whose delivery is still
 * there (a row the default partition holds) stays. After the drop and apart from it, so the parent's
 * lock is not held while it runs; a run that fails is made up by the next day's, which finds the same keys.
 */
async function dropExpiredDeliveryKeys() {
  const before = sql`now() - make_interval(days => ${DELIVERIES_KEEP_DAYS})`;
  await db().execute(sql`
    delete from webhook_delivery_keys k
    where k.created_at < date_trunc('month', (${before}) at time zone 'UTC') at time zone 'UTC'
      and not exists (select 1 from webhook_deliveries d where d.id = k.delivery_id and d.created_at = k.created_at)`);
}

/** The partitions a table has, oldest first (the admin console and the tests read them). */
export async function partitionsOf(table: (typeof PARTITIONED_TABLES)[number]["table"]): Promise<string[]> {
  const rows = await queryRows<{ name: string }>(
    db(),
    sql`select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
        where i.inhparent = to_regclass(${table}) order by c.relname`,
  );
  return rows.map((row) => row.name);
}
