// The analytics benchmark's in-process side (bench/analytics.mjs), run with `node --import tsx` on the
// app's own functions against the benchmark's PostgreSQL cluster. One command a run; progress on
// stderr, one JSON line on stdout at the end.
//
//   node --import tsx bench/lib/analytics-report.ts prepare '{"databaseUrl": "...", "password": "..."}'
//       migrations applied (openDatabase), and an argon2id hash of the password for the tenants' owners
//   node --import tsx bench/lib/analytics-report.ts fold '{"databaseUrl": "..."}'
//       foldAnalytics() (app/.server/domains/analytics/fold.ts) called until nothing is pending
//   node --import tsx bench/lib/analytics-report.ts report '{"databaseUrl": "...", "cases": [...], "requests": 30}'
//       analyticsReport() (app/.server/domains/analytics/report.ts) timed per case, with parseAnalyticsFilters
//       reading the case's query string as the page would; beside the same round trips doing no work;
//       then the statements one report sends, captured from the ORM's logger, each timed alone and
//       explained (EXPLAIN (ANALYZE, BUFFERS)) with the parameters it was sent with.
import { performance } from "node:perf_hooks";
import { sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import { foldAnalytics } from "../../app/.server/domains/analytics/fold";
import { analyticsReport } from "../../app/.server/domains/analytics/report";
import { overviewFigures } from "../../app/.server/domains/dashboard/progress";
import { hashPassword } from "../../app/.server/domains/auth/password";
import { closeDatabase, db, openDatabase, setCurrentDatabase, type Database } from "../../app/.server/infrastructure/db/client";
import { queryRows } from "../../app/.server/infrastructure/db/query";
import * as schema from "../../app/.server/infrastructure/db/schema";
import { parseAnalyticsFilters } from "../../app/lib/analytics";

const [command, configText] = process.argv.slice(2);
const config = JSON.parse(configText ?? "{}") as Record<string, unknown>;
const databaseUrl = String(config.databaseUrl ?? "");
const progress = (line: string) => process.stderr.write(`${line}\n`);
const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;
const median = (sorted: number[]) => sorted[Math.floor(sorted.length / 2)] ?? null;
// Nearest rank, as bench/lib/page-timing.mjs takes it.
const p95 = (sorted: number[]) => sorted[Math.max(0, Math.ceil(sorted.length * 0.95) - 1)] ?? null;

function summary(times: number[]) {
  const sorted = [...times].sort((a, b) => a - b);
  return { n: sorted.length, medianMs: round(median(sorted) ?? 0), p95Ms: round(p95(sorted) ?? 0), maxMs: round(sorted.at(-1) ?? 0) };
}

async function prepare() {
  const started = performance.now();
  await openDatabase({ databaseUrl, poolSize: 2 });
  const migrateMs = performance.now() - started;
  const hash = await hashPassword(String(config.password));
  await closeDatabase();
  return { migrateMs: round(migrateMs), hash };
}

async function fold() {
  await openDatabase({ databaseUrl, poolSize: 2, migrate: false });
  const pending = async () => {
    const [row] = await queryRows<{ deltas: string; events: string }>(
      db(),
      sql`
      select (select count(*) from message_stats_pending) as deltas, (select count(*) from analytics_events_pending) as events`,
    );
    return { deltas: Number(row?.deltas ?? 0), events: Number(row?.events ?? 0) };
  };
  const before = await pending();
  progress(`    ${before.deltas.toLocaleString("en-US")} pending deltas, ${before.events.toLocaleString("en-US")} pending events`);
  const started = performance.now();
  const total = { deltas: 0, events: 0, calls: 0 };
  // foldAnalytics() folds at most 50 batches a call (1,000,000 deltas); the job calls it every 2 s.
  for (;;) {
    const done = await foldAnalytics(db());
    total.calls++;
    total.deltas += done.deltas;
    total.events += done.events;
    const left = await pending();
    progress(
      `    fold call ${total.calls}: ${done.deltas.toLocaleString("en-US")} deltas, ${done.events.toLocaleString("en-US")} events ` +
        `(${((performance.now() - started) / 1000).toFixed(1)} s; ${left.deltas.toLocaleString("en-US")} deltas left)`,
    );
    if (!left.deltas && !left.events) break;
    if (!done.deltas && !done.events) throw new Error("the fold made no progress (another fold holds its lock?)");
  }
  const ms = performance.now() - started;
  await closeDatabase();
  return { ms: round(ms), before, ...total };
}

interface Case {
  label: string;
  tenant: string;
  organizationId: string;
  /** The page's query string for analyticsReport(), or "overview" for the Overview's figures (overviewFigures()). */
  query: string;
}

interface Captured {
  text: string;
  params: unknown[];
}

/** The app's database, opened as openDatabase opens PostgreSQL, with a logger that can keep what it is sent. */
function capturingDatabase(poolSize: number) {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: poolSize });
  const state: { captured: Captured[] | null; statements: number } = { captured: null, statements: 0 };
  const logger = {
    logQuery(text: string, params: unknown[]) {
      state.statements++;
      state.captured?.push({ text, params });
    },
  };
  setCurrentDatabase({
    db: drizzle(pool, { schema, logger }) as unknown as Database,
    kind: "postgres",
    query: async <Row>(text: string, params?: unknown[]) => (await pool.query(text, params)).rows as Row[],
    listen: async () => async () => {},
    // Nothing listens here: a caller waiting for notifications to arrive is told so.
    listenerCaughtUp: async () => {
      throw new Error("not listening");
    },
    close: () => pool.end(),
  });
  return { pool, state };
}

/** A few words on what a plan does: its nodes with their actual rows, indented by depth. */
function planShape(lines: string[]) {
  return lines
    .filter((l) => /->|^\S/.test(l) && !/^(Planning|Execution)/.test(l))
    .map((l) => {
      const depth = Math.max(0, l.search(/\S/));
      const node = l
        .trim()
        .replace(/^->\s*/, "")
        .replace(/\s+\(cost=[^)]*\)/, "");
      return `${" ".repeat(Math.round(depth / 3))}${node}`;
    });
}

async function report() {
  const cases = config.cases as Case[];
  const requests = Number(config.requests ?? 30);
  const warmUp = Number(config.warmUp ?? 3);
  const explainTenants = new Set((config.explainTenants as string[] | undefined) ?? ["large"]);
  const { pool, state } = capturingDatabase(Number(config.poolSize ?? 10));
  const results = [];
  try {
    // The floor: the same round trips doing no work (the report's five statements side by side, then one).
    const bare = async () => {
      await Promise.all(Array.from({ length: 5 }, () => queryRows(db(), sql`select 1`)));
      await queryRows(db(), sql`select 1`);
    };
    for (let i = 0; i < warmUp; i++) await bare();
    const bareTimes = [];
    for (let i = 0; i < requests; i++) {
      const t = performance.now();
      await bare();
      bareTimes.push(performance.now() - t);
    }
    const baseline = { what: "5 x `select 1` side by side, then 1, through the same pool and ORM", ...summary(bareTimes) };
    progress(`    baseline (round trips doing no work): median ${baseline.medianMs} ms`);

    for (const c of cases) {
      const overview = c.query === "overview";
      const parsed = overview ? null : parseAnalyticsFilters(new URLSearchParams(c.query));
      if (parsed && !parsed.ok) throw new Error(`${c.label}: ${parsed.error}`);
      const filters = parsed?.filters ?? null;
      const run = () => (filters ? analyticsReport(c.organizationId, filters) : overviewFigures(c.organizationId));
      for (let i = 0; i < warmUp; i++) await run();
      const times = [];
      let statements = 0;
      let last = null;
      for (let i = 0; i < requests; i++) {
        const before = state.statements;
        const t = performance.now();
        last = await run();
        times.push(performance.now() - t);
        statements = state.statements - before;
      }
      const report = last && "cards" in last ? last : null;
      const row = {
        ...c,
        filters: filters && { period: filters.period, from: filters.from, to: filters.to, number: filters.number },
        statements,
        ...summary(times),
        check: report
          ? {
              sent: report.cards.sent.value,
              delivered: report.cards.delivered.value,
              read: report.cards.read.value,
              replied: report.cards.replied.value,
              failed: report.cards.failed.value,
              received: report.cards.received.value,
              uniqueContacts: report.cards.uniqueContacts.value,
              spendCents: report.cards.spendCents.value,
              previousSent: report.cards.sent.previous,
              dailyRows: report.daily.length,
              templates: report.templates.length,
            }
          : last,
        statementsAlone: null as unknown,
      };
      progress(`    ${c.tenant} ${c.label}: median ${row.medianMs} ms, p95 ${row.p95Ms} ms (${statements} statements)`);

      if (explainTenants.has(c.tenant)) {
        // One more report, its statements kept as sent; each then timed alone and explained.
        state.captured = [];
        await run();
        const captured = state.captured as Captured[];
        state.captured = null;
        const alone = [];
        for (const statement of captured) {
          const aloneTimes = [];
          for (let i = 0; i < Math.min(requests, 15); i++) {
            const t = performance.now();
            await pool.query(statement.text, statement.params);
            aloneTimes.push(performance.now() - t);
          }
          const explained = await pool.query(`explain (analyze, buffers, format text) ${statement.text}`, statement.params);
          const lines = explained.rows.map((r: Record<string, string>) => r["QUERY PLAN"] as string);
          const executionMs = Number(lines.find((l) => l.startsWith("Execution Time"))?.match(/([\d.]+) ms/)?.[1]);
          const planningMs = Number(lines.find((l) => l.startsWith("Planning Time"))?.match(/([\d.]+) ms/)?.[1]);
          alone.push({
            statement: statement.text.replace(/\s+/g, " ").trim(),
            params: statement.params,
            ...summary(aloneTimes),
            executionMs,
            planningMs,
            shape: planShape(lines),
            plan: lines,
          });
        }
        row.statementsAlone = alone;
      }
      results.push(row);
    }
    return { baseline, requests, warmUp, cases: results };
  } finally {
    await pool.end();
  }
}

async function main() {
  const work = { prepare, fold, report }[command as "prepare" | "fold" | "report"];
  if (!work) throw new Error(`unknown command ${command}: prepare, fold or report`);
  const result = await work();
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

main().then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
