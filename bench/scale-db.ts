// Jumbe at scale (issue 78, docs/scaling.md): a PostgreSQL 15 cluster of its own under
// /work/wt/h7-data (SCALE_DB_DIR), Jumbe's migrations, and a generated platform of `organizations`
// organisations and `messages` messages over 12 months (bench/lib/scale-seed.ts says its shape).
//
//   node --import tsx bench/scale-db.ts generate [--messages=50000000] [--organizations=1000] [--retention-month=0]
//   node --import tsx bench/scale-db.ts measure      the plans and times of Jumbe's own reads (below)
//   node --import tsx bench/scale-db.ts retention    bench/lib/scale-retention.ts (issue 78's Speed bullet)
//   node --import tsx bench/scale-db.ts destroy      stops the cluster and deletes its data directory
//
// `generate` is resumable: each step and each batch of a million messages is recorded once done, so
// a second run goes on where the first stopped. `measure` calls the domain functions themselves
// (the inbox list and its search, a thread, the analytics report of 30 days, the contacts export,
// retention of one month for one large organisation and for all) on the largest organisation, with
// auto_explain logging every statement's plan (ANALYZE, BUFFERS) to the cluster's log; it prints
// each call's time (the first, cold from the operating system's cache, and the median of the next
// three) and writes the plans' summaries to scale-plans.json in the cluster's directory.
import { performance } from "node:perf_hooks";
import { statSync, writeFileSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { parseEnv, setEnv } from "../app/.server/infrastructure/config/env";
import { closeDatabase, openDatabase } from "../app/.server/infrastructure/db/client";
import { clusterDir, openScaleCluster, type ScaleCluster } from "./lib/scale-cluster";
import { seed } from "./lib/scale-seed";

const args = process.argv.slice(2);
const mode = args.find((arg) => !arg.startsWith("--")) ?? "generate";
const options = Object.fromEntries(
  args
    .filter((arg) => arg.startsWith("--"))
    .map((arg) => {
      const [key, value] = arg.replace(/^--/, "").split("=");
      return [key!, value ?? "1"];
    }),
);
const say = (text: string) => process.stderr.write(`[${new Date().toISOString().slice(11, 19)}] scale-db: ${text}\n`);

async function withClient<T>(url: string, work: (query: (text: string, params?: unknown[]) => Promise<pg.QueryResult>) => Promise<T>) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work((text, params) => client.query(text, params));
  } finally {
    await client.end();
  }
}

async function migrate(cluster: ScaleCluster) {
  setEnv(parseEnv({ NODE_ENV: "production", DEPLOYMENT: "local", LOG_LEVEL: "warn", DATA_DIR: path.join(cluster.dir, "files") }));
  const started = performance.now();
  await openDatabase({ databaseUrl: cluster.url, poolSize: 4 });
  await closeDatabase();
  say(`migrations: ${Math.round(performance.now() - started) / 1000} s`);
}

/** Every table's and index's size, largest first. */
export async function sizes(url: string) {
  return withClient(url, async (query) => {
    const tables = await query(`
      select c.relname as name, pg_table_size(c.oid) as table_bytes, pg_indexes_size(c.oid) as index_bytes, c.reltuples::bigint as rows
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = 'public' and c.relkind in ('r', 'p') and not c.relispartition
      order by pg_total_relation_size(c.oid) desc limit 20`);
    // A partitioned table's own size is its partitions'.
    const partitioned = await query(`
      select p.relname as name, sum(pg_table_size(c.oid))::bigint as table_bytes, sum(pg_indexes_size(c.oid))::bigint as index_bytes, sum(c.reltuples)::bigint as rows
      from pg_inherits i join pg_class c on c.oid = i.inhrelid join pg_class p on p.oid = i.inhparent
      group by p.relname`);
    const indexes = await query(`
      select c.relname as name, coalesce(sum(pg_relation_size(part.inhrelid)), pg_relation_size(c.oid))::bigint as bytes
      from pg_index x join pg_class c on c.oid = x.indexrelid join pg_class t on t.oid = x.indrelid
      left join pg_inherits part on part.inhparent = c.oid
      where t.relname = 'messages' group by c.oid, c.relname order by 2 desc`); // a partitioned index's size is its partitions'
    const database = await query(`select pg_database_size('jumbe') as bytes`);
    return { database: Number(database.rows[0].bytes), tables: [...tables.rows, ...partitioned.rows], messageIndexes: indexes.rows };
  });
}

async function generate() {
  const messages = Number(options.messages ?? 50_000_000);
  const organizations = Number(options.organizations ?? 1000);
  const retentionMonth = Number(options["retention-month"] ?? 0);
  const cluster = await openScaleCluster();
  say(`cluster at ${cluster.url} (${cluster.dir}); ${organizations} organisations, ${messages.toLocaleString("en-US")} messages`);
  await migrate(cluster);
  const started = performance.now();
  await withClient(cluster.url, (query) => seed(query, { organizations, messages, retentionMonth, say }));
  say(`generated in ${Math.round((performance.now() - started) / 1000)} s (this run); folding the analytics ...`);
  setEnv(parseEnv({ NODE_ENV: "production", DEPLOYMENT: "local", LOG_LEVEL: "warn", DATA_DIR: path.join(cluster.dir, "files") }));
  await openDatabase({ databaseUrl: cluster.url, poolSize: 4, migrate: false });
  const { foldAnalytics } = await import("../app/.server/domains/analytics/fold");
  const foldStarted = performance.now();
  let folded = { deltas: 0, events: 0 };
  for (;;) {
    const round = await foldAnalytics();
    folded = { deltas: folded.deltas + round.deltas, events: folded.events + round.events };
    if (!round.deltas && !round.events) break;
  }
  await closeDatabase();
  say(`fold: ${Math.round(performance.now() - foldStarted) / 1000} s, ${folded.deltas} deltas`);
  const vacuumStarted = performance.now();
  // What autovacuum would have done by now on a live database: the visibility map set, statistics fresh.
  await withClient(cluster.url, (query) => query(`vacuum (analyze)`));
  say(`vacuum (analyze): ${Math.round(performance.now() - vacuumStarted) / 1000} s`);
  const measured = await sizes(cluster.url);
  writeFileSync(path.join(cluster.dir, "scale-sizes.json"), JSON.stringify(measured, null, 2));
  say(`database: ${(measured.database / 2 ** 30).toFixed(2)} GiB`);
  for (const t of measured.tables.slice(0, 12))
    say(
      `  ${t.name}: ${t.rows} rows, table ${(Number(t.table_bytes) / 2 ** 20).toFixed(0)} MiB, indexes ${(Number(t.index_bytes) / 2 ** 20).toFixed(0)} MiB`,
    );
}

async function main() {
  if (mode === "generate") return generate();
  if (mode === "measure") return (await import("./lib/scale-measure")).measure(await openScaleCluster(), say, options);
  if (mode === "retention") return (await import("./lib/scale-retention")).retentionBench(await openScaleCluster(), say, options);
  if (mode === "sizes") return console.log(JSON.stringify(await sizes((await openScaleCluster()).url), null, 2));
  if (mode === "destroy") {
    const dir = clusterDir();
    try {
      statSync(dir);
    } catch {
      return say(`${dir}: nothing there`);
    }
    (await openScaleCluster(dir)).destroy();
    return say(`${dir} deleted`);
  }
  throw new Error(`unknown mode ${mode}: generate, measure, retention, sizes or destroy`);
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
