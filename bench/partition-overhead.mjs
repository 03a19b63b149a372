// What partitioning `messages` by month costs one keyed statement alone (issue 78, decisions 181 and
// 183), apart from the waits a whole sending run adds: two tables of `messages`' shape on a private
// PostgreSQL 15 cluster (bench/lib/database.mjs), one unpartitioned and one with a default partition
// and four months, each with the same eleven indexes, fillfactor 80 and an AFTER UPDATE statement
// trigger with transition tables (like the analytics trigger), 200,000 rows in one month. pgbench,
// one client, updates 64 consecutive rows by their key `(id, created_at)` (a column no index names:
// HOT, as the dispatcher's holds are), with the simple protocol (planned every time) and prepared (the
// app's named statements, decision 062), the two tables alternated for `--rounds`.
//
//   node bench/partition-overhead.mjs [--seconds 6] [--rounds 3]
import path from "node:path";
import { execFileSync } from "node:child_process";
import { writeFileSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import { parseArgs } from "node:util";
import { postgresBinDir, startPrivatePostgres, withDatabase } from "./lib/database.mjs";

const { values: options } = parseArgs({ options: { seconds: { type: "string", default: "6" }, rounds: { type: "string", default: "3" } } });

const columns = `id uuid not null default gen_random_uuid(), created_at timestamptz not null, organization_id uuid not null,
  contact_id uuid, direction text not null default 'outbound', status text not null default 'queued', body text default '',
  wamid text, phone_number_id text default '1', recipient_phone text, attempts int default 0, accepted_at timestamptz,
  failed_at timestamptz, next_attempt_at timestamptz, locked_until timestamptz, seq bigint generated always as identity,
  campaign_id uuid, charge_state text, price_cents int, payload jsonb, primary key (id, created_at)`;
const indexes = [
  "(organization_id, created_at)",
  "(contact_id, created_at)",
  "(next_attempt_at) where accepted_at is null and failed_at is null",
  "(organization_id, phone_number_id, recipient_phone, seq) where accepted_at is null and failed_at is null",
  "(phone_number_id, recipient_phone, accepted_at)",
  "(campaign_id) where campaign_id is not null",
  "(organization_id, wamid) where wamid is not null",
  "(organization_id, accepted_at)",
  "(organization_id, direction, created_at)",
  "(charge_state) where charge_state = 'held'",
  "(created_at)",
];

const pg = await startPrivatePostgres();
const bench = mkdtempSync(path.join(os.tmpdir(), "jumbe-partition-overhead-"));
try {
  await withDatabase({ databaseUrl: pg.url }, async (query) => {
    await query(`create function stmt_trig() returns trigger language plpgsql as $$
      declare n int; begin select count(*) into n from new_rows nr join old_rows o on o.id = nr.id where nr.status is distinct from o.status; return null; end $$`);
    await query(`create table u (${columns}) with (fillfactor = 80)`);
    await query(`create table p (${columns}) partition by range (created_at)`);
    await query(`create table p_default partition of p default with (fillfactor = 80)`);
    for (const [from, to] of [
      ["2026-12-01", "2027-01-01"],
      ["2027-01-01", "2027-02-01"],
      ["2027-02-01", "2027-03-01"],
      ["2027-03-01", "2027-04-01"],
    ])
      await query(`create table "p_${from.slice(0, 7)}" partition of p for values from ('${from}') to ('${to}') with (fillfactor = 80)`);
    for (const table of ["u", "p"]) {
      for (const index of indexes) await query(`create index on ${table} ${index}`);
      await query(`create trigger ${table}_trig after update on ${table} referencing old table as old_rows new table as new_rows
                   for each statement execute function stmt_trig()`);
      await query(`insert into ${table} (created_at, organization_id, recipient_phone, next_attempt_at)
                   select '2026-12-02'::timestamptz + g * interval '1 ms', '00000000-0000-0000-0000-000000000001', '+2547' || g, now()
                   from generate_series(1, 200000) g`);
      await query(`vacuum analyze ${table}`);
    }
  });
  const url = new URL(pg.url);
  const pgbench = path.join(postgresBinDir(), "pgbench");
  const run = (table, mode) => {
    const script = path.join(bench, `${table}.sql`);
    writeFileSync(
      script,
      `\\set off random(0, 199000)\nupdate ${table} m set locked_until = now(), attempts = m.attempts + 1 from (select id, created_at from ${table}` +
        ` where created_at >= '2026-12-02'::timestamptz + :off * interval '1 ms' order by created_at limit 64) k` +
        ` where m.id = k.id and m.created_at = k.created_at;\n`,
    );
    const out = execFileSync(
      pgbench,
      ["-h", url.hostname, "-p", url.port, "-U", "postgres", "-n", "-M", mode, "-f", script, "-T", options.seconds, "-c", "1", "jumbe"],
      { encoding: "utf8" },
    );
    return Number(/latency average = ([\d.]+) ms/.exec(out)?.[1]);
  };
  const figures = { u: { simple: [], prepared: [] }, p: { simple: [], prepared: [] } };
  for (let round = 0; round < Number(options.rounds); round++)
    for (const table of round % 2 ? ["p", "u"] : ["u", "p"])
      for (const mode of ["simple", "prepared"]) figures[table][mode].push(run(table, mode));
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  console.log("One keyed update of 64 rows (ms a statement, median of the rounds; each round's in brackets):");
  for (const mode of ["simple", "prepared"])
    console.log(
      `  ${mode.padEnd(9)} unpartitioned ${median(figures.u[mode]).toFixed(2)} (${figures.u[mode].join(", ")}), ` +
        `partitioned ${median(figures.p[mode]).toFixed(2)} (${figures.p[mode].join(", ")}): ${(median(figures.p[mode]) / median(figures.u[mode])).toFixed(2)}x`,
    );
} finally {
  rmSync(bench, { recursive: true, force: true });
  pg.destroy();
}
