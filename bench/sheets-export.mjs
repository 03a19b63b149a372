// The Google Sheets export (issue 45, decision 085) at 10,000 contacts, beside a bare baseline in
// the same run:
//
//   node bench/sheets-export.mjs [rows]        (default 10,000)
//
// The work is bench/lib/sheets-export.ts in a process of its own (`node --import tsx`): PGlite in a
// temporary directory, the Google sandbox on a free loopback port. "Export" is the connector's job
// (runSheetsExport: cursor reads, the pending mark, a RAW values:append per 500-row batch, the batch
// record and the cursor in one transaction); "bare" is the same rows appended by the client alone
// (the sandbox's append and the HTTP call, no database). Rows per second, each run once.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const rows = Number(process.argv[2] ?? 10_000);
const run = spawnSync(process.execPath, ["--import", "tsx", path.join(root, "bench/lib/sheets-export.ts"), String(rows)], {
  cwd: root,
  encoding: "utf8",
  env: { ...process.env, LOG_LEVEL: "error" },
  maxBuffer: 16 * 1024 * 1024,
});
if (run.status !== 0) {
  process.stderr.write(run.stderr);
  process.exit(run.status ?? 1);
}
const line = run.stdout.trim().split("\n").at(-1);
const result = JSON.parse(line);
console.log(`| What | Rows | Time (ms) | Rows/s |`);
console.log(`|---|---|---|---|`);
console.log(
  `| Export job (PGlite, ${result.batchRows}-row batches) | ${result.exported} (${result.landed} landed) | ${result.exportMs} | ${result.exportRowsPerSecond} |`,
);
console.log(`| Bare: the client's append alone | ${result.rows} | ${result.bareMs} | ${result.bareRowsPerSecond} |`);
console.log(JSON.stringify(result));
