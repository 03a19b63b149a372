// The inbox's speed (issue 16), on PostgreSQL with two production instances behind nginx
// (bench/nginx-pair.mjs's set-up: deploy/nginx/jumbe.conf made runnable, a private cluster):
//
//   node bench/run.mjs --inbox-only                               (all three; about 15 minutes)
//   node bench/run.mjs --inbox-only --inbox-parts latency,idle --inbox-duration 5
//   node bench/run.mjs --inbox-only --inbox-parts scale --inbox-messages 500000 --inbox-conversations 10000
//
// 1. Latency: the demo tenant's sandbox number is connected (Embedded Signup without JavaScript,
//    bench/webhooks.mjs); `GET /chat/events` streams are held open straight at each instance and
//    through nginx (the demo owner's session, Accept: text/event-stream); signed inbound text
//    messages (a unique wamid each, from a pool of customers, a marker `[bench <tag> <n> t=<ms>]` in
//    the text) go to nginx's /webhooks/whatsapp at a steady rate (open loop: each on its own
//    schedule, not after the previous answer). Per message and stream: the time from the POST's
//    start to the `inbox` event carrying the marker (in item.content.text, or the conversation's
//    last message) reaching the stream. nginx adds a header naming the instance it passed each
//    request to (bench only), so every arrival is counted as "the instance that took the webhook"
//    (its job workers are woken at once, so normally it processes it) or "the other one". Beside it,
//    the bare relay (bench/lib/bare-server.mjs: POST in, SSE out in one process) at the same rate.
// 2. Idle streams: `idleStreams` idle `GET /chat/events` on instance B, straight at its port (the
//    owner signed in ten times, the streams spread over the sessions); VmRSS before and after, per
//    stream; then one inbound webhook straight at B and how many streams got it, and when the last
//    did. Beside it, as many idle streams on the bare relay.
// 3. Server time at scale: a tenant of its own (its owner and four agents share the demo owner's
//    password hash; a connected number) with `conversations` conversations and `messages` messages
//    straight in SQL (generate_series; the messages' secondary indexes dropped and rebuilt, foreign
//    key triggers off while loading), then ANALYZE; `GET /chat`, `?filter=open`,
//    `?filter=unassigned`, `?q=<word>`, `?q=<name>` and `/chat/<id>` of its longest conversation,
//    `requests` times each at instance A: the server's Server-Timing app duration and statements,
//    and this process's time; beside the demo tenant (its few hundred conversations from part 1)
//    and the bare server sending as many bytes.
import { randomBytes } from "node:crypto";
import http from "node:http";
import { performance } from "node:perf_hooks";
import { startBareServer } from "./lib/bare-server.mjs";
import { postgresBinDir } from "./lib/database.mjs";
import { signIn } from "./lib/http.mjs";
import { FAMILY_NAMES, FIRST_NAMES } from "./lib/names.mjs";
import { findNginx, siteConfig, startNginx } from "./lib/nginx.mjs";
import { timeBare, timePage } from "./lib/page-timing.mjs";
import { childProcesses, cpuBetween, cpuOf, machineBusySeconds, rssKiB } from "./lib/proc.mjs";
import { openEventStream, openManyEventStreams } from "./lib/sse.mjs";
import { startInstancePair } from "./nginx-pair.mjs";
import { connectDemoNumber, inboundTextDelivery, newAppSecret, WEBHOOK_PATH } from "./webhooks.mjs";

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
const EVENTS_PATH = "/chat/events";
const UPSTREAM_HEADER = "x-bench-upstream";
const BENCH_SQL = "/* bench:inbox */";
export const PARTS = ["latency", "idle", "scale"];

// What customers write (some say "dividend": the search word) and what agents answer.
const CUSTOMER_TEXTS = [
  "Habari, nimetuma pesa lakini sijaona kwenye akaunti yangu",
  "Hello, when will the dividend be paid this year?",
  "Asante sana",
  "Please send me my loan statement for the last six months",
  "Nataka kujua salio la akiba yangu",
  "Good morning. I paid my loan installment via M-Pesa yesterday, the code is SGH7K2L9QX, but the app still shows arrears. Kindly check.",
  "Ok",
  "How much can I borrow with my current shares?",
  "Nimepoteza kadi yangu ya ATM, naomba msaada",
  "Is the office in Nakuru open on Saturday?",
  "I want to change my next of kin details",
  "Mkopo wangu wa dharura umekubaliwa?",
  "Thank you, received",
  "Can I top up my development loan before clearing it?",
  "Naomba namba ya paybill ya kulipa mkopo",
  "My guarantor has left the Sacco, what should I do?",
  "When is the annual general meeting? Will dividend be discussed there?",
  "Sawa, nitakuja kesho asubuhi",
  "Please call me back on this number",
  "The M-Pesa confirmation says the account number is wrong. I used my member number 10482. Please reverse or allocate it.",
];
const AGENT_TEXTS = [
  "Habari! Tumepokea ujumbe wako, tunaangalia sasa hivi.",
  "Hello, thank you for contacting Nyota Savings. Your payment has been received and allocated to your loan account.",
  "Your statement has been sent to your registered email address.",
  "Ndiyo, ofisi iko wazi Jumamosi kuanzia saa mbili hadi saa sita mchana.",
  "The dividend for 2026 will be paid after the AGM in March, directly to your FOSA account.",
  "Please visit any branch with your ID to update your next of kin.",
  "Karibu!",
  "You qualify for up to three times your shares, subject to guarantors. Would you like the application form?",
  "Paybill ni 522522, akaunti ni namba yako ya uanachama.",
  "We have reversed the transaction. It will reflect within 24 hours.",
  "Your new card will be ready for collection at the Nakuru branch on Thursday.",
  "Noted, an officer will call you within the hour.",
];
export const SEARCH_WORD = "dividend";

const quantile = (sorted, q) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] : null);
function distribution(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    count: sorted.length,
    p50: quantile(sorted, 0.5),
    p90: quantile(sorted, 0.9),
    p99: quantile(sorted, 0.99),
    max: sorted.at(-1) ?? null,
  };
}

/** Customer `i` of the pool: a number no real person has, and a name. */
function customer(i) {
  return {
    from: `2547${String(55_000_000 + i).padStart(8, "0")}`,
    name: `${FIRST_NAMES[i % FIRST_NAMES.length]} ${FAMILY_NAMES[Math.floor(i / FIRST_NAMES.length) % FAMILY_NAMES.length]}`,
  };
}

const MARKER = /\[bench ([A-Z0-9]+) (\d+) t=(\d+)\]/g;

/** The markers an `inbox` event carries (in the message's text or the conversation's last message), by tag. */
function markersOf(data) {
  let event;
  try {
    event = JSON.parse(data);
  } catch {
    return [];
  }
  const texts = [event?.item?.content?.text, event?.item?.content?.caption, event?.conversation?.lastMessage?.text].filter(
    (t) => typeof t === "string",
  );
  const found = [];
  for (const text of texts) for (const match of text.matchAll(MARKER)) found.push({ tag: match[1], n: Number(match[2]) });
  return found;
}

/**
 * A stream that notes, per message of `tag`, when its marker first arrived. `label` and `instance`
 * (the index of the instance it is held on, or null) say where it is held.
 */
async function watchStream(url, { headers, tag, label, instance = null }) {
  const arrivals = new Map();
  const counts = { inbox: 0, other: 0, unmarked: 0, repeats: 0 };
  const stream = await openEventStream(url, {
    headers,
    onEvent: (event) => {
      if (event.event !== "inbox") {
        counts.other++;
        return;
      }
      counts.inbox++;
      const markers = markersOf(event.data).filter((m) => m.tag === tag.current);
      if (!markers.length) counts.unmarked++;
      for (const { n } of markers) {
        if (arrivals.has(n)) counts.repeats++;
        else arrivals.set(n, event.at);
      }
    },
  });
  return { label, instance, stream, arrivals, counts };
}

/**
 * Sends `total` messages at `rate` a second, each on its own schedule (open loop), to `url`.
 * `delivery(n, at)` gives the signed body. Resolves to the sends: { n, started, answered, status, upstream }.
 */
async function sendSteady(url, { rate, total, headers, delivery }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 128 });
  const sends = [];
  const pending = new Set();
  const post = (n) => {
    const started = performance.now();
    const { body, signature } = delivery(n, Date.now());
    const record = { n, started, answered: null, status: 0, upstream: null };
    sends.push(record);
    const done = new Promise((resolve) => {
      const outgoing = http.request(
        url,
        {
          method: "POST",
          agent,
          headers: { "Content-Type": "application/json", "X-Hub-Signature-256": signature, ...headers, "Content-Length": body.length },
        },
        (response) => {
          response.resume();
          response.on("end", () => {
            record.answered = performance.now();
            record.status = response.statusCode ?? 0;
            record.upstream = response.headers[UPSTREAM_HEADER] ?? null;
            resolve();
          });
        },
      );
      outgoing.setTimeout(30_000, () => outgoing.destroy(new Error("timed out")));
      outgoing.on("error", () => resolve());
      outgoing.end(body);
    });
    pending.add(done);
    void done.then(() => pending.delete(done));
  };
  const interval = 1000 / rate;
  const begun = performance.now();
  let behindMax = 0;
  for (let n = 0; n < total;) {
    const due = begun + n * interval;
    const now = performance.now();
    if (now < due - 0.5) {
      await sleep(due - now);
      continue;
    }
    behindMax = Math.max(behindMax, now - due);
    post(n++);
  }
  const sendSeconds = (performance.now() - begun) / 1000;
  await Promise.all([...pending]);
  agent.destroy();
  return { sends, sendSeconds, behindMaxMs: behindMax };
}

/**
 * Waits until every watcher has every message, or nothing new came for `quietMs` (or `maxMs` passed
 * since the wait began): a late event still counts, with its time.
 */
async function waitForArrivals(watchers, total, { quietMs = 15_000, maxMs = 90_000 } = {}) {
  const started = performance.now();
  let last = -1;
  let lastChange = performance.now();
  for (;;) {
    const got = watchers.reduce((sum, w) => sum + w.arrivals.size, 0);
    if (got >= watchers.length * total) return;
    if (got !== last) {
      last = got;
      lastChange = performance.now();
    }
    if (performance.now() - lastChange > quietMs || performance.now() - started > maxMs) return;
    await sleep(100);
  }
}

/** Latencies per group of streams: `group(watcher, send)` names the group a message's arrival counts in. */
function latencyGroups(watchers, sends, group) {
  const groups = new Map();
  for (const w of watchers) {
    for (const send of sends) {
      const name = group(w, send);
      if (!name) continue;
      const g = groups.get(name) ?? { expected: 0, ms: [] };
      g.expected++;
      const at = w.arrivals.get(send.n);
      if (at !== undefined) g.ms.push(at - send.started);
      groups.set(name, g);
    }
  }
  return [...groups].map(([name, g]) => ({ group: name, expected: g.expected, arrived: g.ms.length, ...distribution(g.ms) }));
}

function acknowledgements(sends) {
  const statuses = {};
  for (const s of sends) statuses[s.status || "error"] = (statuses[s.status || "error"] ?? 0) + 1;
  return { statuses, ...distribution(sends.filter((s) => s.answered !== null).map((s) => s.answered - s.started)) };
}

// ---------------------------------------------------------------------------------------------
// 1. Webhook to stream

async function measureLatency({
  pair,
  nginx,
  cookie,
  appSecret,
  target,
  bare,
  rate,
  duration,
  customers,
  streamsPerInstance,
  nginxStreams,
  log,
}) {
  const { servers, host } = pair;
  const headers = { Host: host, Cookie: cookie };
  const tag = { current: "" };
  const text = (n, at) => `${CUSTOMER_TEXTS[n % CUSTOMER_TEXTS.length]} [bench ${tag.current} ${n} t=${at}]`;
  const delivery = (n, at) => {
    const person = customer(n % customers);
    return inboundTextDelivery({ appSecret, target, ...person, wamid: `wamid.${tag.current}.${n}`, text: text(n, at), at });
  };

  // The bare relay: as many streams as the direct ones, the same bodies at the same rate.
  const total = Math.round(rate * duration);
  log(`  bare relay: ${total} messages at ${rate}/s, ${servers.length * streamsPerInstance} streams ...`);
  tag.current = `B${randomBytes(3).toString("hex").toUpperCase()}`;
  const bareWatchers = [];
  for (let k = 0; k < servers.length * streamsPerInstance; k++)
    bareWatchers.push(await watchStream(`${bare.baseUrl}/events`, { headers: {}, tag, label: "bare" }));
  const bareRun = await sendSteady(`${bare.baseUrl}/relay`, { rate, total, headers: {}, delivery });
  await waitForArrivals(bareWatchers, total);
  for (const w of bareWatchers) w.stream.close();

  const bareResult = {
    sent: total,
    sendSeconds: bareRun.sendSeconds,
    acknowledgements: acknowledgements(bareRun.sends),
    ...latencyGroups(bareWatchers, bareRun.sends, () => "bare")[0],
  };
  tag.current = `W${randomBytes(3).toString("hex").toUpperCase()}`;

  // The streams: straight at each instance, and through nginx (which picks an instance for each).
  const watchers = [];
  for (const [i, server] of servers.entries())
    for (let k = 0; k < streamsPerInstance; k++)
      watchers.push(await watchStream(`${server.baseUrl}${EVENTS_PATH}`, { headers, tag, label: "direct", instance: i }));
  for (let k = 0; k < nginxStreams; k++) {
    const w = await watchStream(`${nginx.base}${EVENTS_PATH}`, { headers, tag, label: "nginx" });
    w.instance = servers.findIndex((s) => String(w.stream.headers[UPSTREAM_HEADER] ?? "").endsWith(`:${s.port}`));
    watchers.push(w);
  }
  const refused = watchers.find((w) => w.stream.status !== 200);
  if (refused) {
    for (const w of watchers) w.stream.close();
    return {
      problem: `GET ${EVENTS_PATH} answered ${refused.stream.status}: ${String(refused.stream.body ?? "").slice(0, 200)}`,
      bare: bareResult,
    };
  }
  const instanceOf = (upstream) => servers.findIndex((s) => String(upstream ?? "").endsWith(`:${s.port}`));

  // Warm-up: every customer writes once (their contact and conversation exist from then on).
  log(`  warm-up: ${customers} customers write once through nginx ...`);
  const webhookUrl = `${nginx.base}${WEBHOOK_PATH}`;
  const warm = await sendSteady(webhookUrl, { rate, total: customers, headers: { Host: host }, delivery });
  await waitForArrivals(watchers, customers, { quietMs: 3_000 });
  const warmUp = { sent: customers, ...acknowledgements(warm.sends), arrived: watchers.map((w) => w.arrivals.size) };

  // The measured run.
  tag.current = `M${randomBytes(3).toString("hex").toUpperCase()}`;
  for (const w of watchers) {
    w.arrivals.clear();
    Object.assign(w.counts, { inbox: 0, other: 0, unmarked: 0, repeats: 0 });
  }
  log(`  ${total} inbound messages at ${rate}/s through nginx, ${watchers.length} streams ...`);
  const pids = () => [...servers.map((s) => s.pid), nginx.pid, ...childProcesses(nginx.pid), ...pair.postgres.processIds()];
  const cpuBefore = cpuOf(pids());
  const machineBefore = machineBusySeconds();
  const selfBefore = process.cpuUsage();
  const wallBefore = performance.now();
  const run = await sendSteady(webhookUrl, { rate, total, headers: { Host: host }, delivery });
  await waitForArrivals(watchers, total);
  const wall = (performance.now() - wallBefore) / 1000;
  const cpuAfter = cpuOf(pids());
  const self = process.cpuUsage(selfBefore);
  const busy = (list) =>
    cpuBetween(new Map([...cpuBefore].filter(([pid]) => list.includes(pid))), new Map([...cpuAfter].filter(([pid]) => list.includes(pid))));
  const serverPids = servers.map((s) => s.pid);
  const nginxPids = [nginx.pid, ...childProcesses(nginx.pid)];
  const postgresPids = [...cpuAfter.keys()].filter((pid) => !serverPids.includes(pid) && !nginxPids.includes(pid));
  const cores = {
    instances: serverPids.map((pid) => busy([pid]) / wall),
    postgres: busy(postgresPids) / wall,
    nginx: busy(nginxPids) / wall,
    bench: (self.user + self.system) / 1e6 / wall,
  };
  cores.other = Math.max(
    0,
    (machineBusySeconds() - machineBefore) / wall - cores.instances.reduce((a, b) => a + b, 0) - cores.postgres - cores.nginx - cores.bench,
  );
  for (const w of watchers) w.stream.close();

  const sends = run.sends.map((s) => ({ ...s, instance: instanceOf(s.upstream) }));
  const groups = latencyGroups(watchers, sends, (w, send) => {
    if (send.instance === -1 || w.instance === -1) return `${w.label}, instance unknown`;
    const same = w.instance === send.instance ? "the instance that took the webhook" : "the other instance";
    return `${w.label === "direct" ? "straight at" : "through nginx to"} ${same}`;
  });
  const all = latencyGroups(watchers, sends, () => "every stream");
  const perInstance = servers.map((_, i) => sends.filter((s) => s.instance === i).length);

  return {
    rate,
    durationSeconds: duration,
    customers,
    sent: total,
    sendSeconds: run.sendSeconds,
    senderBehindMaxMs: run.behindMaxMs,
    webhooksPerInstance: perInstance,
    acknowledgements: acknowledgements(run.sends),
    groups,
    all: all[0],
    streams: watchers.map((w) => ({ label: w.label, instance: w.instance, arrived: w.arrivals.size, ...w.counts })),
    cores,
    warmUp,
    bare: bareResult,
  };
}

// ---------------------------------------------------------------------------------------------
// 2. Idle streams

/**
 * Opens `count` idle streams with `open(i)` on the process `pid`, reads its VmRSS before and after,
 * then `poke(text)` sends one message and the streams that got it are counted.
 */
async function idleStreams({ count, pid, open, poke, log, label }) {
  const tag = { current: `I${randomBytes(3).toString("hex").toUpperCase()}` };
  await sleep(2_000);
  const before = rssKiB(pid);
  const started = performance.now();
  const { streams: opened, failures } = await openManyEventStreams(count, async (i) => (await open(i, tag)).stream, { concurrency: 20 });
  const openSeconds = (performance.now() - started) / 1000;
  // openManyEventStreams hands back streams; their watchers are kept by `open`.
  log(
    `  ${label}: ${opened.length} of ${count} streams open in ${openSeconds.toFixed(1)} s${failures.length ? `, ${failures.length} refused` : ""}`,
  );
  await sleep(5_000);
  const after = rssKiB(pid);
  const watchers = open.watchers;
  const stillOpen = watchers.filter((w) => !w.stream.closed && w.stream.status === 200);
  const sentAt = performance.now();
  const pokeAnswer = await poke(tag.current);
  const deadline = sentAt + 30_000;
  while (performance.now() < deadline && stillOpen.some((w) => !w.arrivals.size)) await sleep(50);
  const times = stillOpen.filter((w) => w.arrivals.size).map((w) => [...w.arrivals.values()][0] - sentAt);
  for (const w of watchers) w.stream.close();
  await sleep(3_000);
  const closed = rssKiB(pid);
  const reached = distribution(times);
  return {
    requested: count,
    opened: opened.length,
    failures: failures.length,
    firstFailures: [...new Set(failures)].slice(0, 3),
    openSeconds,
    openAtPoke: stillOpen.length,
    rssBeforeMiB: before / 1024,
    rssAfterMiB: after / 1024,
    rssAfterClosingMiB: closed / 1024,
    perStreamKiB: opened.length ? (after - before) / opened.length : null,
    pokeStatus: pokeAnswer,
    reached: reached.count,
    firstMs: times.length ? Math.min(...times) : null,
    medianMs: reached.p50,
    lastMs: reached.max,
  };
}

/** An `open(i, tag)` for idleStreams that keeps its watchers (open.watchers). */
function watchingOpener(url, headersFor) {
  const watchers = [];
  const open = async (i, tag) => {
    const w = await watchStream(url, { headers: headersFor(i), tag, label: "idle" });
    watchers.push(w);
    return w;
  };
  open.watchers = watchers;
  return open;
}

async function measureIdle({ pair, accounts, appSecret, target, bare, count, log }) {
  const { servers, host, origin } = pair;
  const server = servers[1];
  // Several sessions of the demo owner (as several tabs and devices would be), the streams spread over them.
  const cookies = [];
  for (let i = 0; i < 10; i++) cookies.push(await signIn(server.baseUrl, accounts.individual, { host, origin }));
  const person = customer(0);
  const bareOpen = watchingOpener(`${bare.baseUrl}/events`, () => ({}));
  const bareIdle = await idleStreams({
    count,
    pid: bare.pid,
    open: bareOpen,
    label: "bare relay",
    log,
    poke: async (tag) => {
      const { body } = inboundTextDelivery({
        appSecret,
        target,
        ...person,
        wamid: `wamid.${tag}.0`,
        text: `[bench ${tag} 0 t=${Date.now()}]`,
      });
      return (await postOnce(`${bare.baseUrl}/relay`, body, {})).status;
    },
  });
  const probe = await openEventStream(`${server.baseUrl}${EVENTS_PATH}`, { headers: { Host: host, Cookie: cookies[0] } });
  probe.close();
  if (probe.status !== 200)
    return { problem: `GET ${EVENTS_PATH} answered ${probe.status}: ${String(probe.body ?? "").slice(0, 200)}`, bare: bareIdle };

  const jumbeOpen = watchingOpener(`${server.baseUrl}${EVENTS_PATH}`, (i) => ({ Host: host, Cookie: cookies[i % cookies.length] }));
  const jumbe = await idleStreams({
    count,
    pid: server.pid,
    open: jumbeOpen,
    label: "Jumbe, instance B",
    log,
    poke: async (tag) => {
      const { body, signature } = inboundTextDelivery({
        appSecret,
        target,
        ...person,
        wamid: `wamid.${tag}.0`,
        text: `${CUSTOMER_TEXTS[0]} [bench ${tag} 0 t=${Date.now()}]`,
      });
      return (await postOnce(`${server.baseUrl}${WEBHOOK_PATH}`, body, { Host: host, "X-Hub-Signature-256": signature })).status;
    },
  });
  return { instance: "B", sessions: cookies.length, jumbe, bare: bareIdle };
}

function postOnce(url, body, headers) {
  return new Promise((resolve, reject) => {
    const outgoing = http.request(
      url,
      { method: "POST", agent: false, headers: { "Content-Type": "application/json", "Content-Length": body.length, ...headers } },
      (response) => {
        response.resume();
        response.on("end", () => resolve({ status: response.statusCode ?? 0 }));
      },
    );
    outgoing.on("error", reject);
    outgoing.end(body);
  });
}

// ---------------------------------------------------------------------------------------------
// 3. Server time at scale

/**
 * A tenant with `conversations` conversations and `messages` messages, straight in SQL. Conversation
 * k is with contact k on the tenant's one number; the first `conversations` messages give each its
 * first, the rest go to conversation 1 + floor(N * h^1.5) for a well-spread hash h of the message's
 * number, so a few conversations are long (the first about 2,300 messages of 5,000,000) and most
 * short. 55% inbound; outbound 90% the inbox's (an agent's, sent_by), 10% the API's; read or
 * delivered. Each conversation has a last day within 90 days (recent ones more often: a^2 of 90
 * days ago for a well-spread a) and its messages fall uniformly in a span before it.
 * Conversations: last_message_at, last_inbound_at from their messages; resolved when idle for a
 * week (nine in ten), assigned to one of four agents (six in ten); unread = the customer's messages
 * after the business's last one, for those active in the last three days (older ones were opened).
 */
export async function seedScaleTenant(query, { conversations, messages, demoEmail, log = console.log }) {
  const timings = {};
  const step = async (name, work) => {
    const started = performance.now();
    const result = await work();
    timings[name] = (performance.now() - started) / 1000;
    return result;
  };
  const started = performance.now();
  const email = `inbox-bench-${randomBytes(3).toString("hex")}@jumbe.demo`;
  const { organizationId, phoneNumberId, agents } = await step("tenant", async () => {
    const [org] = await query(
      `insert into organizations (name, business_id, status, plan_type) values ('Bench Inbox Sacco', $1, 'active', 'Enterprise') returning id`,
      [`BENCH${randomBytes(5).toString("hex").toUpperCase()}`],
    );
    const [{ password_hash: hash }] = await query(`select password_hash from users where lower(email) = lower($1)`, [demoEmail]);
    await query(
      `insert into users (organization_id, email, first_name, last_name, password_hash, is_verified, org_role) values ($1, $2, 'Wanjiru', 'Kimani', $3, true, 'owner')`,
      [org.id, email, hash],
    );
    const agentRows = await query(
      `insert into users (organization_id, email, first_name, last_name, password_hash, is_verified, org_role)
       select $1, 'agent' || g || '-' || $2, (array['Brian','Amina','Kevin','Joy'])[g], (array['Otieno','Hassan','Mutua','Achieng'])[g], $3, true, 'agent'
       from generate_series(1, 4) g returning id`,
      [org.id, email, hash],
    );
    const [account] = await query(
      `insert into whatsapp_accounts (organization_id, waba_id, name, access_token_encrypted, subscribed)
       values ($1, $2, 'Bench Inbox Sacco', 'v1.bench.bench.bench', true) returning id`,
      [org.id, `BENCHWABA${randomBytes(4).toString("hex")}`],
    );
    const number = `9${Date.now() % 1e9}`;
    await query(
      `insert into whatsapp_phone_numbers (organization_id, account_id, phone_number_id, display_phone_number, phone_digits, verified_name,
                                           quality_rating, status, platform_type, messaging_limit, registered_at)
       values ($1, $2, $3, '+254 700 555 001', '254700555001', 'Bench Inbox Sacco', 'GREEN', 'CONNECTED', 'CLOUD_API', 'TIER_10K', now())`,
      [org.id, account.id, number],
    );
    return { organizationId: org.id, phoneNumberId: number, agents: agentRows.map((r) => r.id) };
  });

  await step("contacts", async () => {
    await query(
      `${BENCH_SQL} create temporary table bench_contacts as select k, gen_random_uuid() as id, '+2547' || lpad((30000000 + k)::text, 8, '0') as phone from generate_series(1, $1::int) k`,
      [conversations],
    );
    await query(`create unique index on bench_contacts (k)`);
    await query(
      `${BENCH_SQL} insert into contacts (id, organization_id, name, phone, wa_id, opt_in, created_at, last_seen_at)
       select c.id, $1, ($2::text[])[1 + k % 40] || ' ' || ($3::text[])[1 + (k / 40) % 50],
              c.phone, substr(c.phone, 2), 'opted_in',
              now() - interval '120 days', now() - interval '1 day'
       from bench_contacts c`,
      [organizationId, FIRST_NAMES, FAMILY_NAMES],
    );
  });

  // The messages' secondary indexes go while loading and come back after (one sorted build each is
  // far cheaper than five million inserts into each); the foreign keys are not checked meanwhile
  // (session_replication_role = replica), every id being one just made.
  const indexes = await query(
    `select indexname, indexdef from pg_indexes where schemaname = 'public' and tablename = 'messages' and indexname <> 'messages_pkey'`,
  );
  await step("messagesLoad", async () => {
    for (const { indexname } of indexes) await query(`drop index ${indexname}`);
    await query(`set session_replication_role = replica`);
    const batch = 500_000;
    for (let from = 1; from <= messages; from += batch) {
      const to = Math.min(messages, from + batch - 1);
      await query(
        `${BENCH_SQL} insert into messages (organization_id, contact_id, direction, status, body, wamid, phone_number_id, message_type, payload,
                              sent_at, created_at, source, recipient_phone, accepted_at, delivered_at, read_at, sent_by)
         select $1, c.id, s.direction,
                case when s.direction = 'inbound' then 'received' when s.r2 < 0.7 then 'read' else 'delivered' end,
                s.body, 'wamid.bench.' || s.g, $2, 'text',
                case when s.direction = 'inbound'
                  then jsonb_build_object('from', substr(c.phone, 2), 'id', 'wamid.bench.' || s.g, 'timestamp', extract(epoch from s.t)::bigint::text,
                                          'type', 'text', 'text', jsonb_build_object('body', s.body))
                  else jsonb_build_object('messaging_product', 'whatsapp', 'recipient_type', 'individual', 'to', c.phone, 'type', 'text',
                                          'text', jsonb_build_object('body', s.body)) end,
                s.t, s.t,
                case when s.direction = 'inbound' then null when s.r2 < 0.9 then 'inbox' else 'api' end,
                case when s.direction = 'inbound' then null else c.phone end,
                case when s.direction = 'outbound' then s.t + interval '1 second' end,
                case when s.direction = 'outbound' then s.t + interval '3 seconds' end,
                case when s.direction = 'outbound' and s.r2 < 0.7 then s.t + interval '2 minutes' end,
                case when s.direction = 'outbound' and s.r2 < 0.9 then ($3::uuid[])[1 + s.g % 4] end
         from (
           select g, k, r2,
                  -- The conversation's last day (a^2 of 90 days ago: recent ones more often) and its span before it.
                  now() - interval '90 days' * (power(((k * 2654435761::bigint) % 4294967296)::float8 / 4294967296, 2)
                          + (1 - power(((k * 2654435761::bigint) % 4294967296)::float8 / 4294967296, 2))
                            * (((k * 40503::bigint + 12345) % 65536)::float8 / 65536) * r3) as t,
                  case when r1 < 0.55 then 'inbound' else 'outbound' end as direction,
                  case when r1 < 0.55
                    then ($4::text[])[1 + (g % ${CUSTOMER_TEXTS.length})] || case when r2 < 0.3 then ' ' || ($4::text[])[1 + ((g / 7) % ${CUSTOMER_TEXTS.length})] else '' end
                    else ($5::text[])[1 + (g % ${AGENT_TEXTS.length})] end as body
           from (
             select g,
                    case when g <= $6 then g
                         else least($6, 1 + floor($6 * power(((g * 2654435761::bigint) % 4294967296)::float8 / 4294967296, 1.5))::int) end as k,
                    random() as r1, random() as r2, random() as r3
             from generate_series($7::int, $8::int) g
           ) x
         ) s
         join bench_contacts c on c.k = s.k`,
        [organizationId, phoneNumberId, agents, CUSTOMER_TEXTS, AGENT_TEXTS, conversations, from, to],
      );
      log(`    ${to.toLocaleString("en-US")} messages`);
    }
    await query(`set session_replication_role = origin`);
  });
  await step("messagesIndexes", async () => {
    await query(`set maintenance_work_mem = '1GB'`);
    for (const { indexdef } of indexes) await query(indexdef);
  });

  await step("conversations", async () => {
    await query(
      `${BENCH_SQL} create temporary table bench_threads as
       select contact_id, max(sent_at) as last, max(sent_at) filter (where direction = 'inbound') as last_in,
              max(sent_at) filter (where direction = 'outbound') as last_out, min(sent_at) as first
       from messages where organization_id = $1 group by contact_id`,
      [organizationId],
    );
    await query(
      `${BENCH_SQL} insert into conversations (organization_id, phone_number_id, contact_id, last_inbound_at, last_message_at, created_at,
                                 status, assigned_to, resolved_at, unread_count)
       select $1, $2, t.contact_id, t.last_in, t.last, t.first,
              case when t.last < now() - interval '7 days' and c.k % 10 <> 0 then 'resolved' else 'open' end,
              case when c.k % 10 < 6 then ($3::uuid[])[1 + c.k % 4] end,
              case when t.last < now() - interval '7 days' and c.k % 10 <> 0 then t.last + interval '1 hour' end,
              0
       from bench_threads t join bench_contacts c on c.id = t.contact_id`,
      [organizationId, phoneNumberId, agents],
    );
    await query(
      `${BENCH_SQL} update conversations v set unread_count = u.n
       from (select m.contact_id, count(*)::int as n
             from messages m join bench_threads t on t.contact_id = m.contact_id
             where m.organization_id = $1 and m.direction = 'inbound' and t.last > now() - interval '3 days'
               and m.sent_at > coalesce(t.last_out, '-infinity') and m.created_at > now() - interval '91 days'
             group by m.contact_id) u
       where v.organization_id = $1 and v.contact_id = u.contact_id and v.status = 'open'`,
      [organizationId],
    );
  });
  await step("analyze", () => query(`analyze contacts; analyze conversations; analyze messages`));
  const [longest] = await query(
    `select v.id, count(m.id)::int as messages from bench_threads t join conversations v on v.contact_id = t.contact_id and v.organization_id = $1
     join messages m on m.contact_id = t.contact_id where t.contact_id = (select id from bench_contacts where k = 1) group by v.id`,
    [organizationId],
  );
  const [counts] = await query(
    `select (select count(*) from conversations where organization_id = $1)::int as conversations,
            (select count(*) from messages where organization_id = $1)::int as messages,
            (select count(*) from conversations where organization_id = $1 and status = 'open')::int as open,
            (select count(*) from conversations where organization_id = $1 and assigned_to is null)::int as unassigned,
            (select count(*) from conversations where organization_id = $1 and unread_count > 0)::int as unread,
            (select pg_size_pretty(pg_total_relation_size('messages'))) as "messagesSize"`,
    [organizationId],
  );
  await query(`drop table bench_threads; drop table bench_contacts`);
  return {
    email,
    organizationId,
    longest,
    counts,
    seedSeconds: (performance.now() - started) / 1000,
    timings,
  };
}

async function measureScale({ pair, accounts, bare, conversations, messages, requests, demoCustomer, log }) {
  const { servers, host, origin } = pair;
  const server = servers[0];
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: pair.postgres.url });
  await client.connect();
  const query = async (text, params) => (await client.query(text, params)).rows;
  try {
    log(`  seeding ${conversations.toLocaleString("en-US")} conversations and ${messages.toLocaleString("en-US")} messages ...`);
    const seeded = await seedScaleTenant(query, { conversations, messages, demoEmail: accounts.individual.email, log });
    log(
      `  seeded in ${seeded.seedSeconds.toFixed(1)} s (${Object.entries(seeded.timings)
        .map(([k, v]) => `${k} ${v.toFixed(1)} s`)
        .join(", ")})`,
    );
    const [demo] = await query(
      `select v.id, count(m.id)::int as messages,
              (select count(*) from conversations where organization_id = u.organization_id)::int as conversations,
              (select count(*) from messages where organization_id = u.organization_id)::int as "allMessages"
       from users u join conversations v on v.organization_id = u.organization_id
       left join messages m on m.organization_id = v.organization_id and m.contact_id = v.contact_id and m.phone_number_id = v.phone_number_id
       where lower(u.email) = lower($1) group by u.organization_id, v.id order by count(m.id) desc limit 1`,
      [accounts.individual.email],
    );
    const name = "Zawadi Wekesa";
    const site = { host, origin };
    const scaleCookie = await signIn(server.baseUrl, { email: seeded.email, password: accounts.individual.password }, site);
    const demoCookie = await signIn(server.baseUrl, accounts.individual, site);
    const pages = (conversationId, customerName) => [
      { label: "list", path: "/chat" },
      { label: "open", path: "/chat?filter=open" },
      { label: "unassigned", path: "/chat?filter=unassigned" },
      { label: `search "${SEARCH_WORD}"`, path: `/chat?q=${SEARCH_WORD}` },
      { label: `search "${customerName}"`, path: `/chat?q=${encodeURIComponent(customerName)}` },
      { label: "thread", path: conversationId ? `/chat/${conversationId}` : null },
    ];
    const rows = [];
    const scalePages = pages(seeded.longest?.id, name);
    const demoPages = pages(demo?.id, demoCustomer);
    for (const [i, page] of scalePages.entries()) {
      log(`  GET ${page.path} (${requests} times, each tenant) ...`);
      const scale = page.path ? await timePage(`${server.baseUrl}${page.path}`, scaleCookie, requests, { headers: { Host: host } }) : null;
      const small = demoPages[i].path
        ? await timePage(`${server.baseUrl}${demoPages[i].path}`, demoCookie, requests, { headers: { Host: host } })
        : null;
      rows.push({
        label: page.label,
        path: page.path,
        scale,
        demo: small && { ...small, path: demoPages[i].path },
        bare: scale ? await timeBare(bare, scale.bytes, requests) : null,
      });
    }
    return {
      tenant: { ...seeded.counts, longestConversationMessages: seeded.longest?.messages ?? null },
      demoTenant: demo
        ? { conversations: demo.conversations, messages: demo.allMessages, longestConversationMessages: demo.messages }
        : null,
      seedSeconds: seeded.seedSeconds,
      seedTimings: seeded.timings,
      requests,
      pages: rows,
    };
  } finally {
    await client.end().catch(() => {});
  }
}

// ---------------------------------------------------------------------------------------------

export async function benchInbox({
  root,
  accounts,
  parts = PARTS,
  rate = 200,
  duration = 20,
  customers = 400,
  streamsPerInstance = 1,
  nginxStreams = 2,
  idleCount = 2000,
  conversations = 100_000,
  messages = 5_000_000,
  requests = 60,
  log = console.log,
}) {
  const binary = findNginx();
  if (!binary) return { skipped: "nginx is not installed (Debian: apt-get install nginx)" };
  if (!postgresBinDir()) return { skipped: "PostgreSQL's binaries were not found (/usr/lib/postgresql/15/bin or pg_config --bindir)" };
  const appSecret = newAppSecret();
  const pair = await startInstancePair({
    root,
    log,
    extraEnv: { META_APP_SECRET: appSecret },
    postgresOptions: {
      extraSettings: { shared_buffers: "'1GB'", maintenance_work_mem: "'1GB'", max_wal_size: "'8GB'", checkpoint_timeout: "'30min'" },
    },
  });
  let nginx = null;
  let bare = null;
  const report = { parts, postgresSettings: pair.postgres.settings };
  try {
    const { servers, ports, host, origin, source } = pair;
    nginx = await startNginx(binary, siteConfig(source, { ...ports, upstreams: servers.map((s) => s.port) }), {
      https: ports.https,
      host,
      // Which instance nginx passed each request to (the bench's only change to the site).
      httpLines: [`add_header X-Bench-Upstream $upstream_addr always;`],
    });
    bare = await startBareServer();
    const cookie = await signIn(nginx.base, accounts.individual, { host, origin });
    const target = await connectDemoNumber(servers[0].baseUrl, cookie, { headers: { Host: host } });
    log(`  nginx at ${nginx.base}; the demo tenant's number ${target.phoneNumberId} (+${target.displayPhoneNumber}) connected`);

    if (parts.includes("latency")) {
      try {
        report.latency = await measureLatency({
          pair,
          nginx,
          cookie,
          appSecret,
          target,
          bare,
          rate,
          duration,
          customers,
          streamsPerInstance,
          nginxStreams,
          log,
        });
      } catch (error) {
        report.latency = { problem: error instanceof Error ? error.message : String(error) };
      }
    }
    if (parts.includes("idle")) {
      try {
        report.idle = await measureIdle({ pair, accounts, appSecret, target, bare, count: idleCount, log });
      } catch (error) {
        report.idle = { problem: error instanceof Error ? error.message : String(error) };
      }
    }
    if (parts.includes("scale")) {
      try {
        report.scale = await measureScale({ pair, accounts, bare, conversations, messages, requests, demoCustomer: customer(0).name, log });
      } catch (error) {
        report.scale = { problem: error instanceof Error ? error.message : String(error) };
      }
    }
    return report;
  } finally {
    await bare?.stop();
    await nginx?.stop();
    await pair.stop();
  }
}

// ---------------------------------------------------------------------------------------------
// Report

const ms = (value, digits = 0) => (typeof value === "number" && Number.isFinite(value) ? value.toFixed(digits) : "-");
const mib = (value) => (typeof value === "number" && Number.isFinite(value) ? value.toFixed(1) : "-");

export function formatInbox(report, { table }) {
  if (report.skipped) return `Inbox: skipped (${report.skipped})`;
  if (report.problem) return `Inbox: not measured (${report.problem})`;
  const lines = [];
  const l = report.latency;
  if (l?.problem) {
    lines.push(`Webhook to browser stream: not measured (${l.problem})`);
    if (l.bare)
      lines.push(
        `  bare node:http relay at the same rate: ${l.bare.arrived}/${l.bare.expected} arrived, p50 ${ms(l.bare.p50)} ms, p90 ${ms(l.bare.p90)} ms, p99 ${ms(l.bare.p99)} ms, max ${ms(l.bare.max)} ms`,
      );
  } else if (l) {
    const ack = l.acknowledgements;
    lines.push(
      `Webhook to browser stream: ${l.sent} inbound messages at ${l.rate}/s through nginx (sent over ${ms(l.sendSeconds, 1)} s; nginx gave instance A ${l.webhooksPerInstance[0]}, B ${l.webhooksPerInstance[1]}), ${l.customers} customers`,
    );
    lines.push(
      table(
        ["stream", "arrived", "p50 ms", "p90 ms", "p99 ms", "max ms"],
        [...l.groups, { ...l.all, group: "every Jumbe stream" }, { ...l.bare, group: "bare node:http relay (POST in, SSE out)" }].map(
          (g) => [g.group, `${g.arrived ?? g.count}/${g.expected}`, ms(g.p50), ms(g.p90), ms(g.p99), ms(g.max)],
        ),
      ),
    );
    lines.push(
      `  webhook answers: ${Object.entries(ack.statuses)
        .map(([code, n]) => `${code}:${n}`)
        .join(" ")}, p50 ${ms(ack.p50)} ms, p99 ${ms(ack.p99)} ms; bare relay p50 ${ms(l.bare.acknowledgements.p50)} ms`,
    );
    const c = l.cores;
    lines.push(
      `  CPU during the run (cores): instance A ${ms(c.instances[0], 2)}, B ${ms(c.instances[1], 2)}, PostgreSQL ${ms(c.postgres, 2)}, nginx ${ms(c.nginx, 2)}, this process ${ms(c.bench, 2)}, other work ${ms(c.other, 2)}`,
    );
    const odd = l.streams.filter((s) => s.repeats || s.unmarked);
    if (odd.length)
      lines.push(
        `  events without this run's marker or repeated: ${odd.map((s) => `${s.label}@${"AB"[s.instance] ?? "?"} ${s.unmarked} unmarked, ${s.repeats} repeats`).join("; ")}`,
      );
  }
  const idle = report.idle;
  if (idle?.problem) {
    lines.push(`Idle streams: not measured (${idle.problem})`);
    if (idle.bare)
      lines.push(
        `  bare node:http SSE: ${idle.bare.opened} streams, RSS ${mib(idle.bare.rssBeforeMiB)} -> ${mib(idle.bare.rssAfterMiB)} MiB (${ms(idle.bare.perStreamKiB, 1)} KiB a stream), one event reached ${idle.bare.reached}, the last after ${ms(idle.bare.lastMs)} ms`,
      );
  } else if (idle) {
    const row = (label, r) => [
      label,
      `${r.opened}/${r.requested}`,
      mib(r.rssBeforeMiB),
      mib(r.rssAfterMiB),
      ms(r.perStreamKiB, 1),
      mib(r.rssAfterClosingMiB),
      `${r.reached}/${r.openAtPoke}`,
      ms(r.medianMs),
      ms(r.lastMs),
    ];
    lines.push(
      `Idle event streams on one instance (straight at instance ${idle.instance}'s port; ${idle.sessions} sessions of the demo owner)`,
    );
    lines.push(
      table(
        [
          "server",
          "open",
          "RSS before MiB",
          "RSS after MiB",
          "KiB a stream",
          "RSS after closing MiB",
          "got one event",
          "median ms",
          "last ms",
        ],
        [row("Jumbe GET /chat/events", idle.jumbe), row("bare node:http SSE", idle.bare)],
      ),
    );
    if (idle.jumbe.failures) lines.push(`  refused: ${idle.jumbe.failures} (${idle.jumbe.firstFailures.join("; ")})`);
  }
  const s = report.scale;
  if (s?.problem) lines.push(`Server time at scale: not measured (${s.problem})`);
  else if (s) {
    const t = s.tenant;
    lines.push(
      `Server time at scale: a tenant of ${t.conversations.toLocaleString("en-US")} conversations (${t.open.toLocaleString("en-US")} open, ${t.unassigned.toLocaleString("en-US")} unassigned, ${t.unread.toLocaleString("en-US")} unread) and ${t.messages.toLocaleString("en-US")} messages (${t.messagesSize}), seeded in ${ms(s.seedSeconds, 1)} s; ` +
        `beside the demo tenant (${s.demoTenant ? `${s.demoTenant.conversations} conversations, ${s.demoTenant.messages} messages` : "-"}); ${s.requests} requests each at instance A`,
    );
    lines.push(
      table(
        [
          "page",
          "status",
          "server median",
          "server p95",
          "client median",
          "client p95",
          "statements",
          "bytes",
          "demo server median/p95",
          "demo client median",
          "bare, same bytes",
        ],
        s.pages.map((p) => [
          `${p.label} (${p.path ?? "-"})`,
          p.scale?.status ?? "-",
          ms(p.scale?.serverMedian, 1),
          ms(p.scale?.serverP95, 1),
          ms(p.scale?.median, 1),
          ms(p.scale?.p95, 1),
          p.scale?.statements ?? "-",
          p.scale?.bytes ?? "-",
          p.demo ? `${ms(p.demo.serverMedian, 1)}/${ms(p.demo.serverP95, 1)} (${p.demo.status})` : "-",
          ms(p.demo?.median, 1),
          ms(p.bare, 2),
        ]),
      ),
    );
    lines.push(
      `  thread: the tenant's longest conversation (${t.longestConversationMessages} messages); the demo tenant's longest (${s.demoTenant?.longestConversationMessages ?? "-"})`,
    );
  }
  const load = report.loadAverage;
  if (load)
    lines.push(
      `  Load average (1, 5, 15 min) before: ${load.before.map((v) => v.toFixed(2)).join(", ")}; after: ${load.after.map((v) => v.toFixed(2)).join(", ")}${load.before[0] > 2 ? " (above 2 at the start: other work shared the machine)" : ""}.`,
    );
  lines.push(
    "  Goals (issue 16): p99 under 500 ms at 200 inbound messages a second; 2,000 idle streams under 300 MB; list and thread under 100 ms. Figures, not checks.",
  );
  return lines.join("\n");
}
