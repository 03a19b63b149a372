// POST /webhooks/shopify under load (issue 45, decision 084): how many signed Shopify deliveries a
// second the production build acknowledges, each stored (event row and its job, one transaction)
// before its 200, beside bare Node's http answering the same requests in the same run.
//
//   - the production build on PGlite (and on PostgreSQL with DATABASE_URL set), as a demo host;
//   - the demo business connects a test shop through the Shopify sandbox's install page, over plain
//     HTTP without JavaScript, so every delivery is routed to a tenant and stored;
//   - every request is an `orders/create` with its own X-Shopify-Event-Id, signed with the server's
//     SHOPIFY_CLIENT_SECRET; the bodies are signed before the run so the load generator copies bytes;
//   - after the run the server is stopped and its database read: stored events = acknowledged ones
//     (nothing acknowledged was lost), and a replay of 1,000 already-stored deliveries adds none.
//
//   - processing: the job workers turn the stored events into outcomes meanwhile (--workers 2); the
//     events processed while the measured run lasted (processed_at within it) over its length say
//     whether processing keeps up with the intake, and the backlog left when the server stopped.
//     The demo business's "Order created" mapping is turned off first (--mapping off, the default:
//     each event is read, its mapping looked up and its outcome written, no message); --mapping on
//     keeps the demo's order confirmation, so each event queues a template message (until the demo
//     wallet runs dry: then "insufficient balance" is the outcome).
//
//   node bench/shopify-webhooks.mjs [--duration 10] [--connections 16] [--workers 2] [--mapping off]   (DATABASE_URL for PostgreSQL)
import { createHmac, randomBytes, randomUUID } from "node:crypto";
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

/** A pool of signed order deliveries, each with its own event id; `next()` hands them out in turn. */
function payloadPool(size) {
  const pool = [];
  for (let i = 0; i < size; i++) {
    const body = JSON.stringify({
      id: 820982911946154500 + i,
      name: `#${1001 + i}`,
      order_number: 1001 + i,
      currency: "KES",
      total_price: "2500.00",
      customer: { first_name: "Achieng", last_name: "Otieno", phone: `+2547${String(10000000 + i).slice(-8)}` },
      line_items: [{ title: "Kikoy beach towel", quantity: 2, price: "1250.00" }],
    });
    pool.push({ body, hmac: createHmac("sha256", secret).update(body).digest("base64"), eventId: randomUUID() });
  }
  let next = 0;
  return { pool, next: () => pool[next++ % pool.length] };
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
          req.headers["X-Shopify-Event-Id"] = delivery.eventId;
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
  console.log(`Shopify webhook intake on ${database}: ${CONNECTIONS} connections, ${DURATION} s per run`);
  const bare = await startBareServer();
  const server = await startServer({
    root,
    databaseUrl,
    extraEnv: { SHOPIFY_CLIENT_ID: "bench-shopify-client", SHOPIFY_CLIENT_SECRET: secret, JOB_WORKERS: String(arg("workers", 2)) },
  });
  let jumbe;
  let bareResult;
  let replay;
  let warm;
  let runFrom;
  let runTo;
  try {
    const cookie = await signIn(server.baseUrl, DEMO);
    await connectShop(server.baseUrl, cookie);
    if (MAPPING === "off") await turnMappingOff(server.baseUrl, cookie);
    const payloads = payloadPool(Math.max(20_000, 6_000 * (DURATION + 2)));
    // Warm-up of both, then the measured runs, bare first.
    await loadRun(`${bare.baseUrl}${PATH}`, payloads, { connections: CONNECTIONS, duration: 2 });
    bareResult = summarise(await loadRun(`${bare.baseUrl}${PATH}`, payloads, { connections: CONNECTIONS, duration: DURATION }));
    const fresh = payloadPool(Math.max(20_000, 6_000 * (DURATION + 2)));
    warm = summarise(await loadRun(`${server.baseUrl}${PATH}`, fresh, { connections: CONNECTIONS, duration: 2 }));
    runFrom = new Date();
    jumbe = summarise(await loadRun(`${server.baseUrl}${PATH}`, fresh, { connections: CONNECTIONS, duration: DURATION }));
    runTo = new Date();
    // Shopify delivers at least once: 1,000 deliveries already stored, again.
    const again = {
      next: (() => {
        let i = 0;
        return () => fresh.pool[i++ % 1000];
      })(),
    };
    replay = summarise(await loadRun(`${server.baseUrl}${PATH}`, again, { connections: CONNECTIONS, amount: 1000 }));
  } finally {
    await server.stop({ keepDataDir: true });
    await bare.stop();
  }
  const stored = await withDatabase({ databaseUrl, dataDir: server.dataDir }, async (query) => {
    const [row] = await query(
      `select count(*)::int as n, count(distinct event_id)::int as d,
              count(*) filter (where processed_at >= $2 and processed_at <= $3)::int as processed_in_run,
              count(*) filter (where status = 'received')::int as backlog
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
  if (stored.n < acknowledged || stored.n !== stored.d) throw new Error("an acknowledged delivery was not stored, or one was stored twice");
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
    }),
  );
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
