// The HubSpot connector's sync (decision 083) against the sandbox's enforced burst limit: 10,000
// contacts, half starting in Jumbe and half in HubSpot, moved the other way in one sync (100 per
// batch create, 200 per search page). Each case runs in a child process (bench/lib/hubspot-sync-run.ts)
// with a fresh in-memory PGlite (or the PostgreSQL of DATABASE_URL, e.g. under scripts/with-postgres.sh):
//
//   node bench/hubspot-sync.mjs [--contacts 10000] [--json]
//
//   - "HubSpot's limit": 100 calls per 10 s per app and portal, HubSpot's own;
//   - "1-second window": the same 10 calls/s in windows of 10 per second (a smaller first burst);
//   - "bare baseline": the limit lifted (1,000,000 per 10 s), so the sync runs as fast as this
//     machine, the sandbox and the database allow: the limit, not the connector, must be what binds.
//
// Reported: the calls HubSpot accepted, the 429s it answered (the pacer should leave none), the
// sandbox's own answer time (the fake's work, in the same process: request in to answer out), the
// achieved calls/s against the limit's rate, and against the fastest any client could make those
// calls under a rolling window (the last call may start only after floor((N-1)/max) windows).
import { spawnSync } from "node:child_process";
import path from "node:path";
import { parseArgs } from "node:util";

const { values: options } = parseArgs({
  options: { contacts: { type: "string", default: "10000" }, json: { type: "boolean", default: false } },
});
const root = path.resolve(import.meta.dirname, "..");
// scripts/with-postgres.sh sets TEST_DATABASE_URL.
const databaseUrl = process.env.DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? "";

const CASES = [
  ["HubSpot's limit (100 / 10 s)", 100, 10_000],
  ["1-second window (10 / 1 s)", 10, 1_000],
  ["bare baseline (limit lifted)", 1_000_000, 10_000],
];

const results = [];
for (const [name, max, windowMs] of CASES) {
  const run = spawnSync(
    process.execPath,
    [
      "--import",
      "tsx",
      path.join(root, "bench/lib/hubspot-sync-run.ts"),
      name,
      String(max),
      String(windowMs),
      options.contacts,
      ...(databaseUrl ? [databaseUrl] : []),
    ],
    { cwd: root, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
  );
  const line = run.stdout
    .trim()
    .split("\n")
    .findLast((l) => l.startsWith("{"));
  if (run.status !== 0 || !line) throw new Error(`${name} failed: ${run.stderr.slice(-2000)}`);
  results.push(JSON.parse(line));
}

if (options.json) console.log(JSON.stringify(results, null, 2));
else {
  console.log(`HubSpot sync of ${options.contacts} contacts on ${results[0].database}`);
  console.log(
    "| Case | Calls | 429s | Seconds | Sandbox's own s | Calls/s | Limit calls/s | Of the limit | Of the fastest allowed | Linked |",
  );
  console.log("|---|---|---|---|---|---|---|---|---|---|");
  for (const r of results)
    console.log(
      `| ${r.case} | ${r.calls} | ${r.refused429} | ${r.seconds} | ${r.sandboxSeconds} | ${r.callsPerSecond} | ${r.case.startsWith("bare") ? "—" : r.limit.perSecond} | ${r.case.startsWith("bare") ? "—" : `${r.ofLimit}%`} | ${r.case.startsWith("bare") || r.ofFastestAllowed === null ? "—" : `${r.ofFastestAllowed}%`} | ${r.linked} |`,
    );
}
