// POST /webhooks/whatsapp under load: how many signed deliveries per second the production build
// acknowledges (200 only after the row is committed), at what latency, and how fast the job workers
// turn the stored deliveries into tenant data afterwards (the drain).
//
//   - a bare node:http server (bench/lib/bare-server.mjs) with the same payloads and connections
//     shows the floor: Node's HTTP handling plus the load generator on this machine;
//   - the demo individual account connects a sandbox WhatsApp number through Embedded Signup (the
//     no-JavaScript flow, over plain HTTP), so every status payload is routed to a tenant and fully
//     processed (message_statuses rows), not parked as unrouted;
//   - every request carries one status with a unique wamid, signed with the server's META_APP_SECRET;
//     the bodies are signed before each run so the load generator only copies bytes;
//   - GET /api/admin/queue, polled every 200 ms from the start of each run, gives the backlog and
//     the moment it is gone.
import { createHmac, randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import autocannon from "autocannon";
import { startBareServer } from "./lib/bare-server.mjs";
import { request } from "./lib/http.mjs";

export const WEBHOOK_PATH = "/webhooks/whatsapp";
const POLL_MS = 200;
const MIN_POOL = 20_000;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/** A fresh app secret for the server (extraEnv META_APP_SECRET) and for signing the payloads. */
export function newAppSecret() {
  return randomBytes(32).toString("hex");
}

// ---------------------------------------------------------------------------------------------
// Connecting the demo tenant's WhatsApp number (Embedded Signup without JavaScript)

const unescapeHtml = (text) =>
  text
    .replace(/&quot;/g, '"')
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");

const attribute = (tag, name) => {
  const match = tag.match(new RegExp(`\\s${name}="([^"]*)"`));
  return match ? unescapeHtml(match[1]) : undefined;
};

/**
 * Signs nothing and uses no JavaScript: GET /whatsapp, follow the Connect link to the sandbox's
 * dialog, submit it with one of the tenant's earlier test numbers, else a new test business with a
 * fresh number (the dialog offers no one else's, and the demo's own number is connected already),
 * follow the 303 to /embedded-callback with the session cookie. Returns the connected WABA and number.
 */
export async function connectDemoNumber(baseUrl, cookie, { headers = {} } = {}) {
  // Behind nginx, `headers` gives the Host of APP_URL (pages at another host answer 421).
  const send = (url, options = {}) => request(url, { ...options, headers: { ...headers, ...options.headers } });
  const setup = await send(`${baseUrl}/whatsapp`, { headers: { Cookie: cookie } });
  if (setup.status !== 200) throw new Error(`GET /whatsapp answered ${setup.status}`);
  const link = setup.body.toString("utf8").match(/<a\b[^>]*data-testid="connect-whatsapp"[^>]*>/)?.[0];
  const dialogPath = link && attribute(link, "href");
  if (!dialogPath?.startsWith("/sandbox/meta/dialog/oauth"))
    throw new Error("GET /whatsapp has no sandbox Connect link (data-testid=connect-whatsapp)");

  const dialog = await send(new URL(dialogPath, baseUrl).toString(), { headers: { Cookie: cookie } });
  if (dialog.status !== 200)
    throw new Error(`the Embedded Signup dialog answered ${dialog.status}: ${dialog.body.toString("utf8").slice(0, 200)}`);
  const html = dialog.body.toString("utf8");
  const formTag = html.match(/<form\b[^>]*method="post"[^>]*>/)?.[0];
  const action = formTag && attribute(formTag, "action");
  if (!action) throw new Error("the Embedded Signup dialog has no form");
  const fields = new URLSearchParams();
  for (const [tag] of html.matchAll(/<input\b[^>]*type="hidden"[^>]*>/g))
    fields.append(attribute(tag, "name"), attribute(tag, "value") ?? "");
  // The tenant's first earlier test number; a new test business when it has none.
  const phone = [...html.matchAll(/<input\b[^>]*type="radio"[^>]*>/g)]
    .map(([tag]) => attribute(tag, "value"))
    .find((v) => v?.startsWith("phone:"));
  fields.set("asset", phone ?? "new");
  fields.set("action", "finish");
  const finished = await send(new URL(action, baseUrl).toString(), {
    method: "POST",
    headers: { Cookie: cookie, "Content-Type": "application/x-www-form-urlencoded" },
    body: fields.toString(),
  });
  const toCallback = finished.headers.location;
  if (finished.status !== 303 || !toCallback)
    throw new Error(`finishing the dialog answered ${finished.status}: ${finished.body.toString("utf8").slice(0, 200)}`);

  // redirect_uri is APP_URL's host (localhost); the same server answers on baseUrl.
  const callback = new URL(toCallback, baseUrl);
  const done = await send(`${baseUrl}${callback.pathname}${callback.search}`, { headers: { Cookie: cookie } });
  const outcome = done.headers.location ? new URL(done.headers.location, baseUrl) : null;
  if (!outcome || outcome.searchParams.get("outcome") !== "connected") {
    throw new Error(`/embedded-callback answered ${done.status} ${done.headers.location ?? ""}: the number was not connected`);
  }
  const wabaId = outcome.searchParams.get("waba");

  const listed = await send(`${baseUrl}/api/whatsapp/accounts`, { headers: { Cookie: cookie } });
  if (listed.status !== 200) throw new Error(`GET /api/whatsapp/accounts answered ${listed.status}`);
  const { accounts } = JSON.parse(listed.body.toString("utf8"));
  const account = accounts.find((a) => a.wabaId === wabaId) ?? accounts[0];
  const number = account?.numbers?.[0];
  if (!account || !number) throw new Error(`GET /api/whatsapp/accounts lists no number for WABA ${wabaId}`);
  return {
    wabaId: account.wabaId,
    phoneNumberId: number.phoneNumberId,
    displayPhoneNumber: String(number.number ?? "").replace(/\D/g, ""),
  };
}

// ---------------------------------------------------------------------------------------------
// Payloads

/** A delivery's bytes and its X-Hub-Signature-256, as Meta signs them with the app secret. */
export function signedDelivery(appSecret, body) {
  const bytes = Buffer.from(body);
  return { body: bytes, signature: `sha256=${createHmac("sha256", appSecret).update(bytes).digest("hex")}` };
}

/**
 * A signed inbound text message as Meta delivers it (`messages` field, one `messages[]` entry of
 * type text with the sender's profile in `contacts[]`), to the connected number `target`.
 */
export function inboundTextDelivery({ appSecret, target, from, name, wamid, text, at = Date.now() }) {
  const body = JSON.stringify({
    object: "whatsapp_business_account",
    entry: [
      {
        id: target.wabaId,
        changes: [
          {
            field: "messages",
            value: {
              messaging_product: "whatsapp",
              metadata: { display_phone_number: target.displayPhoneNumber, phone_number_id: target.phoneNumberId },
              contacts: [{ profile: { name }, wa_id: from }],
              messages: [{ from, id: wamid, timestamp: String(Math.floor(at / 1000)), type: "text", text: { body: text } }],
            },
          },
        ],
      },
    ],
  });
  return signedDelivery(appSecret, body);
}

/**
 * Signed status deliveries, one status each, every wamid unique within the benchmark (`tag` keeps
 * them apart from other runs on the same database). `prepare(n)` signs n bodies ahead of a run;
 * `next()` hands them out in order and signs on the spot only if a run outgrows the pool, or, with
 * `cycle` (the bare server, which reads nothing), starts the pool over.
 */
export function createPayloads({ appSecret, wabaId, phoneNumberId, displayPhoneNumber, tag }) {
  let sequence = 0;
  let pool = [];
  let cursor = 0;
  let signedDuringRun = 0;
  let cycle = false;

  function make() {
    const n = ++sequence;
    const body = JSON.stringify({
      object: "whatsapp_business_account",
      entry: [
        {
          id: wabaId,
          changes: [
            {
              field: "messages",
              value: {
                messaging_product: "whatsapp",
                metadata: { display_phone_number: displayPhoneNumber, phone_number_id: phoneNumberId },
                statuses: [
                  {
                    id: `wamid.${tag}.${n}`,
                    status: "delivered",
                    timestamp: String(Math.floor(Date.now() / 1000)),
                    recipient_id: `2547${String(n % 100_000_000).padStart(8, "0")}`,
                    pricing: { billable: true, pricing_model: "PMP", type: "regular", category: "utility" },
                  },
                ],
              },
            },
          ],
        },
      ],
    });
    return signedDelivery(appSecret, body);
  }

  return {
    tag,
    prepare(count, options = {}) {
      pool = Array.from({ length: count }, make);
      cursor = 0;
      signedDuringRun = 0;
      cycle = !!options.cycle;
    },
    next() {
      if (cycle && cursor === pool.length) cursor = 0;
      if (cursor < pool.length) return pool[cursor++];
      signedDuringRun++;
      return make();
    },
    /** Bodies handed to the load generator since prepare(), and how many had to be signed live. */
    used: () => ({ handedOut: Math.min(cursor, pool.length) + signedDuringRun, signedDuringRun }),
    /** One signed delivery for a single check request. */
    one: make,
  };
}

// ---------------------------------------------------------------------------------------------
// Load

function loadRun(url, payloads, { connections, duration }) {
  return autocannon({
    url,
    method: "POST",
    connections,
    duration,
    pipelining: 1,
    timeout: 30,
    headers: { "Content-Type": "application/json", "User-Agent": "facebookexternalua" },
    requests: [
      {
        setupRequest(req) {
          const delivery = payloads.next();
          req.body = delivery.body;
          req.headers["X-Hub-Signature-256"] = delivery.signature;
          return req;
        },
      },
    ],
  });
}

function summarise(result) {
  const statuses = Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, stats]) => [code, stats.count]));
  const ok = statuses["200"] ?? 0;
  const answered = Object.values(statuses).reduce((a, b) => a + b, 0);
  const l = result.latency;
  return {
    connections: result.connections,
    durationSeconds: result.duration,
    sent: result.requests.sent,
    answered,
    ok,
    notOk: answered - ok,
    // Sent but unanswered when the run stopped (autocannon does not wait for them), or timed out.
    unanswered: result.requests.sent - answered,
    okPerSecond: ok / result.duration,
    requestsPerSecond: result.requests.average,
    latencyMs: { p50: l.p50, p90: l.p90, p97_5: l.p97_5, p99: l.p99, max: l.max },
    statuses,
    errors: result.errors,
    timeouts: result.timeouts,
  };
}

// Seconds of CPU a process has used (Linux /proc; null elsewhere).
function cpuSeconds(pids) {
  let ticks = 0;
  try {
    for (const pid of pids) {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      ticks += Number(fields[11]) + Number(fields[12]); // utime, stime
    }
  } catch {
    return null;
  }
  return ticks / 100; // USER_HZ is 100 on Linux
}

/**
 * The PostgreSQL processes serving the benchmark's database, for CPU figures: the postmaster started
 * with `-p <port>` (as scripts/with-postgres.sh starts it) and its children; every postgres process
 * on the machine when no such postmaster is found; none without a port (PGlite).
 */
function postgresPids(port) {
  if (!port) return [];
  const processes = [];
  try {
    for (const pid of readdirSync("/proc")) {
      if (!/^\d+$/.test(pid)) continue;
      try {
        if (readFileSync(`/proc/${pid}/comm`, "utf8").trim() !== "postgres") continue;
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        const ppid = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1];
        const args = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
        processes.push({
          pid,
          ppid,
          postmaster: args.some((arg, i) => (arg === "-p" && args[i + 1] === String(port)) || arg === `-p${port}`),
        });
      } catch {
        // exited meanwhile
      }
    }
  } catch {
    return [];
  }
  const masters = new Set(processes.filter((p) => p.postmaster).map((p) => p.pid));
  return masters.size ? processes.filter((p) => masters.has(p.pid) || masters.has(p.ppid)).map((p) => p.pid) : processes.map((p) => p.pid);
}

/** Seconds of CPU the whole machine has spent busy (all CPUs), from /proc/stat. */
function machineBusySeconds() {
  try {
    const [, ...fields] = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/);
    const [user, nice, system, , , irq, softirq, steal] = fields.map(Number);
    return (user + nice + system + irq + softirq + (steal || 0)) / 100;
  } catch {
    return null;
  }
}

/**
 * CPU used over an interval by the server, the PostgreSQL processes, this process (the load
 * generator) and everything else on the machine (other work skews the figures).
 */
function cpuMeter(serverPid, postgresPort) {
  const pgStart = new Map(postgresPids(postgresPort).map((pid) => [pid, cpuSeconds([pid]) ?? 0]));
  const start = {
    at: performance.now(),
    server: serverPid ? cpuSeconds([serverPid]) : null,
    self: process.cpuUsage(),
    machine: machineBusySeconds(),
  };
  return () => {
    const machine = start.machine === null ? null : machineBusySeconds();
    const seconds = (performance.now() - start.at) / 1000;
    const server = serverPid && start.server !== null ? cpuSeconds([serverPid]) : null;
    // Backends started meanwhile (the pool reconnects after idling) count from zero; ones that
    // exited meanwhile are lost: a rough figure.
    const pgNow = postgresPids(postgresPort);
    const pgUsed = pgNow.reduce((total, pid) => total + Math.max(0, (cpuSeconds([pid]) ?? 0) - (pgStart.get(pid) ?? 0)), 0);
    const self = process.cpuUsage(start.self);
    const share = (used) => (used === null ? null : used / seconds);
    const figures = {
      server: server === null ? null : share(server - start.server),
      postgres: postgresPort ? share(pgUsed) : null,
      loadGenerator: share((self.user + self.system) / 1e6),
      machine: machine === null ? null : share(machine - start.machine),
    };
    figures.other =
      figures.machine === null
        ? null
        : Math.max(0, figures.machine - (figures.server ?? 0) - (figures.postgres ?? 0) - figures.loadGenerator);
    return figures;
  };
}

// ---------------------------------------------------------------------------------------------
// The queue as GET /api/admin/queue reports it

export async function queueState(baseUrl, adminCookie) {
  const sent = performance.now();
  const response = await request(`${baseUrl}/api/admin/queue`, { headers: { Cookie: adminCookie } });
  const ms = performance.now() - sent;
  if (response.status !== 200) throw new Error(`GET /api/admin/queue answered ${response.status}`);
  const { jobs, webhooks } = JSON.parse(response.body.toString("utf8"));
  const pending = jobs.reduce((total, q) => total + q.ready + q.running, 0);
  const failed = jobs.reduce((total, q) => total + q.failed, 0);
  return { received: webhooks.received, unprocessed: webhooks.unprocessed, pending, failed, jobs, ms, at: performance.now() };
}

export const isDrained = (state) => state.unprocessed === 0 && state.pending === 0;

/** Waits until nothing is waiting and `received` has not moved for a few polls. */
export async function settle(baseUrl, adminCookie, { timeoutMs = 30_000, stablePolls = 3 } = {}) {
  const deadline = performance.now() + timeoutMs;
  let last = await queueState(baseUrl, adminCookie);
  let stable = 0;
  while (performance.now() < deadline) {
    await sleep(POLL_MS);
    const state = await queueState(baseUrl, adminCookie);
    stable = isDrained(state) && state.received === last.received ? stable + 1 : 0;
    last = state;
    if (stable >= stablePolls) return { ...last, settled: true };
  }
  return { ...last, settled: false };
}

/**
 * One measured run against Jumbe: the load, and the queue polled every 200 ms from its start until
 * the backlog is gone (or `drainTimeoutMs` after the load ended).
 */
async function jumbeRun({ baseUrl, adminCookie, payloads, connections, duration, drainTimeoutMs, serverPid, postgresPort }) {
  const before = await settle(baseUrl, adminCookie);
  const processedBefore = before.received - before.unprocessed;
  const cpu = cpuMeter(serverPid, postgresPort);
  const started = performance.now();
  let loadEndedAt = null;
  let loadCpu = null;
  const load = loadRun(`${baseUrl}${WEBHOOK_PATH}`, payloads, { connections, duration }).then((result) => {
    loadEndedAt = performance.now();
    loadCpu = cpu();
    return result;
  });

  const samples = [];
  let pollErrors = 0;
  let summary = null;
  let drained = null;
  for (;;) {
    const tick = performance.now();
    try {
      const state = await queueState(baseUrl, adminCookie);
      samples.push({
        atMs: Math.round(state.at - started),
        ms: Math.round(state.ms),
        received: state.received - before.received,
        processed: state.received - state.unprocessed - processedBefore,
        unprocessed: state.unprocessed,
        pending: state.pending,
        failed: state.failed,
        duringLoad: loadEndedAt === null || state.at - state.ms <= loadEndedAt,
      });
      if (loadEndedAt !== null && !summary) summary = summarise(await load);
      // Every 200 answered is committed, so a poll sent after the load saw at least those rows.
      if (summary && tick > loadEndedAt && state.received - before.received >= summary.ok && isDrained(state)) {
        drained = state;
        break;
      }
    } catch {
      pollErrors++;
    }
    if (loadEndedAt !== null && performance.now() - loadEndedAt > drainTimeoutMs) break;
    await sleep(POLL_MS - (performance.now() - tick));
  }
  summary ??= summarise(await load);
  const last = drained ?? (await queueState(baseUrl, adminCookie).catch(() => null));
  const loadSeconds = (loadEndedAt - started) / 1000;
  const stored = last ? last.received - before.received : null;
  const inLoad = samples.filter((s) => s.duringLoad).at(-1);
  const drainSeconds = drained ? (drained.at - started) / 1000 : null;
  const pollMs = samples.map((s) => s.ms).sort((a, b) => a - b);
  return {
    ...summary,
    loadSeconds,
    stored,
    peakBacklog: samples.reduce((peak, s) => Math.max(peak, s.unprocessed), 0),
    processedPerSecondDuringLoad: inLoad ? inLoad.processed / (inLoad.atMs / 1000) : null,
    drained: !!drained,
    drainSeconds,
    drainAfterLoadSeconds: drained ? (drained.at - loadEndedAt) / 1000 : null,
    drainPerSecond: drained && stored ? stored / drainSeconds : null,
    unprocessedAtEnd: last?.unprocessed ?? null,
    drainTimeoutSeconds: drainTimeoutMs / 1000,
    failedJobs: last?.failed ?? null,
    poll: { count: samples.length, errors: pollErrors, p50Ms: pollMs[Math.floor(pollMs.length / 2)] ?? null, maxMs: pollMs.at(-1) ?? null },
    cpuCoresDuringLoad: loadCpu,
    payloads: payloads.used(),
    samples,
  };
}

async function bareRun({ baseUrl, payloads, connections, duration, pid }) {
  const cpu = cpuMeter(pid);
  const result = summarise(await loadRun(`${baseUrl}${WEBHOOK_PATH}`, payloads, { connections, duration }));
  return { ...result, cpuCoresDuringLoad: cpu() };
}

/**
 * How many bodies to sign before a run: twice what the best run so far would send, scaled up by
 * the rise in connections (more connections can mean larger group commits), at least 20,000, and
 * never more than the bare server's rate would use.
 */
const poolSize = (perSecond, duration, ceiling = Infinity) =>
  Math.ceil(Math.max(MIN_POOL, Math.min(perSecond * duration * 2, ceiling * duration * 1.1)));

async function probe(url, delivery, expected) {
  const response = await request(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Hub-Signature-256": delivery.signature },
    body: delivery.body,
  });
  return response.status === expected
    ? null
    : `POST ${WEBHOOK_PATH} answered ${response.status} (expected ${expected}): ${response.body.toString("utf8").slice(0, 160)}`;
}

/**
 * The whole webhook benchmark on a running server (started with extraEnv META_APP_SECRET =
 * appSecret). `individualCookie` is the demo tenant whose number gets connected, `adminCookie`
 * reads /api/admin/queue.
 */
export async function benchWebhooks({
  baseUrl,
  appSecret,
  individualCookie,
  adminCookie,
  duration,
  connections,
  drainTimeoutSeconds = 60,
  serverPid,
  serverOutput,
  databaseUrl,
  log = console.log,
}) {
  const postgresPort = databaseUrl ? Number(new URL(databaseUrl).port || 5432) : null;
  const tag = `BENCH${Date.now().toString(36)}${randomBytes(3).toString("hex")}`.toUpperCase();
  const target = await connectDemoNumber(baseUrl, individualCookie);
  log(`  connected WABA ${target.wabaId}, number ${target.phoneNumberId} (+${target.displayPhoneNumber}) to the demo tenant`);
  const payloads = createPayloads({ appSecret, ...target, tag });
  const url = `${baseUrl}${WEBHOOK_PATH}`;

  // The server must refuse a bad signature and accept ours, or nothing below means anything.
  const forged = { ...payloads.one(), signature: `sha256=${"0".repeat(64)}` };
  // One accepted probe: it is in the database with this run's tag, outside the counts below.
  const problem = (await probe(url, forged, 401)) ?? (await probe(url, payloads.one(), 200));
  if (problem) return { endpoint: `POST ${WEBHOOK_PATH}`, problem, target };
  const linesBefore = new Set((serverOutput?.() ?? "").split("\n")); // the refused probe's warning is expected
  // The PARTNER_ADDED webhook the sandbox sends after signup, and the probe, are processed first.
  const start = await settle(baseUrl, adminCookie);

  // 1. The bare Node server: same payloads, same connection counts.
  log("  bare node:http server ...");
  const bare = await startBareServer();
  const bareRuns = [];
  let bareRate = 0;
  try {
    // The bare server reads no body, so one pool of distinct bodies goes round (no signing during the runs).
    payloads.prepare(MIN_POOL, { cycle: true });
    await bareRun({ baseUrl: bare.baseUrl, payloads, connections: connections[0], duration: 2 }); // warm-up
    for (const count of connections) {
      const run = await bareRun({ baseUrl: bare.baseUrl, payloads, connections: count, duration, pid: bare.pid });
      bareRate = Math.max(bareRate, run.requestsPerSecond);
      bareRuns.push({ ...run, payloads: payloads.used() });
    }
  } finally {
    await bare.stop();
  }

  // 2 and 3. Jumbe, each run followed until its backlog is processed.
  const totals = { sent: 0, ok: 0, notOk: 0, unanswered: 0 };
  const count = (run) => {
    totals.sent += run.sent;
    totals.ok += run.ok;
    totals.notOk += run.notOk;
    totals.unanswered += run.unanswered;
  };
  const drainTimeoutMs = drainTimeoutSeconds * 1000;
  log("  Jumbe warm-up ...");
  payloads.prepare(poolSize(3_000, 2, bareRate));
  const warmUp = await jumbeRun({
    baseUrl,
    adminCookie,
    payloads,
    connections: connections[0],
    duration: 2,
    drainTimeoutMs,
    serverPid,
    postgresPort,
  });
  count(warmUp);
  const runs = [];
  let rate = warmUp.okPerSecond;
  let previous = connections[0];
  for (const c of connections) {
    log(`  Jumbe at ${c} connections ...`);
    payloads.prepare(poolSize(rate * Math.max(1, c / previous), duration, bareRate));
    previous = c;
    const run = await jumbeRun({ baseUrl, adminCookie, payloads, connections: c, duration, drainTimeoutMs, serverPid, postgresPort });
    count(run);
    rate = Math.max(rate, run.okPerSecond);
    runs.push(run);
  }

  // 4. Every acknowledged delivery is stored, once.
  const end = await settle(baseUrl, adminCookie, { timeoutMs: drainTimeoutMs });
  const stored = end.received - start.received;
  // Warnings and errors the server logged meanwhile (its output is kept as a rolling 20 kB tail).
  const serverLines = (serverOutput?.() ?? "")
    .split("\n")
    .filter((line) => line.trim() && !linesBefore.has(line) && /"level":(40|50|60)|error|warn/i.test(line))
    .map((line) => line.slice(0, 400))
    .slice(-20);
  return {
    endpoint: `POST ${WEBHOOK_PATH}`,
    tag,
    target,
    bare: bareRuns,
    warmUp: stripSamples(warmUp),
    runs,
    correctness: {
      sent: totals.sent,
      ok: totals.ok,
      notOk: totals.notOk,
      unanswered: totals.unanswered,
      stored,
      settled: end.settled,
      unprocessed: end.unprocessed,
      failedJobs: end.failed,
      // Requests in flight when a run stopped reach the server and are stored, but their 200 is
      // never read: stored = 200 answers + those (when nothing failed).
      matches: stored === totals.ok + totals.unanswered && totals.notOk === 0,
      probes: 1,
    },
    serverLog: serverLines,
  };
}

function stripSamples(run) {
  const copy = { ...run };
  delete copy.samples;
  return copy;
}

/** Counts in the database itself, once the server has stopped (PGlite allows one process only). */
export async function verifyStoredRows(query, tag) {
  const like = `%wamid.${tag}.%`;
  const one = async (text, params) => Number((await query(text, params))[0]?.n ?? 0);
  return {
    events: await one(`select count(*)::int as n from webhook_events where body like $1`, [like]),
    processed: await one(`select count(*)::int as n from webhook_events where body like $1 and outcome = 'processed'`, [like]),
    statuses: await one(`select count(distinct wamid)::int as n from message_statuses where wamid like $1`, [`wamid.${tag}.%`]),
    unrouted: await one(`select count(*)::int as n from webhook_unrouted_changes where value::text like $1`, [like]),
    failedJobs: await one(`select count(*)::int as n from jobs where failed_at is not null`),
  };
}

// ---------------------------------------------------------------------------------------------
// Report

const fixed = (value, digits = 1) => (typeof value === "number" && Number.isFinite(value) ? value.toFixed(digits) : "-");
const int = (value) => (typeof value === "number" && Number.isFinite(value) ? Math.round(value).toLocaleString("en-US") : "-");
const cores = (value) => (typeof value === "number" ? value.toFixed(2) : "-");

export const TARGET = { okPerSecond: 3_000, p99Ms: 50 };

/** The PostgreSQL target, as observed figures: ≥ 3,000 acknowledged/s, p99 < 50 ms, drain keeping up. */
export function targetNote(report, databaseKind) {
  const runs = report.runs ?? [];
  if (!runs.length) return "Target: not measured.";
  // stored / time-to-drain can only reach stored / load time when the backlog is gone the moment the
  // load ends, so "keeps up" allows the polling resolution: gone within 0.5 s of the load's end.
  const keepsUp = (r) => r.drained && r.drainPerSecond !== null && (r.drainPerSecond >= r.okPerSecond || r.drainAfterLoadSeconds <= 0.5);
  const met = runs.filter((r) => r.okPerSecond >= TARGET.okPerSecond && r.latencyMs.p99 < TARGET.p99Ms && keepsUp(r));
  const best = [...runs].sort((a, b) => b.okPerSecond - a.okPerSecond)[0];
  const describe = (r) =>
    `${int(r.okPerSecond)} ack/s at ${r.connections} connections, p99 ${fixed(r.latencyMs.p99, 0)} ms, drain ${r.drained ? `${int(r.drainPerSecond)}/s (${fixed(r.drainAfterLoadSeconds)} s after the load)` : "not finished"}`;
  const scope = databaseKind === "postgres" ? "" : ` (the target is for PostgreSQL; this is ${databaseKind ?? "PGlite"})`;
  return met.length
    ? `PostgreSQL target (≥ 3,000 acknowledged/s, p99 < 50 ms, drain rate ≥ ack rate, i.e. backlog gone ≤ 0.5 s after the load)${scope}: met here at ${met.map((r) => r.connections).join(", ")} connections; ${describe(met[0])}.`
    : `PostgreSQL target (≥ 3,000 acknowledged/s, p99 < 50 ms, drain rate ≥ ack rate, i.e. backlog gone ≤ 0.5 s after the load)${scope}: not met here; best ${describe(best)}.`;
}

export function formatWebhooks(report, { table, databaseKind, cpus }) {
  const lines = [];
  lines.push(`\n${report.endpoint}  (signature check, durable store with group commit, 200 after commit; one status per delivery)`);
  if (report.problem) {
    lines.push(`  not measured: ${report.problem}`);
    return lines.join("\n");
  }
  lines.push(
    `  autocannon runs in this process on the same ${cpus} CPUs as the server${databaseKind === "postgres" ? " and PostgreSQL" : " (PGlite runs inside the server process)"}; cores = CPU time / wall time during the load for the server, ${databaseKind === "postgres" ? "PostgreSQL" : "- (no separate database)"}, the load generator and the rest of the machine (other processes, kernel).`,
  );
  const pg = report.postgresSettings;
  if (pg && (pg.fsync === "off" || pg.synchronous_commit === "off")) {
    lines.push(
      `  PostgreSQL runs with fsync=${pg.fsync}, synchronous_commit=${pg.synchronous_commit} (as scripts/with-postgres.sh sets it up): a commit does not wait for the disk, so the acknowledgements here are cheaper than on a durable server.`,
    );
  } else if (pg) {
    lines.push(
      `  PostgreSQL runs with fsync=${pg.fsync}, synchronous_commit=${pg.synchronous_commit}, wal_sync_method=${pg.wal_sync_method}.`,
    );
  }
  lines.push("\nBare node:http baseline (reads the body, answers 200; no signature check, no database)");
  lines.push(
    table(
      ["connections", "req/s", "p50 ms", "p97.5 ms", "p99 ms", "max ms", "requests", "statuses", "cores srv/-/gen/other"],
      report.bare.map((r) => [
        r.connections,
        int(r.okPerSecond),
        fixed(r.latencyMs.p50, 0),
        fixed(r.latencyMs.p97_5, 0),
        fixed(r.latencyMs.p99, 0),
        fixed(r.latencyMs.max, 0),
        r.answered,
        statusText(r),
        cpuText(r.cpuCoresDuringLoad),
      ]),
    ),
  );
  lines.push(`\nJumbe ${report.endpoint} (${databaseKind === "postgres" ? "PostgreSQL" : "PGlite"}): acknowledged deliveries`);
  lines.push(
    table(
      ["connections", "ack/s", "p50 ms", "p97.5 ms", "p99 ms", "max ms", "200s", "non-200", "statuses", "cores srv/db/gen/other"],
      report.runs.map((r) => [
        r.connections,
        int(r.okPerSecond),
        fixed(r.latencyMs.p50, 0),
        fixed(r.latencyMs.p97_5, 0),
        fixed(r.latencyMs.p99, 0),
        fixed(r.latencyMs.max, 0),
        r.ok,
        r.notOk + r.errors,
        statusText(r),
        cpuText(r.cpuCoresDuringLoad),
      ]),
    ),
  );
  lines.push("\nDrain (job workers turning stored deliveries into message_statuses; /api/admin/queue polled every 200 ms)");
  lines.push(
    table(
      [
        "connections",
        "stored",
        "peak backlog",
        "processed/s in load",
        "drained at s",
        "after load s",
        "drain rate/s",
        "ack/s",
        "queue poll p50/max ms",
      ],
      report.runs.map((r) => [
        r.connections,
        r.stored,
        r.peakBacklog,
        int(r.processedPerSecondDuringLoad),
        r.drained ? fixed(r.drainSeconds, 1) : `no: ${r.unprocessedAtEnd} left ${r.drainTimeoutSeconds} s after the load`,
        r.drained ? fixed(r.drainAfterLoadSeconds, 1) : "-",
        int(r.drainPerSecond),
        int(r.okPerSecond),
        `${r.poll.p50Ms ?? "-"}/${r.poll.maxMs ?? "-"}`,
      ]),
    ),
  );
  const c = report.correctness;
  lines.push(
    `\nStored vs acknowledged (all Jumbe runs incl. the 2 s warm-up): ${c.stored} deliveries stored, ${c.ok} answered 200, ` +
      `${c.unanswered} sent but unanswered when a run stopped, ${c.notOk} other answers -> ${c.matches ? "consistent (stored = 200s + in flight at stop)" : "MISMATCH"}` +
      `${c.settled ? "" : "; the queue had not settled"}${c.failedJobs ? `; ${c.failedJobs} failed jobs` : ""}.`,
  );
  if (c.notOk || report.runs.some((r) => r.errors || r.timeouts)) {
    lines.push(
      `  WARNING: ${c.notOk} webhook deliveries were NOT acknowledged with 200 (Meta would retry them); errors/timeouts: ${report.runs.map((r) => `${r.connections}c ${r.errors}/${r.timeouts}`).join(", ")}.`,
    );
  }
  if (report.runs.some((r) => !r.drained)) lines.push("  WARNING: the backlog was not processed within the drain timeout for some runs.");
  const live = report.runs.reduce((total, r) => total + r.payloads.signedDuringRun, 0);
  if (live) lines.push(`  Note: ${live} bodies were signed during the load (the pre-signed pool ran out).`);
  if (report.serverLog?.length)
    lines.push(
      `  Server warnings/errors during the webhook runs (last ${report.serverLog.length}):\n    ${report.serverLog.join("\n    ")}`,
    );
  lines.push(targetNote(report, databaseKind));
  return lines.join("\n");
}

function cpuText(c) {
  return c ? [c.server, c.postgres, c.loadGenerator, c.other].map(cores).join("/") : "-";
}

function statusText(r) {
  return (
    Object.entries(r.statuses)
      .map(([code, n]) => `${code}:${n}`)
      .join(" ") +
    (r.errors ? ` errors:${r.errors}` : "") +
    (r.unanswered ? ` in-flight:${r.unanswered}` : "")
  );
}
