// The activity log at scale (PostgreSQL only): a tenant with a million records against one with ten.
//
//   - 1,000,000 records for the demo individual's organisation, inserted by this process in one
//     INSERT ... SELECT FROM generate_series (spread over the 90days range, oldest first as a real
//     log grows; a mix of types and statuses; Swahili names with ũ, emoji, commas and quotes in the
//     text), through the AFTER INSERT statement trigger that keeps activity_hourly_counts; then
//     ANALYZE activity_logs. 10 records for the demo admin's organisation ("Jumbe Platform").
//   - First page: GET /api/activity-logs?range=90days and GET /activity?range=90days for both
//     tenants, sequential latency after a warm-up, then autocannon; a filtered first page
//     (type=security&status=error) and a deep page (20 nextCursor hops).
//   - Export: GET /api/activity-logs/export for ~100,000 and ~1,000,000 rows, read as a stream (bytes
//     and CRLF lines counted as they arrive), rows checked against SQL, the server's VmRSS sampled
//     every 100 ms from /proc.
//   - EXPLAIN (ANALYZE, BUFFERS) of the queries the server runs (app/.server/domains/activity/log-queries.ts
//     and the app shell's notifications), plus, for comparison only, the first page ordered
//     DESC NULLS LAST as the indexes are built.
//   - Afterwards the inserted records are deleted again (by id range), so a persistent database is
//     left as it was, apart from the app's own sign-in and export records.
import http from "node:http";
import { performance } from "node:perf_hooks";
import autocannon from "autocannon";
import { request } from "./lib/http.mjs";
import { rssKiB } from "./lib/proc.mjs";

const DAY_MS = 24 * 60 * 60 * 1000;
const NAIROBI_OFFSET_MS = 3 * 60 * 60 * 1000;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

// ---------------------------------------------------------------------------------------------
// Dates, the way app/.server/domains/activity/filters.ts reads them (Africa/Nairobi, UTC+3, no DST)

const nairobiDate = (at) => new Date(at.getTime() + NAIROBI_OFFSET_MS).toISOString().slice(0, 10);
const nairobiMidnight = (ymd) => new Date(Date.parse(`${ymd}T00:00:00.000+03:00`));

/** The 90days period as the server computes it at `now`: [Nairobi midnight 89 days ago, now + 1 s). */
function ninetyDays(now = new Date()) {
  return { start: new Date(nairobiMidnight(nairobiDate(now)).getTime() - 89 * DAY_MS), end: new Date(now.getTime() + 1000) };
}

// ---------------------------------------------------------------------------------------------
// Generated records

// Shares of the million (percent; each list sums to 100).
const TYPE_MIX = [
  ["message", 34],
  ["login", 20],
  ["auth", 10],
  ["template", 8],
  ["settings", 7],
  ["security", 6],
  ["billing", 5],
  ["profile", 5],
  ["system", 5],
];
const STATUS_MIX = [
  ["success", 85],
  ["warning", 10],
  ["error", 5],
];

// A few actions per type; %1$s is a person, %2$s a number, in the details.
const ACTIONS = {
  message: [
    ["Messages sent", "%2$s repayment reminders sent to members 📩"],
    ["Message delivered", "Delivered to %1$s (+2547%2$s)"],
    ["Message failed", "Could not deliver to %1$s: the number is not on WhatsApp"],
    ["Broadcast sent", 'Broadcast "Gawio la mwaka" sent to %2$s contacts 🎉'],
  ],
  login: [
    ["Signed in", "%1$s signed in from Nairobi"],
    ["Signed in from a new device", "%1$s, Chrome on Android, Mombasa"],
    ["Sign-in failed", "Wrong password for %1$s (attempt %2$s)"],
  ],
  auth: [
    ["Verification code sent", "Code sent to %1$s"],
    ["Password reset requested", "Reset link for %1$s, valid 30 minutes"],
    ["Signed out", "%1$s signed out"],
  ],
  template: [
    ["Template submitted", "loan_repayment_reminder v%2$s submitted for review"],
    ["Template approved", "dividend_announcement_sw approved ✅"],
    ["Template rejected", 'otp_verification rejected: "variable format", resubmit'],
  ],
  settings: [
    ["Business profile updated", "Display name, description and hours changed by %1$s"],
    ["Webhook URL changed", "https://hooks.nyota.example/%2$s"],
  ],
  security: [
    ["API key regenerated", "The previous key stopped working at once (%1$s)"],
    ["Activity log exported", "90 days, %2$s records"],
    ["Suspicious sign-in blocked", "%2$s failed attempts for %1$s from 102.68.%2$s.7"],
  ],
  billing: [
    ["Invoice paid", "KES %2$s,000 by M-Pesa, ref QF%2$sX"],
    ["Payment failed", "Card declined for invoice INV-%2$s"],
  ],
  profile: [
    ["Profile updated", "%1$s changed the phone number"],
    ["Avatar changed", "New photo for %1$s 📷"],
  ],
  system: [
    ["Daily summary", "%2$s messages, 0 failures"],
    ["WhatsApp number connected", "+254 700 %2$s, quality GREEN"],
  ],
};
const PEOPLE = [
  "Wanjikũ Kamau",
  "Otieno Achieng",
  "Njeri Mwangi",
  "Kipchoge Rotich",
  "Amina Hassan",
  "Mũthoni Kariũki",
  "Baraka Odhiambo",
  "Zawadi Chebet",
  "Émile Nduwayo",
  "Fatuma Ali 🌍",
];
const USER_AGENTS = [
  "Mozilla/5.0 (Linux; Android 14; SM-A546E) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Mobile Safari/537.36",
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36",
  "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
  "Jumbe/1.0 (+jobs)",
];

/** A CASE picking a value by cumulative percentage of the uniform number `r`. */
function weighted(r, mix, literal) {
  let total = 0;
  const arms = mix.slice(0, -1).map(([value, share]) => `when ${r} < ${(total += share) / 100} then ${literal(value)}`);
  return `case ${arms.join(" ")} else ${literal(mix.at(-1)[0])} end`;
}

/**
 * INSERT ... SELECT from generate_series($5): organisation $1, user $2, created_at spread evenly from
 * $3 to $4 (with jitter inside each slot, so oldest first, ids growing with time), random() seeded
 * by the caller. The random numbers come from a subquery, so each is drawn once per row.
 */
function insertSql(literal) {
  const array = (values) => `array[${values.map(literal).join(", ")}]`;
  const pick = (values, r) => `(${array(values)})[1 + floor(${r} * ${values.length})::int]`;
  const actionCase = (part) =>
    `case type ${Object.entries(ACTIONS)
      .map(
        ([type, list]) =>
          `when ${literal(type)} then ${pick(
            list.map((a) => a[part]),
            "r_action",
          )}`,
      )
      .join(" ")} end`;
  return `
insert into activity_logs (organization_id, user_id, type, status, action, details, ip_address, user_agent, created_at)
select $1::uuid, $2::uuid, type, status, ${actionCase(0)},
       format(${actionCase(1)}, ${pick(PEOPLE, "r_person")}, (i % 997 + 3)::text),
       case when r_ip < 0.1 then null else '41.' || (80 + floor(r_ip * 40))::int || '.' || (i % 251) || '.' || (i % 241 + 1) end,
       case when r_ip < 0.1 then null else ${pick(USER_AGENTS, "r_ua")} end,
       $3::timestamptz + (($4::timestamptz - $3::timestamptz) / $5::int) * (i - 1 + r_time)
from (
  select i, ${weighted("r_type", TYPE_MIX, literal)} as type, ${weighted("r_status", STATUS_MIX, literal)} as status,
         r_action, r_person, r_ip, r_ua, r_time
  from (select i, random() as r_type, random() as r_status, random() as r_action, random() as r_person, random() as r_ip, random() as r_ua, random() as r_time
        from generate_series(1, $5::int) as g(i)) as draws
) as rows`;
}

// ---------------------------------------------------------------------------------------------
// Measuring

function percentile(sorted, p) {
  if (!sorted.length) return null;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/**
 * `count` sequential GETs after `warmUp` unreported ones; every answer must be `expected`. A slow
 * case stops after `maxSeconds` (at least 10 measured requests), so the whole run stays short.
 */
async function sequential(url, cookie, { count = 50, warmUp = 5, expected = 200, maxSeconds = 12 } = {}) {
  const headers = { Cookie: cookie };
  const times = [];
  let bytes = 0;
  let body = null;
  const deadline = performance.now() + maxSeconds * 1000;
  for (let i = 0; i < warmUp + count; i++) {
    if (times.length >= 10 && performance.now() > deadline) break;
    const started = performance.now();
    const response = await request(url, { headers });
    const ms = performance.now() - started;
    if (response.status !== expected)
      throw new Error(
        `GET ${new URL(url).pathname}${new URL(url).search} answered ${response.status}: ${response.body.toString("utf8").slice(0, 200)}`,
      );
    if (i >= warmUp) times.push(ms);
    bytes = response.body.length;
    body = response.body;
  }
  times.sort((a, b) => a - b);
  return { requests: times.length, p50Ms: percentile(times, 50), p95Ms: percentile(times, 95), maxMs: times.at(-1), bytes, body };
}

async function load(url, cookie, { duration, connections }) {
  const result = await autocannon({ url, headers: { Cookie: cookie }, connections, duration, pipelining: 1, timeout: 30 });
  const statuses = Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, stats]) => [code, stats.count]));
  return {
    connections,
    durationSeconds: result.duration,
    requests: result.requests.total,
    requestsPerSecond: result.requests.average,
    latencyMs: { p50: result.latency.p50, p90: result.latency.p90, p99: result.latency.p99, max: result.latency.max },
    statuses,
    errors: result.errors,
    timeouts: result.timeouts,
  };
}

/**
 * One export, read as a stream: bytes and CRLF-terminated lines are counted per chunk (a CR at the
 * end of one chunk and LF at the start of the next count once); only the first 64 kB are kept, to
 * check the BOM, header and non-ASCII text. The server's VmRSS is sampled every 100 ms.
 */
function streamExport(url, cookie, pid, { timeoutSeconds = 240 } = {}) {
  return new Promise((resolve, reject) => {
    const baseline = rssKiB(pid);
    const samples = [];
    // [ms since the request, CRLF lines so far, VmRSS KiB]: the shape of the memory over the export.
    const timeline = [];
    const timer = setInterval(() => {
      try {
        const kib = rssKiB(pid);
        samples.push(kib);
        timeline.push([Math.round(performance.now() - started), lines, kib]);
      } catch {
        // the process is gone; the request fails too
      }
    }, 100);
    const started = performance.now();
    let firstByteMs = null;
    let bytes = 0;
    let lines = 0;
    let lastWasCr = false;
    const head = [];
    let headBytes = 0;
    let timedOut = false;
    let finished = false;
    const done = (error, value) => {
      if (finished) return;
      finished = true;
      clearInterval(timer);
      clearTimeout(limit);
      if (error) reject(error);
      else resolve(value);
    };
    let finish = null;
    // Past the limit the download is abandoned and the figures so far are reported as such.
    const limit = setTimeout(() => {
      timedOut = true;
      if (finish) finish();
      outgoing.destroy();
      if (!finish) done(new Error(`export sent no headers within ${timeoutSeconds} s: ${url}`));
    }, timeoutSeconds * 1000);
    const outgoing = http.get(url, { headers: { Cookie: cookie, Accept: "text/csv" }, agent: false }, (response) => {
      response.on("data", (chunk) => {
        firstByteMs ??= performance.now() - started;
        bytes += chunk.length;
        if (lastWasCr && chunk[0] === 0x0a) lines++;
        for (let at = chunk.indexOf(0x0a); at !== -1; at = chunk.indexOf(0x0a, at + 1)) if (at > 0 && chunk[at - 1] === 0x0d) lines++;
        lastWasCr = chunk[chunk.length - 1] === 0x0d;
        if (headBytes < 65_536) {
          head.push(chunk);
          headBytes += chunk.length;
        }
      });
      finish = () => {
        const totalMs = performance.now() - started;
        try {
          samples.push(rssKiB(pid));
        } catch {
          // ignore
        }
        const start = Buffer.concat(head);
        const text = start.toString("utf8");
        const peak = Math.max(baseline, ...samples.filter((s) => s !== null));
        done(null, {
          status: response.statusCode,
          contentType: response.headers["content-type"] ?? null,
          contentDisposition: response.headers["content-disposition"] ?? null,
          bom: start[0] === 0xef && start[1] === 0xbb && start[2] === 0xbf,
          header: text.replace(/^\uFEFF/, "").split("\r\n")[0],
          nonAscii: { Wanjikũ: text.includes("Wanjikũ"), emoji: /\p{Extended_Pictographic}/u.test(text) },
          totalMs,
          firstByteMs,
          bytes,
          lines,
          rows: Math.max(0, lines - 1),
          rss: { baselineKiB: baseline, peakKiB: peak, deltaKiB: peak - baseline, samples: samples.length, timeline },
          complete: !timedOut,
          timeoutSeconds,
        });
      };
      response.on("end", finish);
      response.on("error", (error) => (timedOut ? null : done(error)));
    });
    outgoing.on("error", (error) => (timedOut ? null : done(error)));
  });
}

// ---------------------------------------------------------------------------------------------
// The plans of the queries the server runs

const COLUMNS = `id, type, status, action, details, ip_address, user_agent, to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as at`;

function listQuery({ organizationId, start, end, type, status, after, limit, order = "created_at desc nulls last, id desc nulls last" }) {
  const params = [start.toISOString(), end.toISOString(), organizationId];
  const where = ["created_at >= $1::timestamptz", "created_at < $2::timestamptz", "organization_id = $3"];
  if (type) where.push(`type = $${params.push(type)}`);
  if (status) where.push(`status = $${params.push(status)}`);
  if (after) where.push(`(created_at, id) < ($${params.push(after.at)}::timestamptz, $${params.push(after.id)})`);
  return { text: `select ${COLUMNS} from activity_logs where ${where.join(" and ")} order by ${order} limit ${limit}`, params };
}

async function explain(client, { text, params }) {
  const rows = (await client.query(`explain (analyze, buffers, format text) ${text}`, params)).rows;
  const plan = rows.map((r) => r["QUERY PLAN"]);
  const ms = Number(plan.find((l) => l.startsWith("Execution Time"))?.match(/([\d.]+) ms/)?.[1]);
  const indexes = [...new Set(plan.flatMap((l) => [...l.matchAll(/using (\w+)/gi)].map((m) => m[1])))];
  const nodes = plan
    .filter((l) => /->|^\S/.test(l) && !/^(Planning|Execution)/.test(l))
    .map((l) =>
      l
        .trim()
        .replace(/^->\s*/, "")
        .replace(/\s+\(cost=.*$/, ""),
    );
  return { executionMs: ms, indexes, shape: nodes.join(" > "), plan };
}

// ---------------------------------------------------------------------------------------------
// The benchmark

/**
 * Everything above on a running server. `cookies` = { individual, admin } (signed in by the
 * caller); `serverPid` for /proc; `databaseUrl` for the bench's own pg client.
 */
export async function benchActivity({
  baseUrl,
  databaseUrl,
  cookies,
  serverPid,
  records = 1_000_000,
  smallRecords = 10,
  duration = 5,
  connections = 10,
  samples = 50,
  exportTimeoutSeconds = 240,
  log = console.log,
}) {
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const one = async (text, params) => (await client.query(text, params)).rows[0];
  const report = { records, smallRecords, connections, durationSeconds: duration };
  let inserted = null;
  try {
    const big = await one(`select organization_id, id from users where email = 'demo@jumbe.demo'`);
    const small = await one(`select organization_id, id from users where email = 'admin@jumbe.demo'`);
    if (!big || !small) throw new Error("the demo accounts are missing (the server seeds them with SANDBOX=1)");
    if (big.organization_id === small.organization_id) throw new Error("the demo individual and admin share an organisation");
    report.tenants = {
      large: { organizationId: big.organization_id, account: "demo@jumbe.demo" },
      small: { organizationId: small.organization_id, account: "admin@jumbe.demo" },
    };

    // 1. The records.
    const maxBefore = Number((await one(`select coalesce(max(id), 0) as id from activity_logs`)).id);
    const period = ninetyDays();
    // Records from a minute after the period's start to a minute ago: all inside range=90days.
    const from = new Date(period.start.getTime() + 60_000);
    const to = new Date(Date.now() - 60_000);
    const sql = insertSql((value) => client.escapeLiteral(value));
    log(`  inserting ${records.toLocaleString("en-US")} records for the demo tenant (one INSERT ... SELECT FROM generate_series) ...`);
    await client.query(`select setseed(0.2026)`);
    let started = performance.now();
    const result = await client.query(sql, [big.organization_id, big.id, from.toISOString(), to.toISOString(), records]);
    const insertMs = performance.now() - started;
    // Nothing else writes while these statements run: the ids from maxBefore to maxInserted are exactly these records.
    const maxInserted = async () => Number((await one(`select max(id) as id from activity_logs`)).id);
    inserted = { maxBefore, maxInserted: await maxInserted(), large: big.organization_id, small: small.organization_id };
    await client.query(`select setseed(0.7)`);
    const smallResult = await client.query(sql, [small.organization_id, small.id, from.toISOString(), to.toISOString(), smallRecords]);
    inserted.maxInserted = await maxInserted();
    started = performance.now();
    await client.query(`analyze activity_logs`);
    const analyzeMs = performance.now() - started;
    const tableBytes = Number((await one(`select pg_total_relation_size('activity_logs') as n`)).n);
    const heapBytes = Number((await one(`select pg_relation_size('activity_logs') as n`)).n);
    const hourly = Number(
      (await one(`select count(*) as n from activity_hourly_counts where organization_id = $1`, [big.organization_id])).n,
    );
    const mix = (
      await client.query(
        `select type, status, count(*)::int as n from activity_logs where organization_id = $1 and id > $2 group by 1, 2`,
        [big.organization_id, maxBefore],
      )
    ).rows;
    report.insert = {
      rows: result.rowCount,
      smallRows: smallResult.rowCount,
      ms: insertMs,
      rowsPerSecond: result.rowCount / (insertMs / 1000),
      analyzeMs,
      spread: { from: from.toISOString(), to: to.toISOString() },
      tableBytesWithIndexes: tableBytes,
      heapBytes,
      hourlyCountRows: hourly,
      securityErrors: mix.filter((m) => m.type === "security" && m.status === "error").reduce((a, m) => a + m.n, 0),
      byStatus: Object.fromEntries(
        ["success", "warning", "error"].map((s) => [s, mix.filter((m) => m.status === s).reduce((a, m) => a + m.n, 0)]),
      ),
    };
    log(`  inserted in ${(insertMs / 1000).toFixed(1)} s; ANALYZE activity_logs took ${(analyzeMs / 1000).toFixed(1)} s`);

    const inRange = async (organizationId, start, end) =>
      Number(
        (
          await one(`select count(*) as n from activity_logs where organization_id = $1 and created_at >= $2 and created_at < $3`, [
            organizationId,
            start.toISOString(),
            end.toISOString(),
          ])
        ).n,
      );
    report.tenants.large.recordsIn90days = await inRange(big.organization_id, period.start, new Date(Date.now() + 1000));
    report.tenants.small.recordsIn90days = await inRange(small.organization_id, period.start, new Date(Date.now() + 1000));

    // 2. First pages.
    log(`  first pages (up to ${samples} sequential requests each after 5 warm-up, then ${duration} s at ${connections} connections) ...`);
    const cases = [
      { name: "API 90days", tenant: "large", path: "/api/activity-logs?range=90days" },
      { name: "API 90days", tenant: "small", path: "/api/activity-logs?range=90days" },
      { name: "API security+error", tenant: "large", path: "/api/activity-logs?type=security&status=error&range=90days" },
      { name: "HTML /activity", tenant: "large", path: "/activity?range=90days" },
      { name: "HTML /activity", tenant: "small", path: "/activity?range=90days" },
    ];
    report.firstPage = [];
    for (const c of cases) {
      const cookie = c.tenant === "large" ? cookies.individual : cookies.admin;
      const seq = await sequential(`${baseUrl}${c.path}`, cookie, { count: samples });
      let check = null;
      if (c.path.startsWith("/api/")) {
        const json = JSON.parse(seq.body.toString("utf8"));
        check = { logs: json.logs.length, total: json.stats.total, nextCursor: !!json.nextCursor };
      } else {
        const html = seq.body.toString("utf8");
        check = { htmlRecords: (html.match(/data-testid="activity-item"/g) ?? []).length || null };
      }
      delete seq.body;
      const throughput = await load(`${baseUrl}${c.path}`, cookie, { duration, connections });
      report.firstPage.push({ ...c, sequential: seq, check, throughput });
    }

    // 3. The deep page: 20 hops along nextCursor, then the 20th hop again `samples` times.
    log("  deep page (20 nextCursor hops) ...");
    const walk = [];
    let cursor = null;
    let deepUrl = null;
    for (let hop = 0; hop <= 20; hop++) {
      const url = `${baseUrl}/api/activity-logs?range=90days${cursor ? `&cursor=${cursor}` : ""}`;
      const t = performance.now();
      const response = await request(url, { headers: { Cookie: cookies.individual } });
      const ms = performance.now() - t;
      if (response.status !== 200) throw new Error(`deep paging answered ${response.status} at hop ${hop}`);
      const json = JSON.parse(response.body.toString("utf8"));
      walk.push({ hop, ms, logs: json.logs.length, firstId: json.logs[0]?.id ?? null });
      deepUrl = url;
      cursor = json.nextCursor;
      if (!cursor) break;
    }
    const deepRepeat = await sequential(deepUrl, cookies.individual, { count: Math.min(samples, 20), warmUp: 0 });
    delete deepRepeat.body;
    report.deepPage = {
      hops: walk.length - 1,
      hop20Ms: walk.at(-1).ms,
      recordsBefore: (walk.length - 1) * 50,
      walkMs: walk.map((w) => w.ms),
      repeat: deepRepeat,
    };

    // 4. Exports: ~100,000 rows (9 whole Nairobi days, ending 10 days ago), then the whole 90 days.
    const today = nairobiDate(new Date());
    const dayOffset = (days) => nairobiDate(new Date(nairobiMidnight(today).getTime() + days * DAY_MS + 12 * 60 * 60 * 1000));
    const smallRange = { startDate: dayOffset(-18), endDate: dayOffset(-10) };
    const exports = [
      {
        name: "9 days",
        query: `startDate=${smallRange.startDate}&endDate=${smallRange.endDate}`,
        start: nairobiMidnight(smallRange.startDate),
        end: new Date(nairobiMidnight(smallRange.endDate).getTime() + DAY_MS),
      },
      { name: "90days", query: "range=90days" },
    ];
    report.export = [];
    for (const e of exports) {
      // The server writes an "Activity log exported" record after it has read the first chunk, and
      // newer than anything the stream sends: the expected rows are those in range just before.
      const start = e.start ?? ninetyDays().start;
      const end = e.end ?? new Date(Date.now() + 1000);
      const expected = await inRange(big.organization_id, start, end);
      log(`  export ${e.name} (${expected.toLocaleString("en-US")} records in range) ...`);
      await sleep(1000); // let the server settle; the baseline is read right before the request
      const run = await streamExport(`${baseUrl}/api/activity-logs/export?${e.query}`, cookies.individual, serverPid, {
        timeoutSeconds: exportTimeoutSeconds,
      });
      if (!run.complete) log(`    stopped after ${exportTimeoutSeconds} s with ${run.rows.toLocaleString("en-US")} rows received`);
      report.export.push({
        ...e,
        start: start.toISOString(),
        end: end.toISOString(),
        expectedRows: expected,
        matches: run.rows === expected,
        rowsPerSecond: run.rows / (run.totalMs / 1000),
        ...run,
      });
    }

    // 5. Plans of the server's queries for the large tenant.
    log("  EXPLAIN ANALYZE of the server's queries ...");
    const p = ninetyDays();
    const deepCursor = decodeCursorText(new URL(deepUrl).searchParams.get("cursor"));
    const plans = {};
    plans.firstPage = await explain(client, listQuery({ organizationId: big.organization_id, ...p, limit: 51 }));
    plans.filtered = await explain(
      client,
      listQuery({ organizationId: big.organization_id, ...p, type: "security", status: "error", limit: 51 }),
    );
    if (deepCursor)
      plans.deepPage = await explain(client, listQuery({ organizationId: big.organization_id, ...p, after: deepCursor, limit: 51 }));
    plans.exportChunk = await explain(client, listQuery({ organizationId: big.organization_id, ...p, limit: 2000 }));
    // Halfway through the export: the keyset position after half the tenant's records.
    const middle = await one(
      `select to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as at, id from activity_logs where organization_id = $1 order by created_at desc, id desc offset $2 limit 1`,
      [big.organization_id, Math.floor(records / 2)],
    );
    if (middle)
      plans.exportChunkMiddle = await explain(
        client,
        listQuery({ organizationId: big.organization_id, ...p, after: { at: middle.at, id: Number(middle.id) }, limit: 2000 }),
      );
    // The app shell's notifications (app/.server/domains/activity/queries.ts, on every signed-in page): newest 5, no period.
    plans.layoutNotifications = await explain(client, {
      text: `select id, type, status, action, details, ip_address, created_at from activity_logs where organization_id = $1 order by created_at desc nulls last, id desc nulls last limit 5`,
      params: [big.organization_id],
    });
    // Not what the server runs: plain DESC (nulls first) matches no index; kept to show why the server says nulls last.
    plans.firstPagePlainDescForComparison = await explain(
      client,
      listQuery({ organizationId: big.organization_id, ...p, limit: 51, order: "created_at desc, id desc" }),
    );
    plans.statsDaily = await explain(client, {
      text: `select status, sum(count) as n from activity_daily_counts where day >= $1::date and day < $2::date and organization_id = $3 group by status`,
      params: [
        new Date(p.start.getTime() + 3 * 3_600_000).toISOString().slice(0, 10),
        new Date(p.end.getTime() + 3 * 3_600_000).toISOString().slice(0, 10),
        big.organization_id,
      ],
    });
    // The hours of today (Nairobi) before the current hour, as the stat cards read them.
    const hourEnd = new Date(Math.floor(p.end.getTime() / 3_600_000) * 3_600_000);
    const todayStart = new Date(Math.floor((p.end.getTime() + 3 * 3_600_000) / 86_400_000) * 86_400_000 - 3 * 3_600_000);
    plans.statsHourly = await explain(client, {
      text: `select status, sum(count) as n from activity_hourly_counts where hour >= $1::timestamptz and hour < $2::timestamptz and organization_id = $3 group by status`,
      params: [todayStart.toISOString(), hourEnd.toISOString(), big.organization_id],
    });
    plans.statsPartialHour = await explain(client, {
      text: `select status, count(*) as n from activity_logs where created_at >= $1::timestamptz and created_at < $2::timestamptz and organization_id = $3 group by status`,
      params: [hourEnd.toISOString(), p.end.toISOString(), big.organization_id],
    });
    report.plans = plans;
  } finally {
    if (inserted) {
      log("  deleting the inserted records ...");
      const started = performance.now();
      try {
        const removed = await client.query(`delete from activity_logs where id > $1 and id <= $2 and organization_id in ($3, $4)`, [
          inserted.maxBefore,
          inserted.maxInserted,
          inserted.large,
          inserted.small,
        ]);
        report.cleanup = { deleted: removed.rowCount, ms: performance.now() - started };
      } catch (error) {
        report.cleanup = { error: String(error) };
      }
    }
    await client.end();
  }
  return report;
}

// The server's cursor (app/.server/domains/activity/log-queries.ts): base64url of "created_at|id".
function decodeCursorText(cursor) {
  if (!cursor) return null;
  const [at, id] = Buffer.from(cursor, "base64url").toString("utf8").split("|");
  return { at, id: Number(id) };
}

// ---------------------------------------------------------------------------------------------
// Report

const fixed = (value, digits = 1) => (typeof value === "number" && Number.isFinite(value) ? value.toFixed(digits) : "-");
const int = (value) => (typeof value === "number" && Number.isFinite(value) ? Math.round(value).toLocaleString("en-US") : "-");
const short = (n) => (n >= 1e6 ? `${+(n / 1e6).toFixed(1)}M` : n >= 1e3 ? `${+(n / 1e3).toFixed(1)}k` : String(n));
const mb = (kib) => (typeof kib === "number" ? (kib / 1024).toFixed(1) : "-");

export function formatActivity(report, { table }) {
  const lines = [];
  if (report.skipped) return `\nActivity log at scale: skipped (${report.skipped})`;
  if (report.problem) return `\nActivity log at scale: not measured: ${report.problem}`;
  const ins = report.insert;
  const t = report.tenants;
  lines.push(
    `\nActivity log at scale (PostgreSQL): demo tenant with ${int(t.large.recordsIn90days)} records in range=90days, admin tenant with ${int(t.small.recordsIn90days)}`,
  );
  lines.push(
    `  Insert: ${int(ins.rows)} records in one INSERT ... SELECT FROM generate_series (5 indexes, statement trigger into activity_hourly_counts: ${int(ins.hourlyCountRows)} hourly rows for the tenant) ` +
      `in ${fixed(ins.ms / 1000)} s = ${int(ins.rowsPerSecond)} rows/s; table + indexes ${fixed(ins.tableBytesWithIndexes / 2 ** 20, 0)} MiB (heap ${fixed(ins.heapBytes / 2 ** 20, 0)} MiB). ` +
      `Then ANALYZE activity_logs (${fixed(ins.analyzeMs / 1000)} s). Statuses ${int(ins.byStatus.success)} success / ${int(ins.byStatus.warning)} warning / ${int(ins.byStatus.error)} error; ${int(ins.securityErrors)} security errors.`,
  );
  lines.push(
    `\nFirst page (50 records + stat cards): n sequential requests (up to 50) after 5 warm-up (a slow case stops after 12 s, at least 10), then autocannon ${report.connections} connections x ${report.durationSeconds} s`,
  );
  lines.push(
    table(
      ["case", "tenant", "n", "p50 ms", "p95 ms", "max ms", "bytes", "req/s", "ac p50 ms", "ac p99 ms", "statuses", "check"],
      report.firstPage.map((c) => [
        c.name,
        c.tenant === "large" ? short(report.records) : short(report.smallRecords),
        c.sequential.requests,
        fixed(c.sequential.p50Ms),
        fixed(c.sequential.p95Ms),
        fixed(c.sequential.maxMs),
        int(c.sequential.bytes),
        fixed(c.throughput.requestsPerSecond, 0),
        fixed(c.throughput.latencyMs.p50, 0),
        fixed(c.throughput.latencyMs.p99, 0),
        Object.entries(c.throughput.statuses)
          .map(([code, n]) => `${code}:${n}`)
          .join(" ") + (c.throughput.errors ? ` errors:${c.throughput.errors}` : ""),
        c.check?.logs !== undefined
          ? `${c.check.logs} rows, total ${int(c.check.total)}`
          : c.check?.htmlRecords
            ? `${c.check.htmlRecords} rows`
            : "",
      ]),
    ),
  );
  const d = report.deepPage;
  const r = d.repeat;
  lines.push(
    `\nDeep page (${short(report.records)} tenant, range=90days): after ${d.hops} nextCursor hops (${int(d.recordsBefore)} records before it) the page took ${fixed(d.hop20Ms)} ms; ` +
      `the same cursor again ${r.requests}x: p50 ${fixed(r.p50Ms)} ms, p95 ${fixed(r.p95Ms)} ms, max ${fixed(r.maxMs)} ms (first page p50 ${fixed(report.firstPage[0]?.sequential.p50Ms)} ms).`,
  );
  lines.push(`\nExport (${short(report.records)} tenant; body read as a stream; server VmRSS sampled every 100 ms)`);
  lines.push(
    table(
      [
        "range",
        "rows",
        "expected (SQL)",
        "ok",
        "total s",
        "first byte ms",
        "rows/s",
        "MB",
        "RSS before MiB",
        "RSS peak MiB",
        "peak - before MiB",
      ],
      report.export.map((e) => [
        e.name === "9 days" ? `${e.query.replace("&", " ")}` : e.query,
        int(e.rows),
        int(e.expectedRows),
        !e.complete ? `stopped at ${e.timeoutSeconds} s` : e.matches && e.status === 200 ? "yes" : `NO (${e.status})`,
        fixed(e.totalMs / 1000, 2),
        fixed(e.firstByteMs, 0),
        int(e.rowsPerSecond),
        fixed(e.bytes / 1e6),
        mb(e.rss.baselineKiB),
        mb(e.rss.peakKiB),
        mb(e.rss.deltaKiB),
      ]),
    ),
  );
  const last = report.export.at(-1);
  if (last) {
    lines.push(
      `  ${last.contentDisposition ?? "no Content-Disposition"}; ${last.contentType}; BOM ${last.bom ? "yes" : "NO"}; header ${last.header}; ` +
        `"Wanjikũ" ${last.nonAscii["Wanjikũ"] ? "intact" : "NOT FOUND"}, emoji ${last.nonAscii.emoji ? "intact" : "NOT FOUND"} in the first 64 kB.`,
    );
    const [a, b] = report.export;
    if (a && b && a.rows)
      lines.push(`  ${fixed(b.rows / a.rows)}x the rows: peak - before ${mb(a.rss.deltaKiB)} -> ${mb(b.rss.deltaKiB)} MiB.`);
    for (const e of report.export) {
      const tl = e.rss.timeline ?? [];
      if (tl.length < 5) continue;
      // The highest RSS seen up to each share of the rows.
      const marks = [0.1, 0.25, 0.5, 0.75, 1].map((share) => {
        const upTo = tl.filter(([, rows]) => rows <= Math.max(1, e.rows) * share);
        return `${share * 100}%: ${mb(Math.max(e.rss.baselineKiB, ...upTo.map(([, , kib]) => kib)))}`;
      });
      lines.push(`  ${e.name} export, peak VmRSS (MiB) by the time this share of the rows had arrived: ${marks.join(", ")}.`);
    }
  }
  if (report.plans) {
    lines.push(
      `\nEXPLAIN (ANALYZE, BUFFERS) of the server's queries for the ${short(report.records)} tenant (app/.server/domains/activity/log-queries.ts; full plans in latest.json)`,
    );
    lines.push(
      table(
        ["query", "exec ms", "indexes", "plan"],
        Object.entries(report.plans).map(([name, p]) => [
          name,
          fixed(p.executionMs, 2),
          p.indexes.join(",") || "-",
          p.shape.length > 110 ? `${p.shape.slice(0, 107)}...` : p.shape,
        ]),
      ),
    );
  }
  if (report.cleanup)
    lines.push(
      `\nCleanup: ${report.cleanup.error ? `FAILED: ${report.cleanup.error}` : `${int(report.cleanup.deleted)} inserted records deleted in ${fixed(report.cleanup.ms / 1000)} s (delete trigger included)`}.`,
    );
  return lines.join("\n");
}
