#!/usr/bin/env node
// The revenue share's Transactions tab at scale (issue 46: its first page under 100 ms at 400,000
// transactions), on a private PostgreSQL cluster:
//
//   node bench/revenue-share-transactions-page.mjs                         (2,000 partners x 200 clients, 400,000 transactions)
//   node bench/revenue-share-transactions-page.mjs --partners 200 --keep   (smaller; the cluster stays, for EXPLAIN by hand)
//   node bench/revenue-share-transactions-page.mjs --iterations 500
//
// 1. Migrations, then bench/revenue-share-settlement.mjs's data (generatePartnerData: one paid top-up per
//    client in October 2026), plus a credit note for one transaction in a hundred (a rare kind).
// 2. In the app's own code (bench/lib/revenue-share-transactions-page.ts): each first page as the tab's
//    loader reads it (transactionPage: the administrator's unfiltered, by partner, by month, by
//    kind; a partner owner's own, and ownProgramme, the owner's whole page), `iterations` times
//    each, p50 and p99, beside a bare `select ... order by occurred_at desc, id desc limit 51` on
//    the same table through the same client; then EXPLAIN ANALYZE of each statement: its plan's
//    nodes, sorts, sequential scans and the rows it read from partner_transactions.
// Prints a table and the JSON report; never a pass/fail test.
import { execFileSync } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { generatePartnerData } from "./revenue-share-settlement.mjs";
import { withPrivateCluster } from "./lib/scale-run.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** A credit note for every hundredth transaction of October's first four weeks: half its amount back three days after it, at the same share. */
async function addCreditNotes(query) {
  await query(
    `insert into partner_transactions (partner_id, client_organization_id, invoice_id, kind, amount_cents, share_bps, partner_cents, platform_cents, occurred_at)
     select partner_id, client_organization_id, md5('credit:' || id)::uuid, 'credit_note', -(amount_cents / 2), share_bps,
            -round((amount_cents / 2) * share_bps / 10000.0)::bigint, -(amount_cents / 2) + round((amount_cents / 2) * share_bps / 10000.0)::bigint,
            occurred_at + interval '3 days'
     from partner_transactions where id % 100 = 0 and kind = 'topup' and occurred_at < '2026-10-27T21:00:00Z'`,
  );
  await query(`vacuum analyze partner_transactions`);
  const [row] = await query(`select count(*)::int as n from partner_transactions where kind = 'credit_note'`);
  return row.n;
}

function readInApp(databaseUrl, config) {
  const out = execFileSync(
    process.execPath,
    ["--import", "tsx", path.join(root, "bench/lib/revenue-share-transactions-page.ts"), JSON.stringify(config)],
    {
      cwd: root,
      env: { ...process.env, NODE_ENV: "development", LOG_LEVEL: "warn", DATABASE_URL: databaseUrl },
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
      maxBuffer: 16 * 1024 * 1024,
    },
  );
  return JSON.parse(out.trim().split("\n").at(-1));
}

export async function benchPartnersTransactionsPage({
  partners = 2000,
  clientsPerPartner = 200,
  iterations = 200,
  keep = false,
  log = console.log,
} = {}) {
  return withPrivateCluster({ root, password: "Bench#2026", keep, log }, async ({ databaseUrl, query }) => {
    const report = { machine: { cpus: os.cpus().length, loadBefore: os.loadavg().map((n) => Math.round(n * 100) / 100) } };
    const started = performance.now();
    report.data = await generatePartnerData(query, { partners, clientsPerPartner });
    report.data.creditNotes = await addCreditNotes(query);
    [report.data.rows] = (await query(`select count(*)::int as n from partner_transactions`)).map((r) => r.n);
    report.generateSeconds = Math.round(performance.now() - started) / 1000;
    log(
      `  ${report.data.rows} transactions (${report.data.creditNotes} credit notes) of ${report.data.partners} partners in ${report.generateSeconds} s`,
    );
    report.indexes = (await query(`select indexdef from pg_indexes where tablename = 'partner_transactions' order by indexname`)).map(
      (r) => r.indexdef,
    );
    Object.assign(report, readInApp(databaseUrl, { iterations }));
    report.machine.loadAfter = os.loadavg().map((n) => Math.round(n * 100) / 100);
    return report;
  });
}

export function formatPartnersTransactionsPage(r) {
  if (r.skipped) return `Partner transactions page: skipped (${r.skipped})`;
  const int = (n) => Number(n).toLocaleString("en-US");
  const lines = [
    `The Transactions tab's first page (PostgreSQL, private cluster): ${int(r.data.partners)} partners, ${int(r.data.clients)} clients, ${int(r.data.rows)} transactions (${int(r.data.creditNotes)} credit notes), ${r.cases[0].iterations} reads a row`,
    `  machine: ${r.machine.cpus} CPUs, load ${r.machine.loadBefore.join(" / ")} before, ${r.machine.loadAfter.join(" / ")} after`,
    `  | read | p50 | p99 | plan | rows read from partner_transactions | sorts |`,
    `  | --- | ---: | ---: | --- | ---: | ---: |`,
  ];
  for (const c of r.cases)
    lines.push(
      `  | ${c.name} | ${c.p50.toFixed(2)} ms | ${c.p99.toFixed(2)} ms | ${c.plan ? c.plan.nodes.join(" > ") : "(several statements)"} | ${c.plan ? int(c.plan.transactionRowsRead) : "-"} | ${c.plan ? c.plan.sorts : "-"} |`,
    );
  return lines.join("\n");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      partners: { type: "string", default: "2000" },
      clients: { type: "string", default: "200" },
      iterations: { type: "string", default: "200" },
      keep: { type: "boolean", default: false },
    },
  });
  const report = await benchPartnersTransactionsPage({
    partners: Number(values.partners),
    clientsPerPartner: Number(values.clients),
    iterations: Number(values.iterations),
    keep: values.keep,
  });
  console.log(formatPartnersTransactionsPage(report));
  console.log(JSON.stringify(report));
}
