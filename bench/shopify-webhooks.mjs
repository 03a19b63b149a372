// POST /webhooks/shopify under load (issue 45, decision 084; bound to its shop, issue 71, decision 098):
// how many signed Shopify deliveries a second the production build acknowledges, each stored (event
// row and its job, one transaction) before its 200, beside bare Node's http answering the same
// requests in the same run, and how many the job workers process meanwhile.
//
//   - the production build on PGlite (and on PostgreSQL with DATABASE_URL set), as a demo host;
//   - the demo business connects a test shop through the Shopify sandbox's install page, over plain
//     HTTP without JavaScript, so every delivery is routed to a tenant and stored;
//   - the shop's orders are made first in the sandbox (its control API's order import, as the
//     merchant's own orders, no webhook sent), one for every delivery the warm-up and the measured
//     run can post: every request is the `orders/create` of another of those orders, so each is a
//     new event (decision 098 keys a delivery by its signed body: shop, topic, id, updated_at), and
//     the job's confirmation (one GraphQL `nodes` call per shop and pass) finds each order the shop's
//     own, so processing runs as it does for a real shop. The pool never wraps round: a run that
//     would post more deliveries than there are orders fails (raise --pool);
//   - the bodies are signed with the server's SHOPIFY_CLIENT_SECRET before the run so the load
//     generator copies bytes; each post carries its own X-Shopify-Event-Id (which nothing reads);
//   - after the run the server is stopped and its database read: stored events = acknowledged ones
//     (nothing acknowledged was lost, nothing stored twice), a replay of 1,000 already-stored
//     deliveries under fresh X-Shopify-Event-Ids adds none, and no event was left `ignored` or
//     `skipped` as not confirmed by its shop (any is a failure).
//
//   - processing: the job workers turn the stored events into outcomes meanwhile (--workers 2); the
//     events processed while the measured run lasted (processed_at within it) over its length say
//     whether processing keeps up with the intake, and the backlog left when the server stopped.
//     The demo business's "Order created" mapping is turned off first (--mapping off, the default:
//     each event is confirmed with the shop, read, its mapping looked up and its outcome written, no
//     message); --mapping on keeps the demo's order confirmation, so each event queues a template
//     message (until the demo wallet runs dry: then "insufficient balance" is the outcome).
//
//   node bench/shopify-webhooks.mjs [--duration 10] [--connections 16] [--workers 2] [--mapping off] [--pool N]   (DATABASE_URL for PostgreSQL)
import { createHmac, randomBytes, randomUUID } from "node:crypto";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import { startBareServer } from "./lib/bare-server.mjs";
import { request, signIn } from "./lib/http.mjs";
import { startServer } from "./lib/server.mjs";
import { withDatabase } from "./lib/database.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const DURATION = arg("duration", 10);
const mappingIndex = process.argv.indexOf("--mapping");
const MAPPING = mappingIndex > 0 ? process.argv[mappingIndex + 1] : "off";
const CONNECTIONS = arg("connections", 16);
const PATH = "/webhooks/shopify";
const DEMO = { email: "demo@jumbe.demo", password: "JumbeDemo#2026" };

const secret = `shpss_${randomBytes(16).toString("hex")}`;
const shop = `bench-${randomBytes(3).toString("hex")}.myshopify.com`;

const CONTROL_TOKEN = randomBytes(24).toString("base64url");
/** Orders a sandbox import call takes at most (sandbox/shopify/control.ts). */
const IMPORT_BATCH = 1000;

/** A customer's Kenyan mobile, one per order. */
const phoneOf = (i) => `+2547${String(10000000 + i).slice(-8)}`;

/**
 * `count` orders made in the connected shop through the sandbox's control API (no webhook sent), and
 * for each its `orders/create` body: the order's own id, number and times (so the shop knows it) and
 * the fields processing reads, as compact as the earlier runs' bodies.
 */
async function importOrders(baseUrl, count) {
  const bodies = [];
  for (let from = 0; from < count; from += IMPORT_BATCH) {
    const orders = Array.from({ length: Math.min(IMPORT_BATCH, count - from) }, (_, k) => ({
      customer: { first_name: "Achieng", last_name: "Otieno", phone: phoneOf(from + k) },
    }));
    const answer = await request(`${baseUrl}/sandbox/shopify/control/shops/${shop}/orders/import`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Sandbox-Token": CONTROL_TOKEN },
      body: JSON.stringify({ orders }),
    });
    if (answer.status !== 201)
      throw new Error(`the sandbox's order import answered ${answer.status}: ${answer.body.toString().slice(0, 300)}`);
    for (const order of JSON.parse(answer.body.toString()).orders)
      bodies.push(
        JSON.stringify({
          id: order.id,
          name: order.name,
          order_number: order.order_number,
          created_at: order.created_at,
          updated_at: order.updated_at,
          currency: order.currency,
          total_price: order.total_price,
          customer: { first_name: order.customer.first_name, last_name: order.customer.last_name, phone: order.customer.phone },
          line_items: order.line_items.map((l) => ({ title: l.title, quantity: l.quantity, price: l.price })),
        }),
      );
  }
  return bodies;
}

/**
 * Signed deliveries handed out in turn, each once: `next()` past the end hands out the last one again
 * and counts it as `overrun` (the run then fails: its later posts were repeats, not new events).
 * `wrap` (bare node:http only, which stores nothing) goes round instead.
 */
function deliveries(bodies, { wrap = false } = {}) {
  const pool = bodies.map((body) => ({ body, hmac: createHmac("sha256", secret).update(body).digest("base64") }));
  let next = 0;
  const handed = {
    pool,
    overrun: 0,
    used: () => Math.min(next, pool.length),
    next: () => {
      if (wrap) return pool[next++ % pool.length];
      if (next >= pool.length) {
        handed.overrun++;
        return pool[pool.length - 1];
      }
      return pool[next++];
    },
  };
  return handed;
}

function loadRun(url, payloads, { connections, duration, amount }) {
  return autocannon({
    url,
    method: "POST",
    connections,
    ...(amount ? { amount } : { duration }),
    pipelining: 1,
    timeout: 30,
    headers: {
      "Content-Type": "application/json",
      "User-Agent": "Shopify-Captain-Hook",
      "X-Shopify-Topic": "orders/create",
      "X-Shopify-Shop-Domain": shop,
      "X-Shopify-API-Version": "2025-10",
    },
    requests: [
      {
        setupRequest(req) {
          const delivery = payloads.next();
          req.body = delivery.body;
          req.headers["X-Shopify-Hmac-Sha256"] = delivery.hmac;
          // Shopify's event id, new on every post (decision 098: not read, so not what deduplicates).
          req.headers["X-Shopify-Event-Id"] = randomUUID();
          return req;
        },
      },
    ],
  });
}

function summarise(result) {
  const ok = result.statusCodeStats?.["200"]?.count ?? 0;
  return {
    ok,
    perSecond: ok / result.duration,
    notOk: result.non2xx,
    errors: result.errors,
    p50: result.latency.p50,
    p99: result.latency.p99,
  };
}

/** Connects the demo business to a test shop: Integrations' form, the sandbox's install page, the callback. */
async function connectShop(baseUrl, cookie) {
  const form = (fields) => new URLSearchParams(fields).toString();
  const started = await request(`${baseUrl}/integrations`, {
    method: "POST",
    headers: { Cookie: cookie, Origin: baseUrl, "Content-Type": "application/x-www-form-urlencoded" },
    body: form({ intent: "connect", integration: "shopify", shop }),
  });
  const authorize = new URL(String(started.headers.location ?? ""), baseUrl);
  if (started.status !== 302 || !authorize.pathname.endsWith("/admin/oauth/authorize"))
    throw new Error(`connect answered ${started.status} ${started.headers.location ?? started.body.toString().slice(0, 200)}`);
  const installed = await request(authorize.origin + authorize.pathname, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: form({ ...Object.fromEntries(authorize.searchParams), decision: "install" }),
  });
  if (installed.status !== 303) throw new Error(`the install page answered ${installed.status}`);
  const back = new URL(String(installed.headers.location));
  const done = await request(`${baseUrl}${back.pathname}${back.search}`, { headers: { Cookie: cookie } });
  if (done.status !== 302) throw new Error(`the callback answered ${done.status}: ${done.body.toString().slice(0, 300)}`);
}

/** The demo business's "Order created" mapping turned off, through its settings form. */
async function turnMappingOff(baseUrl, cookie) {
  const saved = await request(`${baseUrl}/integrations/shopify`, {
    method: "POST",
    headers: { Cookie: cookie, Origin: baseUrl, "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ eventType: "order_created", templateId: "", delayMinutes: "60" }).toString(),
  });
  if (saved.status !== 302 && saved.status !== 303) throw new Error(`the mapping form answered ${saved.status}`);
}

async function main() {
  const databaseUrl = process.env.DATABASE_URL || undefined;
  const database = databaseUrl ? "PostgreSQL" : "PGlite";
  const loadAtStart = os.loadavg().map((l) => Number(l.toFixed(2)));
  console.log(`Shopify webhook intake on ${database}: ${CONNECTIONS} connections, ${DURATION} s per run`);
  const bare = await startBareServer();
  const server = await startServer({
    root,
    databaseUrl,
    extraEnv: {
      SHOPIFY_CLIENT_ID: "bench-shopify-client",
      SHOPIFY_CLIENT_SECRET: secret,
      JOB_WORKERS: String(arg("workers", 2)),
      SANDBOX_CONTROL_TOKEN: CONTROL_TOKEN,
    },
  });
  let jumbe;
  let bareResult;
  let replay;
  let warm;
  let runFrom;
  let runTo;
  let used = 0;
  let poolSize = 0;
  let overrun = 0;
  let confirmations;
  try {
    const cookie = await signIn(server.baseUrl, DEMO);
    await connectShop(server.baseUrl, cookie);
    if (MAPPING === "off") await turnMappingOff(server.baseUrl, cookie);
    const graphqlCalls = async () => {
      const calls = await request(`${server.baseUrl}/sandbox/shopify/control/calls`, { headers: { "X-Sandbox-Token": CONTROL_TOKEN } });
      return JSON.parse(calls.body.toString()).calls.filter((c) => c.account === shop && c.path.endsWith("/graphql.json"));
    };
    const atInstall = (await graphqlCalls()).length;
    poolSize = arg("pool", Math.max(20_000, 6_000 * (DURATION + 2)));
    const imported = Date.now();
    const fresh = deliveries(await importOrders(server.baseUrl, poolSize));
    console.log(`${poolSize} orders made in ${shop} (sandbox import) and signed in ${((Date.now() - imported) / 1000).toFixed(1)} s`);
    const bareLoad = deliveries(
      fresh.pool.slice(0, 1000).map((d) => d.body),
      { wrap: true },
    );
    // Warm-up of both, then the measured runs, bare first.
    await loadRun(`${bare.baseUrl}${PATH}`, bareLoad, { connections: CONNECTIONS, duration: 2 });
    bareResult = summarise(await loadRun(`${bare.baseUrl}${PATH}`, bareLoad, { connections: CONNECTIONS, duration: DURATION }));
    warm = summarise(await loadRun(`${server.baseUrl}${PATH}`, fresh, { connections: CONNECTIONS, duration: 2 }));
    runFrom = new Date();
    jumbe = summarise(await loadRun(`${server.baseUrl}${PATH}`, fresh, { connections: CONNECTIONS, duration: DURATION }));
    runTo = new Date();
    used = fresh.used();
    overrun = fresh.overrun;
    // Shopify delivers at least once, and a captured body can be posted again: 1,000 deliveries
    // already stored, each under a fresh X-Shopify-Event-Id.
    const again = {
      next: (() => {
        let i = 0;
        return () => fresh.pool[i++ % Math.min(1000, fresh.pool.length)];
      })(),
    };
    replay = summarise(await loadRun(`${server.baseUrl}${PATH}`, again, { connections: CONNECTIONS, amount: 1000 }));
    // The job's confirmation calls the sandbox answered (its call log keeps the last 200).
    const graphql = await graphqlCalls();
    // Beyond the install's own calls (subscriptions); at 200 the log has dropped the oldest.
    confirmations = {
      calls: graphql.length < 200 ? graphql.length - atInstall : null,
      notOk: graphql.filter((c) => c.status !== 200).length,
    };
  } finally {
    await server.stop({ keepDataDir: true });
    await bare.stop();
  }
  const stored = await withDatabase({ databaseUrl, dataDir: server.dataDir }, async (query) => {
    const [row] = await query(
      `select count(*)::int as n, count(distinct event_id)::int as d,
              count(*) filter (where processed_at >= $2 and processed_at <= $3)::int as processed_in_run,
              count(*) filter (where status = 'received')::int as backlog,
              count(*) filter (where status = 'ignored' and reason = 'not_confirmed')::int as ignored_not_confirmed,
              count(*) filter (where status = 'skipped' and reason = 'not_confirmed')::int as skipped_not_confirmed
       from shopify_events where shop = $1`,
      [shop, runFrom.toISOString(), runTo.toISOString()],
    );
    const outcomes = await query(
      `select status, coalesce(reason, '') as reason, count(*)::int as n from shopify_events where shop = $1 group by 1, 2 order by 3 desc`,
      [shop],
    );
    return { ...row, outcomes };
  });
  server.removeDataDir();
  const line = (name, r) =>
    `${name}: ${Math.round(r.perSecond)} acknowledged/s, p50 ${r.p50} ms, p99 ${r.p99} ms, non-2xx ${r.notOk}, errors ${r.errors}`;
  console.log(line("bare node:http", bareResult));
  console.log(line(`Jumbe /webhooks/shopify (${database})`, jumbe));
  console.log(`replay of 1,000 stored deliveries: ${replay.ok} answered 200`);
  const seconds = (runTo - runFrom) / 1000;
  console.log(
    `processed during the measured run: ${stored.processed_in_run} in ${seconds.toFixed(1)} s = ${Math.round(stored.processed_in_run / seconds)}/s; ` +
      `left unprocessed at the stop: ${stored.backlog}; outcomes: ${stored.outcomes.map((o) => `${o.status}${o.reason ? `/${o.reason}` : ""} ${o.n}`).join(", ")}`,
  );
  const acknowledged = warm.ok + jumbe.ok;
  console.log(`stored events: ${stored.n} (${stored.d} distinct event ids) for ${acknowledged} first deliveries acknowledged`);
  console.log(`deliveries posted from the pool: ${used} of ${poolSize} (${overrun} past its end); replays stored: ${stored.n - used}`);
  console.log(
    `events the shop did not confirm: ignored/not_confirmed ${stored.ignored_not_confirmed}, skipped/not_confirmed ${stored.skipped_not_confirmed}`,
  );
  console.log(
    `the shop's confirmation calls (GraphQL after the install): ${confirmations.calls ?? "200 or more (the sandbox logs the last 200)"}, ` +
      `${confirmations.notOk} of those logged not answered 200`,
  );
  const failures = [];
  if (stored.n < acknowledged || stored.n !== stored.d) failures.push("an acknowledged delivery was not stored, or one was stored twice");
  if (stored.n > used) failures.push(`the replay stored ${stored.n - used} events: a posted-again body must add none`);
  if (overrun > 0) failures.push(`the pool ran out: ${overrun} posts repeated its last delivery (raise --pool)`);
  if (stored.ignored_not_confirmed + stored.skipped_not_confirmed > 0)
    failures.push(
      `${stored.ignored_not_confirmed + stored.skipped_not_confirmed} events ended not_confirmed: the shop did not confirm its own orders, so their processing was not measured`,
    );
  if (replay.ok !== 1000) failures.push(`the replay's posts were answered ${replay.ok} times 200 of 1,000`);
  console.log(
    JSON.stringify({
      database,
      mapping: MAPPING,
      connections: CONNECTIONS,
      duration: DURATION,
      bare: bareResult,
      jumbe,
      replay,
      stored,
      acknowledged,
      pool: { size: poolSize, used, overrun },
      confirmations,
      loadAverage: { atStart: loadAtStart, atEnd: os.loadavg().map((l) => Number(l.toFixed(2))) },
    }),
  );
  if (failures.length) throw new Error(`THE RUN FAILED:\n  - ${failures.join("\n  - ")}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
