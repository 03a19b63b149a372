// The reads of bench/revenue-share-transactions-page.mjs, in the app's own code: opens the database
// (DATABASE_URL, already seeded) and times each first page of the Transactions tab as its loader
// reads it (transactionPage, and partnerChoices beside it), a partner owner's own programme
// (ownProgramme), and the bare baseline through the same client; then EXPLAINs each statement.
// Prints one line of JSON on stdout.
import { performance } from "node:perf_hooks";
import { sql, type SQL } from "drizzle-orm";
import { closeDatabase, db, openDatabase } from "~/.server/infrastructure/db/client";
import { queryRows } from "~/.server/infrastructure/db/query";
import type { PlatformScope } from "~/.server/infrastructure/db/scope";
import {
  ownProgramme,
  partnerChoices,
  transactionPage,
  transactionPageQuery,
  type TransactionFilters,
} from "~/.server/domains/revenue-share/read";

const config = JSON.parse(process.argv[2] ?? "{}") as { iterations?: number; month?: string };
const iterations = config.iterations ?? 200;
const month = config.month ?? "2026-10";
await openDatabase({ databaseUrl: process.env.DATABASE_URL!, poolSize: 2, migrate: false });
const scope = {} as PlatformScope;

const partners = await queryRows<{ id: string; organization_id: string }>(
  db(),
  sql`select id, organization_id from partners where code like 'BENCH%' order by code`,
);
const pick = (i: number) => partners[(i * 7919) % partners.length]!;
const none: TransactionFilters = { partnerId: null, month: null, kind: null };

/** Each case: what the page reads (i: the iteration, so filtered cases vary their partner), and its statement for EXPLAIN. */
const cases: { name: string; read: (i: number) => Promise<unknown>; explain?: SQL }[] = [
  {
    name: "bare select ... order by occurred_at desc, id desc limit 51 (baseline)",
    read: () =>
      queryRows(
        db(),
        sql`select id, partner_id, kind, amount_cents, occurred_at from partner_transactions order by occurred_at desc, id desc limit 51`,
      ),
    explain: sql`select id, partner_id, kind, amount_cents, occurred_at from partner_transactions order by occurred_at desc, id desc limit 51`,
  },
  { name: "administrator, unfiltered", read: () => transactionPage(none, {}), explain: transactionPageQuery(none, {}).query },
  {
    name: "administrator, unfiltered + partnerChoices (the loader's two reads)",
    read: () => Promise.all([transactionPage(none, {}), partnerChoices(scope)]),
  },
  {
    name: "administrator, by partner",
    read: (i) => transactionPage({ ...none, partnerId: pick(i).id }, {}),
    explain: transactionPageQuery({ ...none, partnerId: pick(1).id }, {}).query,
  },
  {
    name: `administrator, by month (${month})`,
    read: () => transactionPage({ ...none, month }, {}),
    explain: transactionPageQuery({ ...none, month }, {}).query,
  },
  {
    name: "administrator, by kind: topup (most rows)",
    read: () => transactionPage({ ...none, kind: "topup" }, {}),
    explain: transactionPageQuery({ ...none, kind: "topup" }, {}).query,
  },
  {
    name: "administrator, by kind: credit_note (1 in 100)",
    read: () => transactionPage({ ...none, kind: "credit_note" }, {}),
    explain: transactionPageQuery({ ...none, kind: "credit_note" }, {}).query,
  },
  {
    name: "administrator, by kind: bank_transfer (none)",
    read: () => transactionPage({ ...none, kind: "bank_transfer" }, {}),
    explain: transactionPageQuery({ ...none, kind: "bank_transfer" }, {}).query,
  },
  {
    name: `administrator, by month and kind (${month}, credit_note)`,
    read: () => transactionPage({ ...none, month, kind: "credit_note" }, {}),
    explain: transactionPageQuery({ ...none, month, kind: "credit_note" }, {}).query,
  },
  {
    name: "partner owner, own transactions (20)",
    read: (i) => transactionPage({ ...none, organizationPartnerId: pick(i).id }, {}, 20),
    explain: transactionPageQuery({ ...none, organizationPartnerId: pick(1).id }, {}, 20).query,
  },
  { name: "partner owner, the whole page (ownProgramme)", read: (i) => ownProgramme(pick(i).organization_id) },
];

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

interface PlanNode {
  "Node Type": string;
  "Index Name"?: string;
  "Relation Name"?: string;
  "Actual Rows"?: number;
  "Actual Loops"?: number;
  "Rows Removed by Filter"?: number;
  Plans?: PlanNode[];
}
/** The plan's nodes in one line (Limit > Nested Loop > Index Scan Backward on partner_transactions_occurred_idx ...) and the rows read from partner_transactions. */
function summarise(node: PlanNode, out: { nodes: string[]; transactionRowsRead: number; sorts: number; seqScans: string[] }) {
  const backward = (node as { "Scan Direction"?: string })["Scan Direction"] === "Backward" ? " Backward" : "";
  out.nodes.push(
    `${node["Node Type"]}${backward}${node["Index Name"] ? ` ${node["Index Name"]}` : node["Relation Name"] ? ` ${node["Relation Name"]}` : ""}`,
  );
  if (node["Relation Name"] === "partner_transactions")
    out.transactionRowsRead += ((node["Actual Rows"] ?? 0) + (node["Rows Removed by Filter"] ?? 0)) * (node["Actual Loops"] ?? 1);
  if (/Sort/.test(node["Node Type"])) out.sorts += 1;
  if (node["Node Type"] === "Seq Scan") out.seqScans.push(node["Relation Name"] ?? "?");
  for (const child of node.Plans ?? []) summarise(child, out);
  return out;
}

const results = [];
for (const c of cases) {
  for (let i = 0; i < 10; i++) await c.read(i); // warm
  const times: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const started = performance.now();
    await c.read(i);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  let plan = null;
  if (c.explain) {
    const [row] = await queryRows<{ "QUERY PLAN": [{ Plan: PlanNode; "Execution Time": number }] | string }>(
      db(),
      sql`explain (analyze, format json) ${c.explain}`,
    );
    const raw = row!["QUERY PLAN"];
    const parsed = (typeof raw === "string" ? JSON.parse(raw) : raw) as [{ Plan: PlanNode; "Execution Time": number }];
    plan = {
      ...summarise(parsed[0].Plan, { nodes: [], transactionRowsRead: 0, sorts: 0, seqScans: [] }),
      executionMs: parsed[0]["Execution Time"],
    };
  }
  const round = (n: number) => Math.round(n * 100) / 100;
  results.push({ name: c.name, iterations, p50: round(percentile(times, 50)), p99: round(percentile(times, 99)), plan });
  process.stderr.write(`  ${c.name}: p50 ${round(percentile(times, 50))} ms, p99 ${round(percentile(times, 99))} ms\n`);
}
await closeDatabase();
process.stdout.write(`${JSON.stringify({ cases: results })}\n`);
process.exit(0);
