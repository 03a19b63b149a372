#!/usr/bin/env node
// The partner programme's monthly settlement at scale (issue 46), on a private PostgreSQL cluster:
//
//   node bench/revenue-share-settlement.mjs                       (2,000 partners x 200 clients, 400,000 transactions)
//   node bench/revenue-share-settlement.mjs --partners 200 --keep (smaller; the cluster stays, for EXPLAIN by hand)
//
// 1. Migrations, then the data (generatePartnerData, exported for other benches such as the
//    Transactions tab's first page): partners with their share, 200 client organisations each
//    attributed to one, and one paid transaction per client in October 2026 (Nairobi), a tenth of
//    the partners non-resident.
// 2. The baseline: a bare `update partner_transactions set settlement_id = ...` of every row, the
//    least any settlement can cost; then the column is cleared again and the table vacuumed.
// 3. settleMonth('2026-10-01') itself, in the app's code (bench/lib/revenue-share-settle.ts): one
//    statement marking each transaction and inserting the settlements. The rows it
//    updated are counted from pg_stat_user_tables (n_tup_upd): each transaction touched once is
//    400,000. A second run settles nothing.
// Prints a table and the JSON report; never a pass/fail test.
import { execFileSync } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { withPrivateCluster } from "./lib/scale-run.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const PERIOD = "2026-10-01";
// October 2026 in Nairobi, as instants.
const MONTH_START = "2026-09-30T21:00:00Z";
const MONTH_SECONDS = 31 * 24 * 3600;

/**
 * The programme's data at scale through `query(text, params)`: `partners` partners of
 * `clientsPerPartner` clients each, one paid transaction per client in October 2026, the split at
 * each partner's share (12, 15, 18 or 20%). Set-based, in a few statements.
 */
export async function generatePartnerData(query, { partners = 2000, clientsPerPartner = 200 } = {}) {
  await query(
    `insert into partners (id, organization_id, code, name, category, status, share_bps, payout_method, mpesa_phone, kra_pin, resident, approved_at)
     select md5('partner:' || g)::uuid, md5('partner-org:' || g)::uuid, 'BENCH' || g, 'Bench partner ' || g,
            (array['CRM','E-commerce','Agency','Bank','Government'])[1 + g % 5], 'active', (array[1200,1500,1800,2000])[1 + g % 4],
            case when g % 3 = 0 then 'bank' else 'mpesa' end, case when g % 3 = 0 then null else '2547' || lpad((g % 100000000)::text, 8, '0') end,
            'P05' || lpad(g::text, 7, '0') || 'Q', g % 10 <> 0, '2026-01-01'
     from generate_series(1, $1::int) g`,
    [partners],
  );
  await query(
    `insert into partner_share_changes (partner_id, share_bps, reason, effective_from)
     select id, share_bps, 'Programme terms', '2026-01-01' from partners where code like 'BENCH%'`,
  );
  await query(
    `insert into partner_attributions (partner_id, organization_id, source, started_at)
     select md5('partner:' || p)::uuid, md5('client:' || p || ':' || c)::uuid, 'referral', '2026-02-01'
     from generate_series(1, $1::int) p, generate_series(1, $2::int) c`,
    [partners, clientsPerPartner],
  );
  await query(
    `insert into partner_transactions (partner_id, client_organization_id, invoice_id, kind, amount_cents, share_bps, partner_cents, platform_cents, occurred_at)
     select a.partner_id, a.organization_id, md5('invoice:' || a.id)::uuid, 'topup', x.amount, p.share_bps,
            round(x.amount * p.share_bps / 10000.0)::bigint, x.amount - round(x.amount * p.share_bps / 10000.0)::bigint,
            $1::timestamptz + make_interval(secs => (hashtext(a.id::text) & 2147483647) % $2::int)
     from partner_attributions a join partners p on p.id = a.partner_id
     cross join lateral (select (100000 + (hashtext('amount' || a.id) & 2147483647) % 5000000)::bigint as amount) x
     where p.code like 'BENCH%'`,
    [MONTH_START, MONTH_SECONDS],
  );
  await query(`vacuum analyze partners, partner_share_changes, partner_attributions, partner_transactions`);
  const [row] = await query(`select count(*)::int as n from partner_transactions`);
  return { partners, clients: partners * clientsPerPartner, transactions: row.n };
}

const updatedRows = async (query) =>
  Number((await query(`select n_tup_upd from pg_stat_user_tables where relname = 'partner_transactions'`))[0].n_tup_upd);

/** Waits for the statistics collector to count what the last statement did (PostgreSQL 15 flushes within a second). */
const settleStats = async (query) => {
  await query(`select pg_stat_force_next_flush()`).catch(() => {});
  await new Promise((resolve) => setTimeout(resolve, 1200));
};

function settleInApp(databaseUrl) {
  const out = execFileSync(process.execPath, ["--import", "tsx", path.join(root, "bench/lib/revenue-share-settle.ts"), PERIOD], {
    cwd: root,
    env: { ...process.env, NODE_ENV: "development", LOG_LEVEL: "warn", DATABASE_URL: databaseUrl },
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  return JSON.parse(out);
}

export async function benchPartnersSettlement({ partners = 2000, clientsPerPartner = 200, keep = false, log = console.log } = {}) {
  return withPrivateCluster({ root, password: "Bench#2026", keep, log }, async ({ databaseUrl, query }) => {
    const report = { machine: { cpus: os.cpus().length, load: os.loadavg().map((n) => Math.round(n * 100) / 100) } };
    let started = performance.now();
    report.data = await generatePartnerData(query, { partners, clientsPerPartner });
    report.generateSeconds = Math.round(performance.now() - started) / 1000;
    log(`  ${report.data.transactions} transactions of ${report.data.partners} partners in ${report.generateSeconds} s`);

    // The baseline: every row's settlement_id written by one bare update.
    await settleStats(query);
    let before = await updatedRows(query);
    started = performance.now();
    await query(`update partner_transactions set settlement_id = md5(partner_id::text || ':' || '${PERIOD}')::uuid`);
    report.baseline = { ms: Math.round(performance.now() - started) };
    await settleStats(query);
    report.baseline.rowsUpdated = (await updatedRows(query)) - before;
    await query(`update partner_transactions set settlement_id = null`);
    await query(`vacuum analyze partner_transactions`);
    log(`  baseline: ${report.baseline.ms} ms, ${report.baseline.rowsUpdated} rows`);

    await settleStats(query);
    before = await updatedRows(query);
    report.settle = settleInApp(databaseUrl);
    await settleStats(query);
    report.settle.rowsUpdated = (await updatedRows(query)) - before;
    const [sums] = await query(
      `select count(*)::int as settlements, sum(transactions)::int as transactions,
              (select count(*)::int from partner_transactions where settlement_id is null) as unsettled,
              sum(partner_cents)::text as partner_cents, (select sum(partner_cents)::text from partner_transactions) as ledger_partner_cents
       from partner_settlements`,
    );
    report.settle.check = sums;
    log(`  settleMonth: ${report.settle.ms} ms, ${report.settle.settlements} settlements, ${report.settle.rowsUpdated} rows updated`);
    report.again = settleInApp(databaseUrl);
    log(`  again: ${report.again.ms} ms, ${report.again.settlements} settlements`);
    return report;
  });
}

export function formatPartnersSettlement(r) {
  if (r.skipped) return `Partner settlement: skipped (${r.skipped})`;
  const int = (n) => Number(n).toLocaleString("en-US");
  return [
    `Partner settlement (PostgreSQL, private cluster): ${int(r.data.partners)} partners, ${int(r.data.clients)} clients, ${int(r.data.transactions)} transactions in October 2026`,
    `  machine: ${r.machine.cpus} CPUs, load ${r.machine.load.join(" / ")}`,
    `  | run | time | rows updated | settlements |`,
    `  | bare update of every settlement_id (baseline) | ${(r.baseline.ms / 1000).toFixed(2)} s | ${int(r.baseline.rowsUpdated)} | - |`,
    `  | settleMonth (marks, inserts) | ${(r.settle.ms / 1000).toFixed(2)} s | ${int(r.settle.rowsUpdated)} | ${int(r.settle.settlements)} |`,
    `  | settleMonth again (nothing left) | ${(r.again.ms / 1000).toFixed(2)} s | - | ${int(r.again.settlements)} |`,
    `  check: ${int(r.settle.check.transactions)} transactions settled, ${int(r.settle.check.unsettled)} left; partner cents ${r.settle.check.partner_cents} of ${r.settle.check.ledger_partner_cents}`,
  ].join("\n");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      partners: { type: "string", default: "2000" },
      clients: { type: "string", default: "200" },
      keep: { type: "boolean", default: false },
    },
  });
  const report = await benchPartnersSettlement({
    partners: Number(values.partners),
    clientsPerPartner: Number(values.clients),
    keep: values.keep,
  });
  console.log(formatPartnersSettlement(report));
  console.log(JSON.stringify(report));
}
