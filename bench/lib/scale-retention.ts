// The retention bench (issue 78: "Retention deletes a month of 10 million messages in under a minute
// without blocking sends"), on the cluster bench/scale-db.ts generated with --retention-month: that
// month, the 13th back, holds its messages. With PostgreSQL's durable settings (fsync,
// synchronous_commit and full_page_writes on, as production runs it):
//
// 1. A sender alone: one connection queueing a message every 1/rate s, the statement the API's queue
//    runs (messaging/queue.ts: an outbound text to a contact of the largest organisation, the
//    analytics trigger firing), each in its own transaction; each one's latency from when it was due
//    (so a stall counts in full, not only the statement that waited).
// 2. The same sender while retention runs as enforceAllRetention() runs it (housekeeping/retention.ts:
//    enforceRetention for one organisation after another) with every organisation's message
//    retention at 365 days: the month's bodies are expired (retention empties a body and its payload
//    and keeps the row) in chunks of 5,000. The largest organisation first (its month: 8% of it),
//    then the others until --budget-seconds (default 120) more have passed; the whole month's time
//    is extrapolated from the rate measured when the budget stops it (each chunk costs the same).
// 3. The alternative of decision 164, monthly partitions: a copy of part of the month
//    (--partition-rows, default 2,000,000) in a table partitioned by month, with the messages'
//    two main indexes, and the month detached and dropped as jumbe_drop_month_partitions does it,
//    while the sender writes into the copy's current month.
import { performance } from "node:perf_hooks";
import path from "node:path";
import pg from "pg";
import { parseEnv, setEnv } from "../../app/.server/infrastructure/config/env";
import { closeDatabase, openDatabase } from "../../app/.server/infrastructure/db/client";
import type { ScaleCluster } from "./scale-cluster";

const DURABLE = { fsync: "on", synchronous_commit: "on", full_page_writes: "on" };

interface Latencies {
  count: number;
  p50: number;
  p99: number;
  max: number;
  /** Inserts that had not finished a second after they were due. */
  overOneSecond: number;
}

function summarise(samples: number[]): Latencies {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => Math.round((sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0) * 10) / 10;
  return { count: sorted.length, p50: at(0.5), p99: at(0.99), max: at(1), overOneSecond: sorted.filter((ms) => ms > 1000).length };
}

/**
 * A connection inserting one message every 1000/rate ms until stop(): the latency of each from the
 * moment it was due to its commit. Runs on its own schedule; a late insert makes the next ones late.
 */
async function startSender(url: string, rate: number, insert: string, params: unknown[]) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const latencies: number[] = [];
  let running = true;
  const every = 1000 / rate;
  const done = (async () => {
    let due = performance.now();
    while (running) {
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      await client.query("begin");
      await client.query(insert, params);
      await client.query("commit");
      latencies.push(performance.now() - due);
      due += every;
    }
  })();
  return {
    async stop() {
      running = false;
      await done;
      await client.end();
      return latencies;
    },
  };
}

const QUEUE_INSERT = `
  insert into messages (organization_id, contact_id, direction, status, body, phone_number_id, message_type, payload,
                        source, recipient_phone, template_id, context_wamid, next_attempt_at, pricing_category, sent_by,
                        price_cents, charge_state)
  values ($1, (select id from contacts where organization_id = $1 and (phone = $2 or wa_id = $3) limit 1),
          'outbound', 'queued', 'Your order is on its way', $4, 'text',
          '{"type":"text","text":{"body":"Your order is on its way"}}'::jsonb, 'api', $2, null, null, now(), null, null, null, null)
  returning *`;

export async function retentionBench(cluster: ScaleCluster, say: (text: string) => void, options: Record<string, string>) {
  const rate = Number(options.rate ?? 50);
  const aloneSeconds = Number(options["alone-seconds"] ?? 20);
  const partitionRows = Number(options["partition-rows"] ?? 2_000_000);
  const budgetSeconds = Number(options["budget-seconds"] ?? 120);
  say(`restarting with durable settings (${JSON.stringify(DURABLE)})`);
  cluster.restart(DURABLE);
  const admin = new pg.Client({ connectionString: cluster.url });
  await admin.connect();
  const one = async (text: string, params?: unknown[]) => (await admin.query(text, params)).rows[0];
  const target = await one(
    `select o.id, o.number, c.phone from scale_orgs o join contacts c on c.organization_id = o.id where o.g = 1 limit 1`,
  );
  const params = [target.id, target.phone, String(target.phone).slice(1), target.number];
  const month = await one(
    `select count(*)::bigint as n, min(created_at) as first, max(created_at) as last from messages
     where created_at < (select t0 from scale_settings) - interval '365 days' and body_expired_at is null`,
  );
  say(
    `the month to expire: ${Number(month.n).toLocaleString("en-US")} messages, ${month.first.toISOString()} to ${month.last.toISOString()}`,
  );
  const walBefore = await one(`select pg_current_wal_lsn() as lsn`);

  say(`sender alone for ${aloneSeconds} s at ${rate} a second ...`);
  let sender = await startSender(cluster.url, rate, QUEUE_INSERT, params);
  await new Promise((resolve) => setTimeout(resolve, aloneSeconds * 1000));
  const aloneLatencies = await sender.stop();
  const alone = summarise(aloneLatencies);
  // What a queued message writes to the WAL (its row, its indexes, the trigger's rows), for the IOPS model.
  const walPerInsert =
    Number((await one(`select pg_wal_lsn_diff(pg_current_wal_lsn(), $1) as bytes`, [walBefore.lsn])).bytes) / aloneLatencies.length;
  say(`  alone: ${JSON.stringify(alone)}; WAL ${Math.round(walPerInsert)} bytes a queued message`);
  const walRetention = await one(`select pg_current_wal_lsn() as lsn`);

  await admin.query(`update organizations set message_retention_days = 365`);
  setEnv(parseEnv({ NODE_ENV: "production", DEPLOYMENT: "local", LOG_LEVEL: "warn", DATA_DIR: path.join(cluster.dir, "files") }));
  await openDatabase({ databaseUrl: cluster.url, poolSize: 4, migrate: false });
  const { enforceRetention } = await import("../../app/.server/domains/housekeeping/retention");
  // enforceAllRetention's loop (housekeeping/retention.ts), the largest organisation first and then the
  // others in its order, until --budget-seconds: at the rate measured, the whole month is extrapolated.
  const organisations = (
    await admin.query(
      `select o.id, o.message_retention_days as "messageDays", o.media_retention_days as "mediaDays", o.log_retention_days as "logDays"
       from organizations o join scale_orgs s on s.id = o.id order by s.g <> 1, o.id`,
    )
  ).rows;
  say(`retention with the sender (budget ${budgetSeconds} s after the largest organisation) ...`);
  sender = await startSender(cluster.url, rate, QUEUE_INSERT, params);
  const started = performance.now();
  const removed = { bodies: 0, media: 0, logs: 0, organisations: 0 };
  let largest: { seconds: number; bodies: number } | null = null;
  for (const organisation of organisations) {
    const one = await enforceRetention(organisation);
    removed.bodies += one.bodies;
    removed.media += one.media;
    removed.logs += one.logs;
    removed.organisations += 1;
    const seconds = (performance.now() - started) / 1000;
    if (!largest) {
      largest = { seconds: Math.round(seconds * 10) / 10, bodies: one.bodies };
      say(`  the largest organisation: ${one.bodies} bodies in ${largest.seconds} s`);
    } else if (seconds - largest.seconds > budgetSeconds) break;
  }
  const retentionSeconds = (performance.now() - started) / 1000;
  const during = summarise(await sender.stop());
  await closeDatabase();
  const walAfter = await one(`select pg_wal_lsn_diff(pg_current_wal_lsn(), $1) as bytes`, [walRetention.lsn]);
  const perSecond = removed.bodies / retentionSeconds;
  say(
    `  retention: ${retentionSeconds.toFixed(1)} s, ${JSON.stringify(removed)} (${Math.round(perSecond)} bodies/s; the month's ${month.n} at that rate: ${Math.round(Number(month.n) / perSecond)} s); WAL ${(Number(walAfter.bytes) / 2 ** 30).toFixed(2)} GiB`,
  );
  say(`  sender during: ${JSON.stringify(during)}`);

  const partition = await partitionAlternative(admin, cluster.url, { rate, partitionRows, say });
  await admin.end();
  const result = {
    settings: { rate, aloneSeconds, durable: DURABLE },
    month: { messages: Number(month.n) },
    retention: {
      seconds: Math.round(retentionSeconds * 10) / 10,
      removed,
      largest,
      bodiesPerSecond: Math.round(perSecond),
      monthSecondsAtThatRate: Math.round(Number(month.n) / perSecond),
      walBytes: Number(walAfter.bytes),
    },
    sender: { alone, during, walBytesPerInsert: Math.round(walPerInsert) },
    partition,
  };
  console.log(JSON.stringify(result, null, 2));
  return result;
}

/** The month as a partition: copied (part of it), then detached and dropped under the sender's inserts into the current month. */
async function partitionAlternative(
  admin: pg.Client,
  url: string,
  { rate, partitionRows, say }: { rate: number; partitionRows: number; say: (text: string) => void },
) {
  const q = (text: string, params?: unknown[]) => admin.query(text, params);
  await q(`drop table if exists scale_messages_by_month`);
  await q(`create table scale_messages_by_month (like messages including defaults including identity) partition by range (created_at)`);
  const bounds = (
    await q(`select date_trunc('month', min(created_at)) as lo, date_trunc('month', min(created_at)) + interval '1 month' as hi,
                    date_trunc('month', now()) as cur from messages`)
  ).rows[0];
  await q(
    `create table scale_messages_by_month_old partition of scale_messages_by_month
     for values from ('${bounds.lo.toISOString()}') to ('${bounds.hi.toISOString()}')`,
  );
  await q(`create table scale_messages_by_month_now partition of scale_messages_by_month default`);
  await q(`create index on scale_messages_by_month (organization_id, created_at)`);
  await q(`create index on scale_messages_by_month (contact_id, created_at) where contact_id is not null`);
  const copyStarted = performance.now();
  const copied = await q(
    `insert into scale_messages_by_month overriding system value select * from messages where created_at >= $1 and created_at < $2 order by created_at limit $3`,
    [bounds.lo, bounds.hi, partitionRows],
  );
  const bytes = (await q(`select pg_total_relation_size('scale_messages_by_month_old') as b`)).rows[0].b;
  say(
    `partition copy: ${copied.rowCount} rows in ${((performance.now() - copyStarted) / 1000).toFixed(1)} s, ${(Number(bytes) / 2 ** 20).toFixed(0)} MiB`,
  );
  const insert = `insert into scale_messages_by_month (id, organization_id, direction, status, body, message_type, created_at)
                  values (gen_random_uuid(), $1, 'outbound', 'queued', 'Your order is on its way', 'text', now())`;
  const orgId = (await q(`select id from scale_orgs where g = 1`)).rows[0].id;
  const sender = await startSender(url, rate, insert, [orgId]);
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const started = performance.now();
  await q(`alter table scale_messages_by_month detach partition scale_messages_by_month_old`);
  const detachMs = performance.now() - started;
  await q(`drop table scale_messages_by_month_old`);
  const dropMs = performance.now() - started - detachMs;
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const during = summarise(await sender.stop());
  await q(`drop table scale_messages_by_month`);
  const result = {
    rows: copied.rowCount,
    bytes: Number(bytes),
    detachMs: Math.round(detachMs * 10) / 10,
    dropMs: Math.round(dropMs * 10) / 10,
    sender: during,
  };
  say(`  detach ${result.detachMs} ms, drop ${result.dropMs} ms; sender ${JSON.stringify(during)}`);
  return result;
}
