#!/usr/bin/env node
// What the partner ledger's trigger (issue 72, decision 102) costs a payment, on a private PostgreSQL
// cluster:
//
//   node bench/revenue-share-ledger-trigger.mjs                  (200 partners x 100 clients; 3,000 payments a run)
//   node bench/revenue-share-ledger-trigger.mjs --payments 10000 --keep
//
// 1. Migrations, then the programme's data (generatePartnerData: partners, shares, 20,000 referred
//    clients) and pending tax invoices: one per referred client, as many again for organisations
//    nobody referred (most tenants).
// 2. Each run pays `payments` invoices one statement each, as a payment's transaction does
//    (`update invoices set status = 'paid', paid_at = now() where id = $1`):
//    - the baseline: the trigger disabled (what a payment cost before the ledger was written with it);
//    - the trigger on, organisations nobody referred (it finds no attribution);
//    - the trigger on, referred organisations (it writes the transaction);
//    then one credit note each for a referred tax invoice (the reversal, under its invoice's lock).
// 3. Then one statement paying `payments` invoices at once, with the trigger off and on.
// Prints a table and the JSON report; never a pass/fail test.
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { withPrivateCluster } from "./lib/scale-run.mjs";
import { generatePartnerData } from "./revenue-share-settlement.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** Pending tax invoices of `orgSql`'s organisations (one each), numbered under `prefix`. */
async function pendingInvoices(query, prefix, orgSql) {
  await query(
    `insert into invoices (organization_id, number, series, kind, status, description, net_cents, vat_cents, total_cents,
                           prices_include_vat, seller, buyer, lines, issued_at)
     select o.id, '${prefix}-' || row_number() over (), 'INV', 'subscription', 'pending', 'Growth plan (postpaid)', 500000, 80000, 580000,
            false, '{}', '{}', '[]', '2026-11-01T06:00:00Z'
     from (${orgSql}) o`,
  );
}

async function payEach(query, ids) {
  const times = [];
  for (const id of ids) {
    const started = performance.now();
    await query(`update invoices set status = 'paid', paid_at = now() where id = $1`, [id]);
    times.push(performance.now() - started);
  }
  return summary(times);
}

function summary(times) {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  const round = (n) => Math.round(n * 1000) / 1000;
  return { n: times.length, medianMs: round(at(0.5)), p95Ms: round(at(0.95)), totalMs: Math.round(times.reduce((a, b) => a + b, 0)) };
}

const ids = async (query, prefix, limit, offset = 0) =>
  (await query(`select id from invoices where number like $1 order by number limit $2 offset $3`, [`${prefix}-%`, limit, offset])).map(
    (r) => r.id,
  );

export async function benchPartnersLedgerTrigger({
  partners = 200,
  clientsPerPartner = 100,
  payments = 3000,
  keep = false,
  log = console.log,
} = {}) {
  return withPrivateCluster({ root, password: "Bench#2026", keep, log }, async ({ query }) => {
    const report = { machine: { cpus: os.cpus().length, load: os.loadavg().map((n) => Math.round(n * 100) / 100) } };
    report.data = await generatePartnerData(query, { partners, clientsPerPartner });
    await pendingInvoices(query, "REF", `select organization_id as id from partner_attributions`);
    await pendingInvoices(query, "OWN", `select md5('own:' || g)::uuid as id from generate_series(1, ${partners * clientsPerPartner}) g`);
    await query(`vacuum analyze invoices, partner_attributions, partner_transactions`);
    const need = Math.min(payments, Math.floor((partners * clientsPerPartner) / 3));
    log(`  ${report.data.clients} referred clients; ${need} payments a run`);

    await query(`alter table invoices disable trigger partner_ledger_on_invoice`);
    report.baseline = await payEach(query, await ids(query, "OWN", need, 0));
    await query(`alter table invoices enable trigger partner_ledger_on_invoice`);
    log(`  trigger off (baseline): median ${report.baseline.medianMs} ms`);
    report.unreferred = await payEach(query, await ids(query, "OWN", need, need));
    log(`  trigger on, nobody's client: median ${report.unreferred.medianMs} ms`);
    const referred = await ids(query, "REF", need, 0);
    const before = Number((await query(`select count(*)::int as n from partner_transactions`))[0].n);
    report.referred = await payEach(query, referred);
    report.referred.recorded = Number((await query(`select count(*)::int as n from partner_transactions`))[0].n) - before;
    log(`  trigger on, a partner's client: median ${report.referred.medianMs} ms, ${report.referred.recorded} transactions`);

    // A credit note each (insert with its invoice named), as disputes.ts issues it, one statement each.
    const times = [];
    for (const [n, id] of referred.entries()) {
      const started = performance.now();
      await query(
        `insert into invoices (organization_id, number, series, kind, status, paid_at, description, net_cents, vat_cents, total_cents,
                               prices_include_vat, seller, buyer, lines, credits_invoice_id)
         select organization_id, 'CRN-B-' || $2::text, 'CRN', 'credit_note', 'paid', now(), 'Credit', 100000, 16000, 116000, true, '{}', '{}', '[]', id
         from invoices where id = $1`,
        [id, n],
      );
      times.push(performance.now() - started);
    }
    report.creditNotes = summary(times);
    report.creditNotes.reversals = Number(
      (await query(`select count(*)::int as n from partner_transactions where kind = 'credit_note'`))[0].n,
    );
    log(`  a credit note each: median ${report.creditNotes.medianMs} ms, ${report.creditNotes.reversals} reversals`);

    // One statement paying many (a migration's backfill, an administrator's batch): off, then on.
    const batch = async (prefix, offset) => {
      const list = await ids(query, prefix, need, offset);
      const started = performance.now();
      await query(`update invoices set status = 'paid', paid_at = now() where id = any($1::uuid[])`, [list]);
      return Math.round(performance.now() - started);
    };
    await query(`alter table invoices disable trigger partner_ledger_on_invoice`);
    report.batchOffMs = await batch("REF", need);
    await query(`alter table invoices enable trigger partner_ledger_on_invoice`);
    report.batchOnMs = await batch("REF", 2 * need);
    log(`  one statement paying ${need}: ${report.batchOffMs} ms off, ${report.batchOnMs} ms on`);
    return report;
  });
}

export function formatPartnersLedgerTrigger(r) {
  if (r.skipped) return `Partner ledger trigger: skipped (${r.skipped})`;
  const int = (n) => Number(n).toLocaleString("en-US");
  const row = (label, s) => `  | ${label} | ${s.medianMs} ms | ${s.p95Ms} ms | ${int(s.n)} |`;
  return [
    `Partner ledger trigger (PostgreSQL, private cluster): ${int(r.data.partners)} partners, ${int(r.data.clients)} referred clients`,
    `  machine: ${r.machine.cpus} CPUs, load ${r.machine.load.join(" / ")}`,
    `  | one payment (update invoices ... paid) | median | p95 | payments |`,
    row("trigger off (baseline)", r.baseline),
    row("trigger on, nobody's client", r.unreferred),
    row(`trigger on, a partner's client (${int(r.referred.recorded)} transactions written)`, r.referred),
    row(`a credit note of a counted invoice (${int(r.creditNotes.reversals)} reversals written)`, r.creditNotes),
    `  one statement paying ${int(r.baseline.n)}: ${int(r.batchOffMs)} ms with the trigger off, ${int(r.batchOnMs)} ms on`,
  ].join("\n");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      partners: { type: "string", default: "200" },
      clients: { type: "string", default: "100" },
      payments: { type: "string", default: "3000" },
      keep: { type: "boolean", default: false },
    },
  });
  const report = await benchPartnersLedgerTrigger({
    partners: Number(values.partners),
    clientsPerPartner: Number(values.clients),
    payments: Number(values.payments),
    keep: values.keep,
  });
  console.log(formatPartnersLedgerTrigger(report));
  console.log(JSON.stringify(report));
}
