// The whole sending pipeline on PostgreSQL: messages queued in Jumbe, sent by its dispatcher to the
// Meta sandbox in a process of its own, and moved to sent, delivered and read by the sandbox's
// signed status webhooks coming back through Jumbe's receiver and job workers.
//
//   node bench/run.mjs --sending-only                     (100,000 messages; about 4 minutes)
//   node bench/run.mjs --sending-only --sending-messages 20000
//
// - a throwaway PostgreSQL cluster (fsync off, pg_stat_statements loaded), the production build
//   (node build/server/index.js, its dispatcher and two job workers on) and
//   build/server/meta-sandbox.js, each in its own process: Jumbe's GRAPH_API_BASE_URL points at the
//   sandbox, the sandbox's META_SANDBOX_WEBHOOK_URL at Jumbe's /webhooks/whatsapp, both with the
//   same META_APP_SECRET;
// - a test business at the sandbox (control API), its number registered through Graph, its token
//   stored for the demo tenant as Embedded Signup stores it (AES-256-GCM with the server's
//   ENCRYPTION_KEY), an approved utility template in Jumbe and at the sandbox, and the number's
//   send bucket at `rate` a second (sending_buckets.rate) with the sandbox's throughput the same;
//   the number's messaging limit is TIER_UNLIMITED (Meta raises a number to 1,000 a second only
//   in the unlimited tier), so no recipient waits for the 24-hour count;
// - a sample of messages through POST /api/v1/messages (202, then followed to `read`), then the
//   rest in one INSERT that copies the sample row the API wrote (only `to` differs), so every row
//   is what queueMessage() stores; the end checks that they are alike in every column;
// - measured from the database afterwards: accepted_at of each message (queued -> accepted by
//   Meta), message_statuses.created_at (each status webhook processed into a message),
//   webhook_events (the POSTs and their ingest lag), CPU of every process, pg_stat_statements
//   (database time by statement) and the server's --cpu-prof restricted to the run;
// - the bare loop: the same POST /{v}/{phone-number-id}/messages with the same body, headers and
//   in-flight count, paced by the same token bucket, from this process over a keep-alive node:http
//   agent with one timer per call (as Jumbe's Graph client calls, decision 024), to the same sandbox process, for a second number no tenant has (its
//   status webhooks still reach Jumbe, which parks them as unrouted, so the sandbox does the same
//   work per message as in the measured run). Run first, and Jumbe's backlog drained before the
//   measured run starts.
import { spawn } from "node:child_process";
import { createCipheriv, randomBytes, randomUUID } from "node:crypto";
import http from "node:http";
import https from "node:https";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { apiKeyFor } from "./api-v1.mjs";
import { postgresBinDir, startPrivatePostgres } from "./lib/database.mjs";
import { request, signIn } from "./lib/http.mjs";
import { cpuBetween, cpuOf, machineBusySeconds } from "./lib/proc.mjs";
import { freePort, startServer } from "./lib/server.mjs";

export const GRAPH_VERSION = "v25.0";
export const TEMPLATE = {
  name: "bench_order_update",
  language: "en",
  category: "UTILITY",
  text: "Habari {{1}}, your order {{2}} ships today.",
  parameters: ["Amina", "KE-1042"],
};
/** Recipients end in these four digits to get an outcome on purpose (sandbox/meta/messages.ts): never used here. */
const MAGIC_ENDINGS = new Set(["0000", "0047", "1049", "0002", "0003", "0429", "1056", "0190", "0500"]);
const BENCH_SQL = "/* bench:sending */";
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const nowUs = () => Number(process.hrtime.bigint() / 1000n);

/** The dispatcher's Graph calls in flight (IN_FLIGHT in app/.server/domains/messaging/dispatcher.ts), so the bare loop matches it. */
export function dispatcherInFlight(root) {
  try {
    const source = readFileSync(path.join(root, "app/.server/domains/messaging/dispatcher.ts"), "utf8");
    const match = source.match(/const IN_FLIGHT\s*=\s*(\d+)/);
    if (match) return Number(match[1]);
  } catch {
    // not readable: the default below
  }
  return 64;
}

/** Seconds of its rate a number's bucket holds (BURST_SECONDS in dispatcher.ts; 1 before it existed), so the bare loop's matches. */
export function dispatcherBurstSeconds(root) {
  try {
    const source = readFileSync(path.join(root, "app/.server/domains/messaging/dispatcher.ts"), "utf8");
    const match = source.match(/BURST_SECONDS\s*=\s*([\d.]+)/);
    if (match) return Number(match[1]);
  } catch {
    // not readable: the default below
  }
  return 1;
}

/** n distinct Kenyan mobile numbers from `first` on, none ending in a magic recipient's digits. */
export function recipients(first, n) {
  const out = [];
  for (let i = first; out.length < n; i++) {
    const digits = String(i).padStart(8, "0");
    if (MAGIC_ENDINGS.has(digits.slice(-4))) continue;
    out.push(`+2547${digits}`);
  }
  return out;
}

/** Encrypts as app/.server/infrastructure/security/crypto.ts encryptSecret does (v1.iv.tag.body, AES-256-GCM). */
export function encryptSecret(plain, keyHex) {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", Buffer.from(keyHex, "hex"), iv);
  const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return ["v1", iv.toString("base64url"), cipher.getAuthTag().toString("base64url"), body.toString("base64url")].join(".");
}

/**
 * A root to start the servers from: `root` itself, or (buildDir given) a temporary directory with
 * a copy of buildDir as `build` and everything else linked to root's, so a copy of a build keeps
 * running while other work rebuilds build/.
 */
export function rootFor(root, buildDir) {
  if (!buildDir) return { root, remove: () => {} };
  const dir = mkdtempSync(path.join(os.tmpdir(), "jumbe-bench-root-"));
  for (const name of readdirSync(root)) if (name !== "build") symlinkSync(path.join(root, name), path.join(dir, name));
  // A copy, not a link: Node resolves a module's packages from its real path.
  cpSync(path.resolve(buildDir), path.join(dir, "build"), { recursive: true });
  return { root: dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** build/server/meta-sandbox.js (or another sandbox's standalone `file`) in its own process; resolves once /healthz answers. */
export async function startSandbox(root, env, { file = "meta-sandbox.js", name = "the Meta sandbox" } = {}) {
  const entry = path.join(root, "build/server", file);
  if (!existsSync(entry)) throw new Error(`build/server/${file} is missing: run \`npm run build\` first.`);
  const child = spawn(process.execPath, [entry], {
    cwd: root,
    env: { ...process.env, NODE_ENV: "production", HOST: "127.0.0.1", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const keep = (chunk) => (output = (output + chunk.toString("utf8")).slice(-20_000));
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(timer);
    }
  };
  const base = `http://127.0.0.1:${env.PORT}`;
  for (let i = 0; i < 150; i++) {
    if (child.exitCode !== null) break;
    try {
      if ((await fetch(`${base}/healthz`)).ok) return { base, pid: child.pid, stop, output: () => output };
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  await stop();
  throw new Error(`${name} did not start:\n${output}`);
}

async function json(response, what) {
  const text = await response.text();
  if (!response.ok) throw new Error(`${what} answered ${response.status}: ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : {};
}

/**
 * A test business at the sandbox with its number registered for the Cloud API and the template
 * approved in its WABA; the business token as Embedded Signup's code exchange gives it.
 */
export async function sandboxBusiness(sandbox, { controlToken, appId, appSecret, name }) {
  const control = (route, body) =>
    fetch(`${sandbox.base}/sandbox/meta/control${route}`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Sandbox-Token": controlToken },
      body: JSON.stringify(body),
    }).then((r) => json(r, `POST control${route}`));
  const business = await control("/businesses", { businessName: name, verifiedName: name });
  const { code } = await control("/codes", { businessId: business.businessId, wabaIds: [business.wabaId] });
  const graph = `${sandbox.base}/sandbox/meta/graph/${GRAPH_VERSION}`;
  const query = new URLSearchParams({ client_id: appId, client_secret: appSecret, code });
  const { access_token: token } = await json(await fetch(`${graph}/oauth/access_token?${query}`), "the code exchange");
  await json(
    await fetch(`${graph}/${business.phoneNumberId}/register`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ messaging_product: "whatsapp", pin: "246810" }),
    }),
    "registering the number",
  );
  await control("/templates", {
    wabaId: business.wabaId,
    name: TEMPLATE.name,
    language: TEMPLATE.language,
    category: TEMPLATE.category,
    components: [{ type: "BODY", text: TEMPLATE.text, example: { body_text: [TEMPLATE.parameters] } }],
    status: "APPROVED",
  });
  return { ...business, token, graph };
}

/**
 * Connects the sandbox business's number to the tenant as Embedded Signup leaves it (token
 * encrypted, number registered, TIER_UNLIMITED), with the bench template approved and a send
 * bucket of `rate` a second.
 */
export async function connectBenchNumber(query, { organizationId, business, encryptionKey, rate, name }) {
  const [account] = await query(
    `insert into whatsapp_accounts (organization_id, waba_id, business_id, name, access_token_encrypted, subscribed)
     values ($1, $2, $3, $4, $5, true) returning id`,
    [organizationId, business.wabaId, business.businessId, name, encryptSecret(business.token, encryptionKey)],
  );
  await query(
    `insert into whatsapp_phone_numbers (organization_id, account_id, phone_number_id, display_phone_number, phone_digits, verified_name,
                                         quality_rating, status, platform_type, messaging_limit, registered_at)
     values ($1, $2, $3, $4, $5, $6, 'GREEN', 'CONNECTED', 'CLOUD_API', 'TIER_UNLIMITED', now())`,
    [organizationId, account.id, business.phoneNumberId, business.displayPhoneNumber, business.displayPhoneNumber.replace(/\D/g, ""), name],
  );
  await query(
    `insert into message_templates (organization_id, account_id, waba_id, name, language, category, status, components, source)
     values ($1, $2, $3, $4, $5, $6, 'approved', $7::jsonb, 'meta')`,
    [
      organizationId,
      account.id,
      business.wabaId,
      TEMPLATE.name,
      TEMPLATE.language,
      TEMPLATE.category,
      JSON.stringify([{ type: "BODY", text: TEMPLATE.text }]),
    ],
  );
  await query(`insert into sending_buckets (phone_number_id, rate, tokens) values ($1, $2::int, $2::int)`, [business.phoneNumberId, rate]);
}

// ---------------------------------------------------------------------------------------------
// The bare loop

/**
 * The dispatcher's Graph calls and nothing else: POST /{v}/{phone-number-id}/messages with the
 * body the dispatcher sends (the stored payload, Jumbe's id as biz_opaque_callback_data) and the
 * Graph client's headers, `inFlight` at a time, paced by a token bucket of `rate` a second that
 * holds `burstSeconds` of it and starts full, as sending_buckets does. Over a keep-alive node:http
 * agent of `inFlight` sockets with one timer per call, as app/.server/infrastructure/clients/whatsapp-graph/http-transport.ts.
 */
export async function bareLoop({ graph, phoneNumberId, token, payload, to, inFlight, rate, burstSeconds }) {
  const url = new URL(`${graph}/${encodeURIComponent(phoneNumberId)}/messages`);
  const agent = new (url.protocol === "https:" ? https : http).Agent({
    keepAlive: true,
    maxSockets: inFlight,
    maxFreeSockets: inFlight,
    timeout: 4000,
  });
  const post = (body) =>
    new Promise((resolve, reject) => {
      const payloadBytes = Buffer.from(body);
      const req = (url.protocol === "https:" ? https : http).request(
        {
          agent,
          hostname: url.hostname,
          port: url.port,
          method: "POST",
          path: url.pathname,
          headers: {
            Accept: "application/json",
            Authorization: `Bearer ${token}`,
            "Content-Type": "application/json",
            "Content-Length": String(payloadBytes.byteLength),
          },
        },
        (res) => {
          const chunks = [];
          res.on("data", (c) => chunks.push(c));
          res.on("end", () => {
            clearTimeout(timer);
            resolve({ status: res.statusCode, text: Buffer.concat(chunks).toString("utf8") });
          });
          res.on("error", reject);
        },
      );
      const timer = setTimeout(() => req.destroy(Object.assign(new Error("timeout"), { name: "TimeoutError" })), 10_000);
      req.on("error", (error) => {
        clearTimeout(timer);
        reject(error);
      });
      req.end(payloadBytes);
    });
  const capacity = Math.max(1, rate * burstSeconds);
  let tokens = capacity;
  let refilledAt = performance.now();
  const takeToken = async () => {
    for (;;) {
      const now = performance.now();
      tokens = Math.min(capacity, tokens + ((now - refilledAt) / 1000) * rate);
      refilledAt = now;
      if (tokens >= 1) {
        tokens -= 1;
        return;
      }
      await sleep(Math.max(1, Math.ceil(((1 - tokens) / rate) * 1000)));
    }
  };
  const statuses = {};
  const latencies = [];
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < to.length) {
      const recipient = to[next++];
      await takeToken();
      const body = { messaging_product: "whatsapp", ...payload, to: recipient, biz_opaque_callback_data: randomUUID() };
      const sent = performance.now();
      let status = "error";
      try {
        const response = await post(JSON.stringify(body));
        const answer = JSON.parse(response.text || "{}");
        const ok = response.status >= 200 && response.status < 300;
        status = ok && answer.messages?.[0]?.id ? "200" : `${response.status} ${answer.error?.code ?? ""}`.trim();
      } catch (error) {
        status = `error ${error instanceof Error ? error.name : ""}`.trim();
      }
      latencies.push(performance.now() - sent);
      statuses[status] = (statuses[status] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  agent.destroy();
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const pct = (p) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))];
  return {
    messages: to.length,
    accepted: statuses["200"] ?? 0,
    seconds,
    acceptedPerSecond: (statuses["200"] ?? 0) / seconds,
    latencyMs: { p50: pct(50), p99: pct(99), max: latencies.at(-1) },
    statuses,
  };
}

// ---------------------------------------------------------------------------------------------
// The CPU profile

/** Where a profile frame's time belongs. */
function categoryOf(frame) {
  const { functionName: name, url } = frame;
  if (name === "(idle)") return "idle";
  if (name === "(garbage collector)") return "garbage collection";
  if (name === "(program)") return "V8/native (program)";
  if (!url && /^(writev|writeBuffer|writeUtf8String|writeLatin1String|onStreamRead|readStart|readStop|shutdown|close|connect)$/.test(name))
    return "Node HTTP, sockets, streams";
  if (url === "node:internal/process/task_queues" || name === "runMicrotasks") return "promise jobs (microtasks)";
  if (url === "node:internal/async_hooks" || /async_local_storage|async_context_frame/.test(url)) return "async_hooks (AsyncLocalStorage)";
  if (/^node:internal\/(timers|process\/next_tick)|^node:timers/.test(url)) return "timers, nextTick";
  if (/node_modules\/(pg|pg-protocol|pg-pool|pg-types|pgpass|postgres-[a-z]+)\//.test(url)) return "PostgreSQL driver (pg)";
  if (/node_modules\/drizzle-orm\//.test(url)) return "Drizzle ORM";
  if (url.startsWith("node:internal/deps/undici") || /undici/.test(url)) return "fetch (undici): Graph calls";
  // The client half of node:http (Jumbe's Graph transport since decision 024); sockets stay below.
  if (/^node:(_http_client|_http_agent|https)$/.test(url)) return "node:http client and agent: Graph calls";
  if (/node_modules\/(express|router|body-parser|react-router|@react-router)/.test(url)) return "Express / React Router";
  if (/node_modules\/pino/.test(url)) return "logging (pino)";
  if (url.startsWith("node:internal/crypto") || url === "node:crypto") return "crypto (HMAC, AES)";
  if (/^node:(_http|http|internal\/http|net|internal\/net|stream|internal\/streams|internal\/stream_base|dns|internal\/dns)/.test(url))
    return "Node HTTP, sockets, streams";
  if (/build\/server\/.*\.js$/.test(url)) return "Jumbe's code (build/server)";
  if (/node_modules\//.test(url)) return "other packages";
  if (url.startsWith("node:")) return "other Node internals";
  if (!url) return "V8 builtins (JSON, RegExp, ...)";
  return "other";
}

/** Functions of Jumbe's pipeline whose inclusive time is worth a line (synchronous parts; an await cuts the stack). */
const PIPELINE_FUNCTIONS = [
  "dispatchBatch",
  "claimMessages",
  "recentPairCounts",
  "takeSendTokens",
  "numberTokens",
  "deferMessages",
  "sendMessage",
  "callOnce",
  "settleAccepted",
  "applyKeptStatuses",
  "receiveDelivery",
  "storeDeliveries",
  "processWebhookJobs",
  "parseEnvelope",
  "applyChanges",
  "writeStatuses",
  "decryptSecret",
  "isValidSignature",
];

/**
 * Self time by category and by function, and inclusive time of the pipeline's functions, from a
 * .cpuprofile, counting only samples between fromUs and toUs (the monotonic clock, as
 * process.hrtime; when no sample falls inside, the whole profile is used and `window` says so).
 */
export function summariseProfile(file, { fromUs, toUs }) {
  const profile = JSON.parse(readFileSync(file, "utf8"));
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const child of n.children ?? []) parent.set(child, n.id);
  const times = [];
  let t = profile.startTime;
  for (const delta of profile.timeDeltas) times.push((t += delta));
  let inside = profile.samples.map((_, i) => i).filter((i) => times[i] >= fromUs && times[i] <= toUs);
  const window = inside.length ? "run" : "whole process (the profile's clock did not match)";
  if (!inside.length) inside = profile.samples.map((_, i) => i);
  const weight = (i) => (i + 1 < times.length ? times[i + 1] - times[i] : 0);
  const byCategory = new Map();
  const byFunction = new Map();
  const inclusive = new Map();
  let total = 0;
  for (const i of inside) {
    const w = weight(i);
    if (w <= 0 || w > 1_000_000) continue;
    const node = nodes.get(profile.samples[i]);
    total += w;
    const category = categoryOf(node.callFrame);
    byCategory.set(category, (byCategory.get(category) ?? 0) + w);
    const { functionName, url, lineNumber } = node.callFrame;
    const key = `${functionName || "(anonymous)"} ${url ? `${url.replace(/^.*\/(node_modules\/)?/, "")}:${lineNumber + 1}` : ""}`.trim();
    const entry = byFunction.get(key) ?? { name: key, category, us: 0 };
    entry.us += w;
    byFunction.set(key, entry);
    const seen = new Set();
    for (let id = node.id; id !== undefined; id = parent.get(id)) {
      const name = nodes.get(id).callFrame.functionName;
      if (PIPELINE_FUNCTIONS.includes(name) && !seen.has(name)) {
        seen.add(name);
        inclusive.set(name, (inclusive.get(name) ?? 0) + w);
      }
    }
  }
  const share = (us) => (total ? us / total : 0);
  const busy = total - (byCategory.get("idle") ?? 0);
  return {
    window,
    sampledSeconds: total / 1e6,
    busySeconds: busy / 1e6,
    categories: [...byCategory.entries()]
      .map(([category, us]) => ({ category, seconds: us / 1e6, share: share(us), shareOfBusy: category === "idle" ? null : us / busy }))
      .sort((a, b) => b.seconds - a.seconds),
    topFunctions: [...byFunction.values()]
      .filter((f) => f.category !== "idle")
      .sort((a, b) => b.us - a.us)
      .slice(0, 20)
      .map((f) => ({ name: f.name, category: f.category, seconds: f.us / 1e6, shareOfBusy: f.us / busy })),
    pipelineInclusive: PIPELINE_FUNCTIONS.filter((name) => inclusive.has(name)).map((name) => ({
      name,
      seconds: inclusive.get(name) / 1e6,
      shareOfBusy: inclusive.get(name) / busy,
    })),
  };
}

// ---------------------------------------------------------------------------------------------
// Database time by statement (pg_stat_statements)

// First match wins. pg_stat_statements shows constants as $n, so patterns name no literal.
const STATEMENT_KINDS = [
  // Billing (charging.ts, ledger.ts): the wallet's row and ledger, the messages' charge state, the usage rollup.
  ["billing: wallet change + ledger row", /update wallets set balance_cents/],
  // "m" since the statement names each message by its key (decision 183).
  ["billing: charge messages (charge_state)", /update messages (m )?set charge_state/],
  ["billing: usage rollup", /billing_usage_daily/],
  // Campaigns (bench/campaign.mjs): the feeder's batch and the figures, before the dispatcher's
  // kinds (the waiting count also reads the number's rate from sending_buckets).
  ["campaign feeder: waiting count", /as waiting/],
  ["campaign feeder: next pending recipients", /from campaign_recipients r left join contacts/],
  ["campaign feeder: insert messages", /insert into messages [^;]*pricing_category, campaign_id\)/],
  ["campaign feeder: mark recipients queued", /update campaign_recipients r set state = (\$\d+|'queued'), message_id/],
  ["campaign figures (recount)", /update campaigns c set counts = x\.counts|'queued', \(select count/],
  ["dispatcher: claim a batch", /with ready as/],
  ["dispatcher: pair order (an earlier message unsent)", /e\.seq < m\.seq/],
  ["dispatcher: pair-rate counts (last minute)", /accepted_at > now\(\) - interval/],
  ["dispatcher: send tokens (sending_buckets)", /sending_buckets/],
  ["dispatcher: number tokens", /access_token_encrypted/],
  ["dispatcher: messaging limit", /messaging_limit|business_id, a\.waba_id|last_inbound_at > now\(\) - interval/],
  ["dispatcher: defer", /attempts = greatest\(m\.attempts - 1/],
  ["dispatcher: hold the calls starting", /set locked_until = now\(\) \+ make_interval\(secs => \$\d+\)\s+from unnest/],
  ["ads: free entry window", /free_entry_until/],
  ["inbox: change log", /inbox_events|join conversations v on v\.organization_id = m\.organization_id/],
  ["dispatcher: settle accepted", /set wamid = a\.wamid/],
  ["dispatcher: retries", /next_attempt_at = now\(\) \+ make_interval\(secs => r\.delay_ms/],
  // "with kept as" before decision 024, one pass with a lateral aggregate since.
  ["statuses: apply kept statuses to messages", /with kept as|m\.status as previous, k\.\*|m\.previous, (p\.wamid as pair_wamid, )?k\.\*/],
  ["statuses: adopt lost accepts", /set wamid = f\.wamid|set wamid = lost\.wamid/],
  ["webhook ingest: store statuses", /insert into message_statuses/],
  ["webhook receiver: store deliveries + job", /insert into webhook_events/],
  ["webhook ingest: read / mark deliveries", /webhook_events/],
  ["webhooks out: enqueue events", /webhook_deliveries/],
  ["campaigns: other", /campaign/],
  ["job queue", /\bjobs\b/],
  ["transactions (begin, commit, savepoints)", /^\s*(begin|commit|rollback|savepoint|release)/i],
  ["API and other", /.*/],
];

export async function statementTimes(query) {
  const rows = await query(
    `${BENCH_SQL} select query, calls::float8 as calls, total_exec_time as ms, total_plan_time as plan_ms, rows::float8 as rows,
            jit_functions::float8 as jit_functions,
            jit_generation_time + jit_inlining_time + jit_optimization_time + jit_emission_time as jit_ms
     from pg_stat_statements
     where dbid = (select oid from pg_database where datname = current_database()) and query not like '/* bench:%'`,
  );
  const kinds = new Map();
  for (const row of rows) {
    const [kind] = STATEMENT_KINDS.find(([, pattern]) => pattern.test(row.query));
    const entry = kinds.get(kind) ?? { kind, calls: 0, ms: 0, planMs: 0, rows: 0, jitMs: 0, jitFunctions: 0 };
    entry.calls += row.calls;
    entry.ms += row.ms;
    entry.planMs += row.plan_ms;
    entry.rows += row.rows;
    // JIT compilation (counted in the execution time): a plan over jit_above_cost compiles at every call.
    entry.jitMs += row.jit_ms;
    entry.jitFunctions += row.jit_functions;
    kinds.set(kind, entry);
  }
  const top = [...rows]
    .sort((a, b) => b.ms - a.ms)
    .slice(0, 20)
    .map((r) => ({ query: r.query.replace(/\s+/g, " ").slice(0, 220), calls: r.calls, ms: r.ms, meanMs: r.ms / r.calls, rows: r.rows }));
  return {
    totalMs: rows.reduce((sum, r) => sum + r.ms, 0),
    kinds: [...kinds.values()].map((k) => ({ ...k, meanMs: k.calls ? k.ms / k.calls : 0 })).sort((a, b) => b.ms - a.ms),
    top,
  };
}

/**
 * Updates of the messages table (pg_stat_user_tables, its monthly partitions summed) since `before`: how many were HOT (written on
 * the row's own page, no index entries), which needs every indexed column unchanged and room on the page.
 */
async function messageUpdates(query, before) {
  if (before) await sleep(1500); // closed backends' counts reach the statistics within a second
  const [row] = await query(
    `${BENCH_SQL} select coalesce(sum(n_tup_upd), 0)::float8 as updated, coalesce(sum(n_tup_hot_upd), 0)::float8 as hot from pg_stat_user_tables
     where relid in (select inhrelid from pg_inherits where inhparent = 'messages'::regclass)`,
  );
  if (!before) return row;
  const updated = row.updated - before.updated;
  const hot = row.hot - before.hot;
  return { updated, hot, hotShare: updated ? hot / updated : 0 };
}

// ---------------------------------------------------------------------------------------------
// The benchmark

export async function benchSending({
  root,
  buildDir,
  messages = 100_000,
  sample = 10,
  bareMessages = 20_000,
  rate = 1000,
  statusDelaysMs = "200,800,3000",
  cpuProfile = true,
  timeoutSeconds = 900,
  accounts,
  /** "prepaid" (its wallet topped up for every message, the bulk's price held) or "postpaid" (each accepted message counted). */
  billingType = "postpaid",
  log = console.log,
}) {
  if (!postgresBinDir()) return { skipped: "PostgreSQL's binaries were not found (/usr/lib/postgresql/15/bin or pg_config --bindir)" };
  const inFlight = dispatcherInFlight(root);
  const burstSeconds = dispatcherBurstSeconds(root);
  const started = rootFor(root, buildDir);
  const postgres = await startPrivatePostgres({
    extraSettings: {
      shared_preload_libraries: "'pg_stat_statements'",
      "pg_stat_statements.max": "1000",
      // BENCH_TRACK_PLANNING=1: each statement's planning time too (its own column below).
      ...(process.env.BENCH_TRACK_PLANNING === "1" ? { "pg_stat_statements.track_planning": "on" } : {}),
    },
  });
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: postgres.url });
  const query = async (text, params) => (await client.query(text, params)).rows;
  const profileDir = mkdtempSync(path.join(os.tmpdir(), "jumbe-bench-prof-"));
  let server = null;
  let sandbox = null;
  try {
    const appSecret = randomBytes(24).toString("hex");
    const encryptionKey = randomBytes(32).toString("hex");
    const controlToken = randomBytes(24).toString("base64url");
    const sandboxPort = await freePort();
    const graphBase = `http://127.0.0.1:${sandboxPort}/sandbox/meta/graph`;
    // Jumbe first (it calls Graph only when asked), then the sandbox with Jumbe's address.
    server = await startServer({
      root: started.root,
      databaseUrl: postgres.url,
      nodeArgs: cpuProfile ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [],
      extraEnv: {
        RATE_LIMIT_MULTIPLIER: "1000000",
        META_APP_SECRET: appSecret,
        ENCRYPTION_KEY: encryptionKey,
        GRAPH_API_BASE_URL: graphBase,
        GRAPH_API_VERSION: GRAPH_VERSION,
      },
    });
    sandbox = await startSandbox(started.root, {
      PORT: String(sandboxPort),
      META_APP_SECRET: appSecret,
      META_SANDBOX_WEBHOOK_URL: `${server.baseUrl}/webhooks/whatsapp`,
      META_SANDBOX_STATUS_DELAYS_MS: statusDelaysMs,
      META_SANDBOX_THROUGHPUT: String(rate),
      // Every recipient is distinct, so the pair rate never applies; off, the sandbox need not keep
      // a bucket for each of 100,000 people (it sweeps them all on each send past 50,000).
      META_SANDBOX_PAIR_RATE: "0",
      SANDBOX_CONTROL_TOKEN: controlToken,
    });
    await client.connect();
    await query("create extension if not exists pg_stat_statements");
    const ready = await (await fetch(`${server.baseUrl}/readyz`)).json();
    if (ready.database !== "postgres") throw new Error(`the server runs on ${ready.database}, not PostgreSQL`);
    log(`  Jumbe at ${server.baseUrl} (PostgreSQL ${postgres.url}), the Meta sandbox at ${sandbox.base} (pid ${sandbox.pid})`);

    // The tenant: the demo individual account with a connected, registered number of its own.
    const [{ organization_id: organizationId }] = await query(`select organization_id from users where lower(email) = lower($1)`, [
      accounts.individual.email,
    ]);
    const metaAppId = (
      await (await fetch(`${sandbox.base}/sandbox/meta/control/state`, { headers: { "X-Sandbox-Token": controlToken } })).json()
    ).appId;
    const business = await sandboxBusiness(sandbox, { controlToken, appId: metaAppId, appSecret, name: "Bench Sending Ltd" });
    const bareBusiness = await sandboxBusiness(sandbox, { controlToken, appId: metaAppId, appSecret, name: "Bench Bare Loop Ltd" });
    await connectBenchNumber(query, { organizationId, business, encryptionKey, rate, name: "Bench Sending Ltd" });
    const [{ n: endpoints }] = await query(`select count(*)::int as n from webhook_endpoints where organization_id = $1`, [organizationId]);
    log(
      `  number ${business.phoneNumberId} (${business.displayPhoneNumber}) connected to the demo tenant; bucket ${rate}/s; webhooks out: ${endpoints ? "configured" : "none"}`,
    );

    const billing = await billingFor(query, { organizationId, billingType, messages });
    if (billing)
      log(
        `  billing: ${billing.type}, ${billing.priceCents} cents a message${billing.type === "prepaid" ? " from the wallet" : " (counted for the invoice)"}`,
      );

    // The sample, through the public API.
    const cookie = await signIn(server.baseUrl, accounts.individual);
    const apiKey = await apiKeyFor(server.baseUrl, cookie);
    const everyone = recipients(10_000_000, messages + bareMessages);
    const sampleTo = everyone.slice(0, sample);
    const bulkTo = everyone.slice(sample, messages);
    const bareTo = everyone.slice(messages);
    const sampleIds = [];
    for (const to of sampleTo) {
      const answer = await request(`${server.baseUrl}/api/v1/messages`, {
        method: "POST",
        headers: { Authorization: `Bearer ${apiKey}`, "Content-Type": "application/json" },
        body: JSON.stringify({ to, from: business.phoneNumberId, template: TEMPLATE.name, parameters: TEMPLATE.parameters }),
      });
      const body = JSON.parse(answer.body.toString("utf8"));
      if (answer.status !== 202 || body.status !== "queued")
        throw new Error(`POST /api/v1/messages answered ${answer.status}: ${answer.body.toString("utf8").slice(0, 300)}`);
      sampleIds.push(body.id);
    }
    const sampleStarted = performance.now();
    for (;;) {
      const [row] = await query(
        `${BENCH_SQL} select count(*) filter (where status = 'read')::int as n from messages where id = any($1::uuid[])`,
        [sampleIds],
      );
      if (row.n === sampleIds.length) break;
      if (performance.now() - sampleStarted > 60_000) throw new Error("the API's sample messages did not reach `read` within 60 s");
      await sleep(200);
    }
    log(
      `  ${sample} messages through POST /api/v1/messages: 202, then read after ${((performance.now() - sampleStarted) / 1000).toFixed(1)} s`,
    );
    const [sampleRow] = await query(`select payload from messages where id = $1`, [sampleIds[0]]);

    // The bare loop, first; Jumbe parks its statuses as unrouted, and is left to finish them.
    log(
      `  bare loop: ${bareTo.length.toLocaleString("en-US")} POST /${GRAPH_VERSION}/{phone-number-id}/messages, ${inFlight} in flight, paced at ${rate}/s ...`,
    );
    const bareCpuBefore = cpuOf([sandbox.pid, server.pid]);
    const bareProcessBefore = process.cpuUsage();
    const bare = await bareLoop({
      graph: business.graph.replace(/\/$/, ""),
      phoneNumberId: bareBusiness.phoneNumberId,
      token: bareBusiness.token,
      payload: sampleRow.payload,
      to: bareTo,
      inFlight,
      rate,
      burstSeconds,
    });
    const bareCpuAfter = cpuOf([sandbox.pid, server.pid]);
    const bareSelf = process.cpuUsage(bareProcessBefore);
    bare.cpuSeconds = {
      sandbox: (bareCpuAfter.get(sandbox.pid) ?? 0) - (bareCpuBefore.get(sandbox.pid) ?? 0),
      server: (bareCpuAfter.get(server.pid) ?? 0) - (bareCpuBefore.get(server.pid) ?? 0),
      loop: (bareSelf.user + bareSelf.system) / 1e6,
    };
    log(
      `    ${Math.round(bare.acceptedPerSecond).toLocaleString("en-US")} accepted/s (${bare.accepted} of ${bare.messages} in ${bare.seconds.toFixed(1)} s)`,
    );
    await waitForQuiet(query, 120_000);

    // The bulk: one INSERT that copies the API's row for each recipient (as queueMessage's insert).
    await query(`${BENCH_SQL} select pg_stat_statements_reset()`);
    const updatesBefore = await messageUpdates(query);
    log(`  queueing ${bulkTo.length.toLocaleString("en-US")} messages in one INSERT copying the API's row ...`);
    const insertStarted = performance.now();
    // ANALYZE in the same transaction (it counts the transaction's own rows), so the run starts with
    // statistics, as a live table always has them; a table grown from nothing to 100,000 rows by one
    // statement would otherwise have none until autovacuum's next round, and other plans.
    await query("begin");
    // A prepaid wallet holds the bulk's price first, as the feeder holds a batch's (the ledger's own statement).
    if (billing?.type === "prepaid")
      await walletEntry(query, {
        organizationId,
        kind: "hold",
        amountCents: 0,
        heldCents: bulkTo.length * billing.priceCents,
        messageCount: bulkTo.length,
        description: `${bulkTo.length} messages queued (bench)`,
      });
    // The charge columns as queueMessage stores them: held at the price (prepaid) or unbilled (postpaid).
    const [inserted] = await query(
      `${BENCH_SQL} with queued as (
         insert into messages (organization_id, contact_id, direction, status, body, phone_number_id, message_type, payload,
                               source, recipient_phone, template_id, context_wamid, next_attempt_at, pricing_category, price_cents, charge_state)
         select s.organization_id,
                (select id from contacts where organization_id = s.organization_id and (phone = r.phone or wa_id = substr(r.phone, 2)) limit 1),
                'outbound', 'queued', s.body, s.phone_number_id, s.message_type, jsonb_set(s.payload, '{to}', to_jsonb(r.phone)),
                s.source, r.phone, s.template_id, s.context_wamid, now(), s.pricing_category, s.price_cents,
                case when s.charge_state is null then null when s.price_cents is null then 'unbilled' else 'held' end
         from messages s, unnest($2::text[]) as r(phone)
         where s.id = $1
         returning 1
       )
       select count(*)::int as n, now()::text as created_at from queued`,
      [sampleIds[0], bulkTo],
    );
    await query(`${BENCH_SQL} analyze messages`);
    await query("commit");
    const [{ t0 }] = await query(`${BENCH_SQL} select clock_timestamp()::text as t0`);
    const t0Us = nowUs();
    const insertSeconds = (performance.now() - insertStarted) / 1000;
    if (inserted.n !== bulkTo.length) throw new Error(`the INSERT queued ${inserted.n} messages, not ${bulkTo.length}`);
    log(`    queued in ${insertSeconds.toFixed(1)} s; following the run ...`);
    const sampler = sampleBackends(postgres.url);

    // Follow it: every 2 s, how far it is (and stop once every message is final and nothing waits).
    const pidsNow = () => [server.pid, sandbox.pid, ...postgres.processIds()];
    const cpuBefore = cpuOf(pidsNow());
    const selfBefore = process.cpuUsage();
    const machineBefore = machineBusySeconds();
    const wallStart = performance.now();
    const progress = [];
    let done = false;
    let lastLog = 0;
    // The count of every message (100 ms or more at 100,000, on the same 2 CPUs as what is measured)
    // each 10 s and once nothing waits to be sent; in between only the waiting ones, by their index.
    while (!done) {
      await sleep(2000);
      const at = (performance.now() - wallStart) / 1000;
      if (at - lastLog < 10 && at <= timeoutSeconds) {
        const [w] = await query(
          `${BENCH_SQL} select count(*)::int as waiting from messages
           where organization_id = $1 and phone_number_id = $2 and direction = 'outbound' and accepted_at is null and failed_at is null`,
          [organizationId, business.phoneNumberId],
        );
        if (w.waiting > 0) continue;
      }
      const [p] = await query(
        `${BENCH_SQL} select count(*) filter (where accepted_at is not null)::int as accepted,
                count(*) filter (where status = 'read')::int as read,
                count(*) filter (where status = 'failed')::int as failed,
                (select count(*)::int from webhook_events where processed_at is null) as unprocessed
         from messages where organization_id = $1 and direction = 'outbound' and phone_number_id = $2`,
        [organizationId, business.phoneNumberId],
      );
      progress.push({ at, ...p });
      if (at - lastLog >= 10) {
        lastLog = at;
        log(
          `    ${at.toFixed(0)} s: ${p.accepted.toLocaleString("en-US")} accepted, ${p.read.toLocaleString("en-US")} read, ${p.failed} failed, ${p.unprocessed} webhook deliveries waiting`,
        );
      }
      done = p.read + p.failed === messages && p.unprocessed === 0;
      if (at > timeoutSeconds) break;
    }
    const wallSeconds = (performance.now() - wallStart) / 1000;
    const t1Us = nowUs();
    const backends = await sampler.stop();
    const cpuAfter = cpuOf(pidsNow());
    const self = process.cpuUsage(selfBefore);
    const machineSeconds = machineBusySeconds() - machineBefore;
    const one = (pid) => (cpuAfter.get(pid) ?? 0) - (cpuBefore.get(pid) ?? 0);
    const postgresCpu = cpuBetween(
      new Map([...cpuBefore].filter(([pid]) => pid !== server.pid && pid !== sandbox.pid)),
      new Map([...cpuAfter].filter(([pid]) => pid !== server.pid && pid !== sandbox.pid)),
    );
    const cpu = {
      wallSeconds,
      server: one(server.pid),
      sandbox: one(sandbox.pid),
      postgres: postgresCpu,
      bench: (self.user + self.system) / 1e6,
      machine: machineSeconds,
    };
    cpu.other = Math.max(0, cpu.machine - cpu.server - cpu.sandbox - cpu.postgres - cpu.bench);

    const statements = await statementTimes(query);
    const figures = await runFigures(query, {
      organizationId,
      phoneNumberId: business.phoneNumberId,
      t0,
      bulkCreatedAt: inserted.created_at,
    });
    const checks = await verify(query, {
      organizationId,
      phoneNumberId: business.phoneNumberId,
      messages,
      sampleId: sampleIds[0],
      sandbox,
      controlToken,
    });
    log(`    done after ${wallSeconds.toFixed(1)} s: ${checks.ok ? "every message read, once" : "CHECKS FAILED"}`);
    if (billing) {
      billing.after = await billingAfter(query, { organizationId, phoneNumberId: business.phoneNumberId, billing });
      log(
        `    billing: ${billing.after.consistent ? `every message ${billing.type === "prepaid" ? "charged" : "counted"} once, the wallet equals its ledger` : "BILLING CHECKS FAILED"}`,
      );
    }

    // The profile is written when the server exits (and its backends, closing, report their counts).
    await server.stop();
    const updates = await messageUpdates(query, updatesBefore);
    let profile = null;
    if (cpuProfile) {
      const file = readdirSync(profileDir).find((f) => f.endsWith(".cpuprofile"));
      profile = file
        ? summariseProfile(path.join(profileDir, file), { fromUs: t0Us, toUs: t1Us })
        : { problem: "no .cpuprofile was written" };
    }
    return {
      what: "queued -> accepted by Meta -> sent, delivered, read by status webhooks; PostgreSQL (private cluster, fsync off)",
      messages,
      sample,
      bulkInsert:
        "one INSERT ... SELECT copying the row POST /api/v1/messages wrote (queueMessage's columns), with `to` and recipient_phone per message",
      rate,
      burstSeconds,
      inFlight,
      statusDelaysMs,
      sandbox: { throughput: rate, pairRate: false, batchWindowMs: 20 },
      insertSeconds,
      bare,
      ...figures,
      ratioToBare: figures.acceptedPerSecond / bare.acceptedPerSecond,
      cpu,
      backends,
      statements,
      updates,
      profile,
      progress,
      checks,
      billing,
    };
  } finally {
    await client.end().catch(() => {});
    await sandbox?.stop();
    await server?.stop();
    postgres.destroy();
    started.remove();
    rmSync(profileDir, { recursive: true, force: true });
  }
}

/**
 * One change of a wallet and its ledger row, in the statement app/.server/domains/billing/ledger.ts
 * changeWallet() sends (without its alert check: the bench's tenant has no thresholds).
 */
async function walletEntry(query, { organizationId, kind, amountCents, heldCents = 0, messageCount = null, description }) {
  const rows = await query(
    `${BENCH_SQL} with changed as (
       update wallets set balance_cents = balance_cents + $2, held_cents = held_cents + $3, updated_at = now()
       where organization_id = $1 and held_cents + $3 >= 0 and balance_cents + $2 >= held_cents + $3
       returning balance_cents, held_cents)
     insert into wallet_entries (organization_id, kind, amount_cents, held_cents, balance_after_cents, held_after_cents, message_count, description)
     select $1, $4, $2, $3, changed.balance_cents, changed.held_cents, $5, $6 from changed
     returning id`,
    [organizationId, amountCents, heldCents, kind, messageCount, description],
  );
  if (!rows.length) throw new Error(`the wallet refused a ${kind} of ${amountCents} (held ${heldCents})`);
}

/** The tenant on the billing type asked for (its plan's price); a prepaid wallet topped up for every message and some. */
async function billingFor(query, { organizationId, billingType, messages }) {
  if (!["prepaid", "postpaid"].includes(billingType)) throw new Error(`billing type ${billingType}: prepaid or postpaid`);
  await query(`${BENCH_SQL} update organizations set billing_type = $2 where id = $1`, [organizationId, billingType]);
  const [{ price }] = await query(
    `${BENCH_SQL} select coalesce(p.message_price_cents, 200) as price from organizations o
     left join billing_plans p on p.code = lower(o.plan_type) and p.billing_type = o.billing_type where o.id = $1`,
    [organizationId],
  );
  const priceCents = Number(price);
  if (billingType === "prepaid")
    await walletEntry(query, { organizationId, kind: "topup", amountCents: (messages + 100) * priceCents, description: "Bench top-up" });
  const [wallet] = await query(`${BENCH_SQL} select balance_cents::text as balance from wallets where organization_id = $1`, [
    organizationId,
  ]);
  return { type: billingType, priceCents: billingType === "prepaid" ? priceCents : 0, balanceBefore: Number(wallet.balance) };
}

/** After the run: every accepted message charged (prepaid) or counted (postpaid) once, the wallet equal to its ledger. */
async function billingAfter(query, { organizationId, phoneNumberId, billing }) {
  const [row] = await query(
    `${BENCH_SQL} select w.balance_cents::text as balance, w.held_cents::text as held,
            (select sum(amount_cents)::text from wallet_entries e where e.organization_id = w.organization_id) as ledger_balance,
            (select sum(held_cents)::text from wallet_entries e where e.organization_id = w.organization_id) as ledger_held,
            (select count(*)::int from wallet_entries e where e.organization_id = w.organization_id and e.kind = 'charge') as charge_rows,
            (select count(*)::int from messages m where m.organization_id = w.organization_id and m.phone_number_id = $2
               and m.charge_state = $3) as settled,
            (select count(*)::int from messages m where m.organization_id = w.organization_id and m.phone_number_id = $2
               and m.accepted_at is not null) as accepted,
            (select coalesce(sum(messages), 0)::int from billing_usage_daily u where u.organization_id = w.organization_id
               and u.phone_number_id = $2) as usage
     from wallets w where w.organization_id = $1`,
    [organizationId, phoneNumberId, billing.type === "prepaid" ? "charged" : "counted"],
  );
  const charged = billing.balanceBefore - Number(row.balance);
  const consistent =
    row.balance === row.ledger_balance &&
    row.held === row.ledger_held &&
    row.settled === row.accepted &&
    row.usage === row.accepted &&
    charged === row.accepted * billing.priceCents;
  return { ...row, chargedCents: charged, consistent };
}

/**
 * What the database's client backends are doing, every 100 ms over the run (pg_stat_activity):
 * running a statement, waiting for a lock (another transaction holds the row), or idle in a
 * transaction (the application is between two statements of it).
 */
function sampleBackends(url) {
  let stopped = false;
  const counts = { samples: 0, active: 0, lockWait: 0, otherWait: 0, idleInTransaction: 0, lockTypes: {} };
  const run = (async () => {
    const { default: pg } = await import("pg");
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      while (!stopped) {
        const { rows } = await client.query(
          `${BENCH_SQL} select state, wait_event_type, wait_event from pg_stat_activity
           where backend_type = 'client backend' and pid <> pg_backend_pid() and query not like '/* bench:%' and datname = current_database()`,
        );
        counts.samples++;
        for (const r of rows) {
          if (r.state === "idle in transaction") counts.idleInTransaction++;
          else if (r.state !== "active") continue;
          else if (r.wait_event_type === "Lock") {
            counts.lockWait++;
            counts.lockTypes[r.wait_event] = (counts.lockTypes[r.wait_event] ?? 0) + 1;
          } else if (r.wait_event_type && r.wait_event_type !== "Client") counts.otherWait++;
          else counts.active++;
        }
        await sleep(100);
      }
    } finally {
      await client.end();
    }
  })();
  return {
    async stop() {
      stopped = true;
      await run.catch(() => {});
      const per = (n) => (counts.samples ? n / counts.samples : null);
      // Average number of backends in each state at any moment.
      return {
        samples: counts.samples,
        running: per(counts.active),
        lockWait: per(counts.lockWait),
        otherWait: per(counts.otherWait),
        idleInTransaction: per(counts.idleInTransaction),
        lockTypes: counts.lockTypes,
      };
    },
  };
}

/** Waits until no webhook delivery waits to be processed (for a few polls in a row). */
async function waitForQuiet(query, timeoutMs) {
  const deadline = performance.now() + timeoutMs;
  let quiet = 0;
  while (performance.now() < deadline && quiet < 3) {
    await sleep(500);
    const [row] = await query(`${BENCH_SQL} select count(*)::int as n from webhook_events where processed_at is null`);
    quiet = row.n === 0 ? quiet + 1 : 0;
  }
}

const quantile = (sorted, q) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : null);

/** The run's figures, from the rows' own times (database clock) after the run. */
async function runFigures(query, { organizationId, phoneNumberId, t0, bulkCreatedAt }) {
  const bulk = `organization_id = $1 and phone_number_id = $2 and direction = 'outbound' and created_at = $3::timestamptz`;
  const params = [organizationId, phoneNumberId, bulkCreatedAt];
  const accepted = (
    await query(
      `${BENCH_SQL} select extract(epoch from accepted_at - $4::timestamptz)::float8 as s from messages where ${bulk} and accepted_at is not null order by accepted_at`,
      [...params, t0],
    )
  ).map((r) => r.s);
  const n = accepted.length;
  const last = accepted.at(-1) ?? null;
  // The middle 80%: the pace once under way, without the start (the first poll, the bucket's
  // initial burst) and the tail.
  const steady =
    n > 10 ? (Math.floor(0.9 * n) - Math.floor(0.1 * n)) / (accepted[Math.floor(0.9 * n)] - accepted[Math.floor(0.1 * n)]) : null;
  const perSecond = [];
  for (const s of accepted) perSecond[Math.max(0, Math.floor(s))] = (perSecond[Math.max(0, Math.floor(s))] ?? 0) + 1;
  const batches = await query(
    `${BENCH_SQL} select accepted_at, count(*)::int as n from messages where ${bulk} and accepted_at is not null group by accepted_at order by accepted_at`,
    params,
  );
  const gaps = [];
  for (let i = 1; i < batches.length; i++) gaps.push(batches[i].accepted_at - batches[i - 1].accepted_at);
  gaps.sort((a, b) => a - b);
  const sizes = batches.map((b) => b.n).sort((a, b) => a - b);

  // Status webhooks processed into messages: message_statuses rows are written in the same
  // transaction that moves the messages.
  const statusTimes = (
    await query(
      `${BENCH_SQL} select status, extract(epoch from created_at - $2::timestamptz)::float8 as s from message_statuses
       where organization_id = $1 and created_at >= $2::timestamptz order by created_at`,
      [organizationId, t0],
    )
  ).map((r) => r.s);
  const inSending = last === null ? 0 : statusTimes.filter((s) => s <= last).length;
  const [finals] = await query(
    `${BENCH_SQL} select extract(epoch from max(s.created_at) - $3::timestamptz)::float8 as final_s
     from message_statuses s join messages m on m.organization_id = s.organization_id and m.wamid = s.wamid
     where m.organization_id = $1 and m.phone_number_id = $2 and s.status = m.status`,
    [organizationId, phoneNumberId, t0],
  );
  const webhookPosts = await query(
    `${BENCH_SQL} select extract(epoch from received_at - $1::timestamptz)::float8 as s,
            extract(epoch from processed_at - received_at)::float8 * 1000 as lag_ms, length(body) as bytes
     from webhook_events where received_at >= $1::timestamptz`,
    [t0],
  );
  const lags = webhookPosts
    .map((r) => r.lag_ms)
    .filter((v) => v !== null)
    .sort((a, b) => a - b);
  const statusesPerSecond = [];
  for (const s of statusTimes) statusesPerSecond[Math.max(0, Math.floor(s))] = (statusesPerSecond[Math.max(0, Math.floor(s))] ?? 0) + 1;
  return {
    accepted: n,
    firstAcceptedSeconds: accepted[0] ?? null,
    lastAcceptedSeconds: last,
    acceptedPerSecond: last ? n / last : null,
    steadyAcceptedPerSecond: steady,
    acceptedEachSecond: Array.from(perSecond, (v) => v ?? 0),
    batches: {
      count: batches.length,
      meanSize: n / Math.max(1, batches.length),
      p50Size: quantile(sizes, 0.5),
      p50GapMs: quantile(gaps, 0.5),
      meanGapMs: gaps.length ? gaps.reduce((a, b) => a + b, 0) / gaps.length : null,
    },
    statuses: {
      processed: statusTimes.length,
      processedWhileSending: inSending,
      perSecondWhileSending: last ? inSending / last : null,
      perSecondOverall: statusTimes.length / Math.max(1e-9, statusTimes.at(-1) ?? 1),
      processedEachSecond: Array.from(statusesPerSecond, (v) => v ?? 0),
    },
    webhookPosts: {
      count: webhookPosts.length,
      perSecondWhileSending: last ? webhookPosts.filter((r) => r.s <= last).length / last : null,
      statusesPerPost: statusTimes.length / Math.max(1, webhookPosts.length),
      meanBytes: webhookPosts.length ? webhookPosts.reduce((a, r) => a + Number(r.bytes), 0) / webhookPosts.length : null,
      ingestLagMs: { p50: quantile(lags, 0.5), p99: quantile(lags, 0.99), max: lags.at(-1) ?? null },
    },
    finalStatusesSeconds: finals.final_s,
  };
}

/** Every message right at the end: read, once, with its times and pricing, the rows alike. */
async function verify(query, { organizationId, phoneNumberId, messages, sampleId, sandbox, controlToken }) {
  const scope = `organization_id = $1 and phone_number_id = $2 and direction = 'outbound'`;
  const [counts] = await query(
    `${BENCH_SQL} select count(*)::int as total,
            count(*) filter (where status = 'read')::int as read,
            count(*) filter (where status = 'failed' or failed_at is not null or error_code is not null)::int as failed,
            count(*) filter (where wamid is null or accepted_at is null or sent_at is null or delivered_at is null or read_at is null)::int as missing_times,
            count(distinct wamid)::int as wamids,
            count(*) filter (where attempts > 1)::int as retried,
            count(*) filter (where billable is distinct from true or pricing_type is distinct from 'regular' or pricing_category is distinct from 'utility')::int as pricing_off
     from messages where ${scope}`,
    [organizationId, phoneNumberId],
  );
  // A second send of one message would leave statuses under a wamid no message has.
  const [statuses] = await query(
    `${BENCH_SQL} select count(*)::int as rows, count(distinct wamid)::int as wamids,
            count(*) filter (where not exists (select 1 from message_wamids k join messages m on m.id = k.message_id and m.created_at = k.created_at
                                               where k.organization_id = s.organization_id and k.wamid = s.wamid))::int as orphans
     from message_statuses s where organization_id = $1 and phone_number_id = $2`,
    [organizationId, phoneNumberId],
  );
  // Every row alike but for what differs per message (ids, times, the recipient and Meta's ids).
  const varying = [
    "id",
    "created_at",
    "next_attempt_at",
    "recipient_phone",
    "recipient_wa_id",
    "payload",
    "wamid",
    "accepted_at",
    "sent_at",
    "delivered_at",
    "read_at",
    "locked_until",
    "seq",
  ];
  const [alike] = await query(
    `${BENCH_SQL} select count(distinct (to_jsonb(m) - $3::text[]))::int as shapes, count(distinct (m.payload - 'to'))::int as payloads,
            count(*) filter (where m.payload ->> 'to' is distinct from m.recipient_phone)::int as to_mismatch,
            (select to_jsonb(s) - $3::text[] from messages s where s.id = $4) as sample
     from messages m where ${scope.replace(/organization_id|phone_number_id|direction/g, (c) => `m.${c}`)}`,
    [organizationId, phoneNumberId, varying, sampleId],
  );
  const [events] = await query(
    `${BENCH_SQL} select count(*)::int as n, count(*) filter (where outcome is distinct from 'processed')::int as not_processed from webhook_events`,
  );
  const [jobs] = await query(`${BENCH_SQL} select count(*) filter (where failed_at is not null)::int as failed from jobs`);
  // Which jobs gave up, and why: a failed job makes the run WRONG, and its queue says where to look.
  const failedJobKinds = await query(
    `${BENCH_SQL} select queue, left(coalesce(last_error, ''), 160) as error, count(*)::int as n from jobs
     where failed_at is not null group by 1, 2 order by 3 desc limit 5`,
  );
  // The sandbox keeps its last 10,000 messages: each must be one of Jumbe's, sent once.
  const atMeta = await json(
    await fetch(`${sandbox.base}/sandbox/meta/control/messages?phoneNumberId=${phoneNumberId}`, {
      headers: { "X-Sandbox-Token": controlToken },
    }),
    "GET control/messages",
  );
  const kept = atMeta.messages ?? [];
  const callbacks = new Set(kept.map((m) => m.callbackData));
  const known = kept.length
    ? (
        await query(
          `${BENCH_SQL} select count(*)::int as n from messages m join unnest($2::text[], $3::text[]) as k(wamid, callback)
           on m.wamid = k.wamid and m.id::text = split_part(k.callback, ' ', 1) where m.organization_id = $1`, // "<id> <created_at>" (decision 183)
          [organizationId, kept.map((m) => m.wamid), kept.map((m) => m.callbackData ?? "")],
        )
      )[0].n
    : 0;
  const sandboxLadder = kept.filter((m) => m.statuses.join(",") !== "sent,delivered,read").length;
  const result = {
    messages: counts.total,
    read: counts.read,
    failed: counts.failed,
    missingTimes: counts.missing_times,
    distinctWamids: counts.wamids,
    retried: counts.retried,
    pricingOff: counts.pricing_off,
    statusRows: statuses.rows,
    statusWamids: statuses.wamids,
    orphanStatuses: statuses.orphans,
    rowShapes: alike.shapes,
    payloadShapes: alike.payloads,
    toMismatch: alike.to_mismatch,
    webhookEvents: events.n,
    webhookEventsNotProcessed: events.not_processed,
    failedJobs: jobs.failed,
    failedJobKinds,
    sandboxKept: kept.length,
    sandboxKeptMatched: known,
    sandboxKeptDistinctCallbacks: callbacks.size,
    sandboxKeptNotRead: sandboxLadder,
  };
  result.ok =
    counts.total === messages &&
    counts.read === messages &&
    counts.failed === 0 &&
    counts.missing_times === 0 &&
    counts.wamids === messages &&
    counts.pricing_off === 0 &&
    statuses.rows === 3 * messages &&
    statuses.wamids === messages &&
    statuses.orphans === 0 &&
    alike.shapes === 1 &&
    alike.payloads === 1 &&
    alike.to_mismatch === 0 &&
    events.not_processed === 0 &&
    jobs.failed === 0 &&
    known === kept.length &&
    callbacks.size === kept.length &&
    sandboxLadder === 0;
  return result;
}

// ---------------------------------------------------------------------------------------------
// Report

const int = (v) => (typeof v === "number" && Number.isFinite(v) ? Math.round(v).toLocaleString("en-US") : "-");
const fixed = (v, d = 1) => (typeof v === "number" && Number.isFinite(v) ? v.toFixed(d) : "-");
const pct = (v) => (typeof v === "number" && Number.isFinite(v) ? `${(v * 100).toFixed(1)}%` : "-");

export function formatSending(report, { table }) {
  const lines = ["\nSending pipeline (queued -> Meta sandbox -> status webhooks; PostgreSQL)"];
  if (!report) return "";
  if (report.skipped) return `${lines[0]}\n  skipped: ${report.skipped}`;
  if (report.problem) return `${lines[0]}\n  not measured: ${report.problem}`;
  const r = report;
  lines.push(
    `  ${int(r.messages)} template messages to distinct recipients: ${r.sample} through POST /api/v1/messages, the rest by ${r.bulkInsert}.`,
    `  Number's bucket ${int(r.rate)}/s (sending_buckets.rate), sandbox throughput ${int(r.sandbox.throughput)}/s, pair rate off (distinct recipients), status delays ${r.statusDelaysMs} ms; the dispatcher's Graph calls in flight: ${r.inFlight}; both buckets hold ${r.burstSeconds ?? 1} s of the rate.`,
  );
  lines.push(
    table(
      ["", "msgs/s accepted", "middle 80% /s", "last accepted s", "p50 ms", "p99 ms", "CPU s (sandbox/server/loop)"],
      [
        [
          "bare loop (same HTTP calls, node:http)",
          int(r.bare.acceptedPerSecond),
          "-",
          fixed(r.bare.seconds),
          fixed(r.bare.latencyMs.p50, 0),
          fixed(r.bare.latencyMs.p99, 0),
          `${fixed(r.bare.cpuSeconds.sandbox)}/${fixed(r.bare.cpuSeconds.server)}/${fixed(r.bare.cpuSeconds.loop)}`,
        ],
        [
          "Jumbe (queued -> accepted_at)",
          int(r.acceptedPerSecond),
          int(r.steadyAcceptedPerSecond),
          fixed(r.lastAcceptedSeconds),
          "-",
          "-",
          `${fixed(r.cpu.sandbox)}/${fixed(r.cpu.server)}/-`,
        ],
      ],
    ),
  );
  lines.push(
    `  Ratio to the bare loop: ${fixed(r.ratioToBare, 2)} (goal: 1,000 msg/s sustained for 100,000 messages: ${r.acceptedPerSecond >= 1000 * 0.98 && r.messages >= 100_000 ? "met" : "not met"} here).`,
    `  Status webhooks absorbed while sending: ${int(r.statuses.perSecondWhileSending)} statuses/s processed into messages (${int(r.webhookPosts.perSecondWhileSending)} POSTs/s, ${fixed(r.webhookPosts.statusesPerPost)} statuses a POST); ingest lag (received -> processed) p50 ${int(r.webhookPosts.ingestLagMs.p50)} ms, p99 ${int(r.webhookPosts.ingestLagMs.p99)} ms, max ${int(r.webhookPosts.ingestLagMs.max)} ms.`,
    `  Final statuses: the last message read ${fixed(r.finalStatusesSeconds)} s after queueing (${fixed(r.finalStatusesSeconds - r.lastAcceptedSeconds)} s after the last accept; the ladder's read comes ${r.statusDelaysMs.split(",")[2]} ms after acceptance).`,
    `  Settles (distinct accepted_at times, one per settle transaction): ${int(r.batches.count)}, ${fixed(r.batches.meanSize)} messages each on average (p50 ${int(r.batches.p50Size)}), one every ${int(r.batches.meanGapMs)} ms (p50 ${int(r.batches.p50GapMs)} ms). One INSERT queued them in ${fixed(r.insertSeconds)} s.`,
  );
  const tens = [];
  (r.acceptedEachSecond ?? []).forEach((n, i) => (tens[Math.floor(i / 10)] = (tens[Math.floor(i / 10)] ?? 0) + n));
  lines.push(`  Accepted per second, each 10 s from queueing: ${tens.map((n) => int(n / 10)).join(" ")}.`);
  const c = r.cpu;
  lines.push(
    `  CPU over the ${fixed(c.wallSeconds)} s run (cores): server ${fixed(c.server / c.wallSeconds, 2)}, sandbox ${fixed(c.sandbox / c.wallSeconds, 2)}, PostgreSQL ${fixed(c.postgres / c.wallSeconds, 2)}, bench ${fixed(c.bench / c.wallSeconds, 2)}, other ${fixed(c.other / c.wallSeconds, 2)}; per message: server ${fixed((c.server * 1000) / r.messages, 2)} ms, PostgreSQL ${fixed((c.postgres * 1000) / r.messages, 2)} ms, sandbox ${fixed((c.sandbox * 1000) / r.messages, 2)} ms.`,
  );
  const b = r.backends;
  if (b)
    lines.push(
      `  PostgreSQL backends at any moment (pg_stat_activity every 100 ms): ${fixed(b.running, 2)} running a statement, ${fixed(b.lockWait, 2)} waiting for a lock held by another transaction (${
        Object.entries(b.lockTypes ?? {})
          .map(([k, v]) => `${k} ${v}`)
          .join(", ") || "none"
      }), ${fixed(b.otherWait, 2)} waiting on I/O or internal locks, ${fixed(b.idleInTransaction, 2)} idle in a transaction (the server between two statements of it).`,
    );
  if (r.updates)
    lines.push(
      `\n  Updates of messages over the run: ${int(r.updates.updated)}, of which HOT (on the row's page, no index entries) ${int(r.updates.hot)} (${pct(r.updates.hotShare)})`,
    );
  lines.push(`\n  Database time by statement (pg_stat_statements over the run: ${int(r.statements.totalMs)} ms in all)`);
  // Planning is counted only with BENCH_TRACK_PLANNING=1 (zero otherwise): shown apart, not in the shares.
  const planned = r.statements.kinds.some((k) => k.planMs > 0);
  const compiled = r.statements.kinds.some((k) => k.jitMs > 0);
  lines.push(
    table(
      [
        "statement",
        "calls",
        "total ms",
        "mean ms",
        "rows",
        "share",
        ...(planned ? ["plan ms", "mean plan ms"] : []),
        ...(compiled ? ["JIT ms", "JIT functions"] : []),
      ],
      r.statements.kinds.map((k) => [
        k.kind,
        int(k.calls),
        int(k.ms),
        fixed(k.meanMs, 2),
        int(k.rows),
        pct(k.ms / r.statements.totalMs),
        ...(planned ? [int(k.planMs ?? 0), fixed(k.calls ? (k.planMs ?? 0) / k.calls : 0, 2)] : []),
        ...(compiled ? [int(k.jitMs ?? 0), int(k.jitFunctions ?? 0)] : []),
      ]),
    ),
  );
  if (r.profile && !r.profile.problem) {
    const p = r.profile;
    lines.push(
      `\n  Server CPU profile (--cpu-prof, samples in the ${p.window}: ${fixed(p.busySeconds)} s busy of ${fixed(p.sampledSeconds)} s)`,
    );
    lines.push(
      table(
        ["where", "s", "share of busy"],
        p.categories.filter((x) => x.category !== "idle").map((x) => [x.category, fixed(x.seconds, 2), pct(x.shareOfBusy)]),
      ),
    );
    lines.push(
      table(
        ["top functions (self)", "s", "share of busy"],
        p.topFunctions.slice(0, 12).map((f) => [f.name, fixed(f.seconds, 2), pct(f.shareOfBusy)]),
      ),
    );
    lines.push(
      table(
        ["pipeline function (inclusive, synchronous part)", "s", "share of busy"],
        p.pipelineInclusive.map((f) => [f.name, fixed(f.seconds, 2), pct(f.shareOfBusy)]),
      ),
    );
  } else if (r.profile?.problem) lines.push(`  CPU profile: ${r.profile.problem}`);
  const k = r.checks;
  lines.push(
    `\n  Checks: ${int(k.messages)} messages, ${int(k.read)} read, ${k.failed} failed, ${k.missingTimes} without a time, ${int(k.distinctWamids)} distinct wamids, ${k.retried} retried, ${k.pricingOff} with other pricing; ` +
      `${int(k.statusRows)} status rows for ${int(k.statusWamids)} wamids, ${k.orphanStatuses} under a wamid no message has (a second send); rows alike: ${k.rowShapes === 1 && k.payloadShapes === 1 ? "yes" : `NO (${k.rowShapes} shapes, ${k.payloadShapes} payloads)`}; ` +
      `${int(k.webhookEvents)} webhook deliveries, ${k.webhookEventsNotProcessed} not processed; ${k.failedJobs} failed jobs; the sandbox's last ${int(k.sandboxKept)} sends: ${int(k.sandboxKeptMatched)} matched to Jumbe's message and wamid, ${int(k.sandboxKeptDistinctCallbacks)} distinct, ${k.sandboxKeptNotRead} not sent/delivered/read -> ${k.ok ? "all right" : "WRONG"}.`,
  );
  for (const kind of k.failedJobKinds ?? []) lines.push(`    failed jobs: ${kind.n} in ${kind.queue}: ${kind.error}`);
  const paid = r.billing?.after;
  if (paid)
    lines.push(
      `  Billing (${r.billing.type}): ${int(paid.settled)} of ${int(paid.accepted)} accepted messages ${r.billing.type === "prepaid" ? "charged" : "counted"}, usage ${int(paid.usage)}, ` +
        `${int(paid.charge_rows)} charge rows, ${int(paid.chargedCents)} cents from the wallet; the wallet ${paid.balance} (held ${paid.held}) and its ledger ${paid.ledger_balance} (${paid.ledger_held}) -> ${paid.consistent ? "all right" : "WRONG"}.`,
    );
  return lines.join("\n");
}
