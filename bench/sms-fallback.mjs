#!/usr/bin/env node
// The WhatsApp → SMS fallback at campaign scale (issue 77, decision 152), on a private PostgreSQL:
//
//   npm run build && node bench/sms-fallback.mjs                      (100,000 people, 10% not on WhatsApp)
//   node bench/sms-fallback.mjs --recipients 20000 --unreachable 0.1
//
// Two campaigns of the same size to the same kind of audience, in the same run, one after the other:
// - the baseline: no fallback;
// - the fallback: an SMS of its own for anyone WhatsApp cannot reach.
// A tenth of each audience has numbers the Meta sandbox fails with 131026 "Message undeliverable"
// (their last four digits 0000) after accepting them. The SMS goes through Jumbe's Africa's Talking
// client to the Africa's Talking sandbox in a process of its own, as the Meta sandbox is (in production
// both are remote, so neither's CPU is Jumbe's): its demo application, its balance raised, its delivery
// reports sent back to Jumbe. The customers not on WhatsApp wrote by SMS in the last day, so SMS quiet
// hours never hold the SMS back whatever the time of the run.
//
// Measured: each campaign's WhatsApp send rate (accepted a second over the middle 80%); for the
// fallback, each SMS's delay from its WhatsApp failure (Meta's failed status) to Africa's Talking's
// acceptance (p50, p99, max) and when the last one left; checked: one SMS per unreachable person and
// none to anyone else, Jumbe's rows against the sandbox's record. Each campaign's CPU seconds by
// process (Jumbe, PostgreSQL, each sandbox, this script) from /proc, so the ratio can be read against
// what each side cost.
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { performance } from "node:perf_hooks";
import { postgresBinDir, startPrivatePostgres } from "./lib/database.mjs";
import { cpuOf, cpuSeconds, machineBusySeconds, reapedChildrenSeconds } from "./lib/proc.mjs";
import { signIn } from "./lib/http.mjs";
import { freePort, startServer } from "./lib/server.mjs";
import { apiKeyFor } from "./api-v1.mjs";
import { connectBenchNumber, GRAPH_VERSION, rootFor, sandboxBusiness, startSandbox, statementTimes, TEMPLATE } from "./sending.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const ACCOUNT = { email: "demo@jumbe.demo", password: "JumbeDemo#2026" };
const BENCH_SQL = "/* bench:sms-fallback */";
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const { values: args } = parseArgs({
  options: {
    recipients: { type: "string", default: "100000" },
    unreachable: { type: "string", default: "0.1" },
    rate: { type: "string", default: "1000" },
    build: { type: "string" },
    "timeout-seconds": { type: "string", default: "900" },
    // Samples pg_stat_activity every 100 ms during each campaign: what the busy backends ran and waited on.
    "sample-waits": { type: "boolean", default: false },
  },
});

/**
 * `n` Kenyan numbers (+254 then `series`, 7 or 1, then 8 digits): every `1/share`-th ends 0000 (the
 * sandbox fails it: at most 10,000 such numbers a series, so each campaign has its own series), the
 * others end 1000 to 1019 (no ending the sandbox treats specially).
 */
function audience(series, n, share) {
  const every = Math.round(1 / share);
  const out = [];
  let far = 0;
  let near = 0;
  for (let i = 0; i < n; i++) {
    const unreachable = i % every === 0;
    const k = unreachable ? far++ : near++;
    const ending = unreachable ? "0000" : String(1000 + Math.floor(k / 10_000));
    out.push({ phone: `+254${series}${String(k % 10_000).padStart(4, "0")}${ending}`, unreachable });
  }
  return out;
}

/** Inclusive CPU µs by function (name and place, each counted once a stack) in each window of a .cpuprofile. */
function inclusiveByFunction(file, windows) {
  const profile = JSON.parse(readFileSync(file, "utf8"));
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const result = windows.map(() => new Map());
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    const at = (t += profile.timeDeltas[i]);
    const w = i + 1 < profile.timeDeltas.length ? profile.timeDeltas[i + 1] : 0;
    const k = windows.findIndex((x) => at >= x.fromUs && at <= x.toUs);
    if (k < 0 || w <= 0 || w > 1_000_000) continue;
    const leaf = nodes.get(profile.samples[i]);
    if (leaf.callFrame.functionName === "(idle)") continue;
    const seen = new Set();
    for (let id = leaf.id; id !== undefined; id = parent.get(id)) {
      const { functionName, url, lineNumber } = nodes.get(id).callFrame;
      const key = `${functionName || "(anonymous)"} ${url.replace(/^.*\/(node_modules\/)?/, "")}:${lineNumber + 1}`;
      if (seen.has(key)) continue;
      seen.add(key);
      result[k].set(key, (result[k].get(key) ?? 0) + w);
    }
  }
  return result;
}

async function run() {
  const recipientsCount = Number(args.recipients);
  const share = Number(args.unreachable);
  const rate = Number(args.rate);
  if (!postgresBinDir()) throw new Error("PostgreSQL's binaries were not found");
  const started = rootFor(root, args.build);
  const postgres = await startPrivatePostgres({
    extraSettings: { shared_preload_libraries: "'pg_stat_statements'", "pg_stat_statements.max": "1000" },
  });
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: postgres.url });
  const query = async (text, params) => (await client.query(text, params)).rows;
  let server = null;
  let sandbox = null;
  let smsSandbox = null;
  let sampler = null;
  try {
    const appSecret = randomBytes(24).toString("hex");
    const encryptionKey = randomBytes(32).toString("hex");
    const controlToken = randomBytes(24).toString("base64url");
    const sandboxPort = await freePort();
    const smsPort = await freePort();
    smsSandbox = await startSandbox(
      started.root,
      { PORT: String(smsPort), SANDBOX_CONTROL_TOKEN: controlToken },
      { file: "africastalking-sandbox.js", name: "the Africa's Talking sandbox" },
    );
    server = await startServer({
      root: started.root,
      databaseUrl: postgres.url,
      extraEnv: {
        RATE_LIMIT_MULTIPLIER: "1000000",
        META_APP_SECRET: appSecret,
        ENCRYPTION_KEY: encryptionKey,
        SANDBOX_CONTROL_TOKEN: controlToken,
        GRAPH_API_BASE_URL: `http://127.0.0.1:${sandboxPort}/sandbox/meta/graph`,
        GRAPH_API_VERSION: GRAPH_VERSION,
        AFRICASTALKING_BASE_URL: `${smsSandbox.base}/sandbox/africastalking`,
        // A profiled server must exit by itself (its profile is written then), before the bench's kill.
        ...(process.env.BENCH_CPU_PROF_DIR ? { SHUTDOWN_GRACE_MS: "1000" } : {}),
      },
    });
    sandbox = await startSandbox(started.root, {
      PORT: String(sandboxPort),
      META_APP_SECRET: appSecret,
      META_SANDBOX_WEBHOOK_URL: `${server.baseUrl}/webhooks/whatsapp`,
      META_SANDBOX_STATUS_DELAYS_MS: "200,800,3000",
      META_SANDBOX_THROUGHPUT: String(rate),
      META_SANDBOX_PAIR_RATE: "0",
      SANDBOX_CONTROL_TOKEN: controlToken,
    });
    await client.connect();
    await query("create extension if not exists pg_stat_statements");
    console.log(`Jumbe at ${server.baseUrl} (PostgreSQL), the Meta sandbox at ${sandbox.base}, Africa's Talking's at ${smsSandbox.base}`);

    const [{ organization_id: organizationId }] = await query(`select organization_id from users where lower(email) = lower($1)`, [
      ACCOUNT.email,
    ]);
    const appId = (
      await (await fetch(`${sandbox.base}/sandbox/meta/control/state`, { headers: { "X-Sandbox-Token": controlToken } })).json()
    ).appId;
    const business = await sandboxBusiness(sandbox, { controlToken, appId, appSecret, name: "Bench Fallback Ltd" });
    await connectBenchNumber(query, { organizationId, business, encryptionKey, rate, name: "Bench Fallback Ltd" });
    await query(`update organizations set approval_threshold = null, billing_type = 'postpaid' where id = $1`, [organizationId]);

    // SMS: the demo application (the seed connects one organisation; this one gets the same, sealed
    // with this run's key), its balance raised, its delivery reports and incoming SMS sent to Jumbe.
    await query(
      `insert into sms_connections (organization_id, username, api_key_sealed, api_key_hint, sender_id, callback_token, status)
       select $1, username, api_key_sealed, api_key_hint, sender_id, $2, 'working' from sms_connections where username = 'jumbe-demo' limit 1
       on conflict (organization_id) do nothing`,
      [organizationId, randomBytes(24).toString("hex")],
    );
    const [{ callback_token: token }] = await query(`select callback_token from sms_connections where organization_id = $1`, [
      organizationId,
    ]);
    const at = `${smsSandbox.base}/sandbox/africastalking/control`;
    const control = async (method, route, body) => {
      const answer = await fetch(`${at}${route}`, {
        method,
        headers: { "X-Sandbox-Token": controlToken, "Content-Type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      if (!answer.ok) throw new Error(`${method} ${route}: ${answer.status} ${await answer.text()}`);
      return answer.json();
    };
    const { accounts } = await control("GET", "/accounts");
    const app = accounts.find((a) => a.username === "jumbe-demo");
    await control("PUT", "/accounts/jumbe-demo", {
      ...app,
      apiKey: "atsk_jumbe_sandbox_demo_0000000000000000",
      balanceKes: 10_000_000,
      deliveryReportUrl: `${server.baseUrl}/webhooks/sms/${token}/delivery`,
      incomingUrl: `${server.baseUrl}/webhooks/sms/${token}/incoming`,
      optOutUrl: `${server.baseUrl}/webhooks/sms/${token}/optout`,
    });
    // The sandbox keeps the last 2,000 messages; its total counts every one.
    const sentBefore = (await control("GET", "/messages")).accepted;

    // Two audiences: contacts tagged per campaign, opted in; the unreachable ones wrote by SMS an hour ago.
    if (recipientsCount * share > 10_000 || recipientsCount > 200_000)
      throw new Error("at most 10,000 unreachable and 200,000 people a campaign");
    // A warm-up campaign first (a twentieth of the size, not measured): the first campaign after the
    // server starts also pays for HubSpot's first sweep (decision 172) and the analytics fold's
    // catching up with the demo's history, which made the baseline look slower than it is.
    const warmupCount = Math.max(1000, Math.round(recipientsCount / 20));
    const groups = {
      warmup: audience("9", warmupCount, share),
      baseline: audience("7", recipientsCount, share),
      fallback: audience("1", recipientsCount, share),
    };
    for (const [tag, people] of Object.entries(groups)) {
      await query(
        `${BENCH_SQL} insert into contacts (organization_id, name, phone, tags, opt_in)
         select $1, 'Mteja ' || n, p, array[$3], 'opted_in' from unnest($2::text[]) with ordinality as t(p, n)
         on conflict (organization_id, phone) where phone is not null
         do update set tags = array_append(contacts.tags, $3), opt_in = 'opted_in'`,
        [organizationId, people.map((p) => p.phone), `bench-${tag}`],
      );
      await query(
        `${BENCH_SQL} insert into messages (organization_id, contact_id, direction, status, body, channel, phone_number_id, message_type, recipient_phone, sent_at)
         select c.organization_id, c.id, 'inbound', 'received', 'Habari', 'sms', $3, 'text', c.phone, now() - interval '1 hour'
         from contacts c where c.organization_id = $1 and c.phone = any($2::text[])`,
        [organizationId, people.filter((p) => p.unreachable).map((p) => p.phone), business.phoneNumberId],
      );
    }
    await query(`${BENCH_SQL} analyze contacts`);
    await query(`${BENCH_SQL} analyze messages`);

    const cookie = await signIn(server.baseUrl, ACCOUNT);
    const apiKey = await apiKeyFor(server.baseUrl, cookie);
    const api = async (method, route, body) => {
      const answer = await fetch(`${server.baseUrl}${route}`, {
        method,
        headers: { Authorization: `Bearer ${apiKey}`, "Content-Type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await answer.text();
      if (answer.status >= 300) throw new Error(`${method} ${route} answered ${answer.status}: ${text.slice(0, 300)}`);
      return JSON.parse(text);
    };

    // CPU seconds so far by process; PostgreSQL's backends that ended count in the postmaster's reaped time.
    const postmaster = postgres.processIds()[0];
    const cpuNow = () => {
      const bench = process.cpuUsage();
      return {
        jumbe: cpuSeconds(server.pid),
        postgres: [...cpuOf(postgres.processIds()).values()].reduce((a, b) => a + b, 0) + reapedChildrenSeconds(postmaster),
        meta: cpuSeconds(sandbox.pid),
        africastalking: cpuSeconds(smsSandbox.pid),
        bench: (bench.user + bench.system) / 1e6,
        machine: machineBusySeconds(),
        wall: performance.now() / 1000,
      };
    };
    const cpuSince = (before) => {
      const now = cpuNow();
      return Object.fromEntries(Object.entries(now).map(([k, v]) => [k, v - before[k]]));
    };

    // What the busy backends run and wait on, sampled (--sample-waits): each sample is 100 ms of one
    // backend, so a count tenfold is seconds. "CPU" is a backend with no wait event.
    sampler = args["sample-waits"] ? new pg.Client({ connectionString: postgres.url }) : null;
    await sampler?.connect();
    const sampleWaits = () => {
      if (!sampler) return { stop: async () => [] };
      const tally = new Map();
      let running = true;
      const loop = (async () => {
        while (running) {
          const { rows } = await sampler.query(
            // A lock wait also names what its first blocker is doing: a statement, or its transaction idle
            // between statements (the process holding locks while it works outside the database).
            `${BENCH_SQL} select coalesce(a.wait_event_type || ':' || a.wait_event, 'CPU') as wait,
                    left(regexp_replace(a.query, '\\s+', ' ', 'g'), 90) as query,
                    case when b.pid is not null then
                      case when b.state = 'active' then 'behind ' || left(regexp_replace(b.query, '\\s+', ' ', 'g'), 60)
                           else 'behind ' || b.state || ' after ' || left(regexp_replace(b.query, '\\s+', ' ', 'g'), 50) end end as behind
             from pg_stat_activity a
             left join lateral (select p.pid, p.state, p.query from pg_stat_activity p
                                where p.pid = (pg_blocking_pids(a.pid))[1]) b on a.wait_event_type = 'Lock'
             where a.state = 'active' and a.backend_type = 'client backend' and a.pid <> pg_backend_pid()
               and a.query not like '/* bench:%'`,
          );
          for (const r of rows) {
            const key = `${r.wait.padEnd(28)} ${r.query}${r.behind ? `\n${" ".repeat(44)}${r.behind}` : ""}`;
            tally.set(key, (tally.get(key) ?? 0) + 1);
          }
          await sleep(100);
        }
      })();
      return {
        stop: async () => {
          running = false;
          await loop;
          return [...tally.entries()].sort((a, b) => b[1] - a[1]);
        },
      };
    };

    const runCampaign = async (tag, smsFallback) => {
      const fromUs = Number(process.hrtime.bigint() / 1000n);
      const cpuBefore = cpuNow();
      const waits = sampleWaits();
      const campaign = await api("POST", "/api/v1/campaigns", {
        name: `Bench: ${tag}`,
        template: TEMPLATE.name,
        from: business.phoneNumberId,
        audience: { tags: [`bench-${tag}`] },
        parameters: [{ field: "first_name", fallback: "Mteja" }, { value: "KE-1042" }],
        ...(smsFallback ? { smsFallback } : {}),
      });
      const unreachable = groups[tag].filter((p) => p.unreachable).length;
      const size = groups[tag].length;
      const wall = performance.now();
      for (let last = 0; ;) {
        await sleep(1000);
        const at = (performance.now() - wall) / 1000;
        const [p] = await query(
          `${BENCH_SQL} select count(*) filter (where accepted_at is not null)::int as accepted, count(*) filter (where status = 'failed')::int as failed,
                  (select count(*) from sms_fallbacks f join messages s on s.id = f.sms_message_id
                   where f.campaign_id = $1 and s.accepted_at is not null)::int as sms
           from messages where campaign_id = $1`,
          [campaign.id],
        );
        if (at - last >= 10) {
          last = at;
          console.log(`  ${tag} ${at.toFixed(0)} s: ${p.accepted} accepted, ${p.failed} failed, ${p.sms} SMS accepted by Africa's Talking`);
        }
        const done = p.accepted >= size && p.failed >= unreachable && (!smsFallback || p.sms >= unreachable);
        if (done || at > Number(args["timeout-seconds"])) break;
      }
      const times = (
        await query(
          `${BENCH_SQL} select extract(epoch from accepted_at)::float8 as t from messages where campaign_id = $1 and accepted_at is not null order by accepted_at`,
          [campaign.id],
        )
      ).map((r) => r.t);
      const lo = times[Math.floor(times.length * 0.1)];
      const hi = times[Math.floor(times.length * 0.9)];
      const sustained = (times.length * 0.8) / Math.max(0.001, hi - lo);
      const cpu = cpuSince(cpuBefore);
      return {
        id: campaign.id,
        accepted: times.length,
        sustained,
        lastAccepted: times.at(-1),
        unreachable,
        cpu,
        waits: await waits.stop(),
        window: { fromUs, toUs: Number(process.hrtime.bigint() / 1000n) },
      };
    };

    console.log(`Warm-up: ${warmupCount.toLocaleString("en-US")} people, no fallback, not measured ...`);
    await runCampaign("warmup", null);
    await sleep(5000);
    console.log(`Baseline: ${recipientsCount.toLocaleString("en-US")} people, no fallback ...`);
    await query("select pg_stat_statements_reset()");
    const baseline = await runCampaign("baseline", null);
    await sleep(5000);
    const baselineStatements = await statementTimes(query);
    await query("select pg_stat_statements_reset()");
    console.log(
      `Fallback: ${recipientsCount.toLocaleString("en-US")} people, an SMS for the ${Math.round(share * 100)}% WhatsApp cannot reach ...`,
    );
    const fallback = await runCampaign("fallback", { text: "Habari {{1}}, bili yako ya maji {{2}} iko tayari. Lipa kwa M-Pesa." });
    const statements = await statementTimes(query);

    const [delays] = await query(
      `${BENCH_SQL} with d as (
         select extract(epoch from (s.accepted_at - w.failed_at))::float8 as seconds, s.accepted_at
         from sms_fallbacks f join messages w on w.id = f.source_message_id join messages s on s.id = f.sms_message_id
         where f.campaign_id = $1 and s.accepted_at is not null)
       select count(*)::int as n, percentile_cont(0.5) within group (order by seconds) as p50,
              percentile_cont(0.99) within group (order by seconds) as p99, max(seconds) as max,
              extract(epoch from max(accepted_at))::float8 as last_sms
       from d`,
      [fallback.id],
    );
    const [checks] = await query(
      `${BENCH_SQL} select
         (select count(*) from sms_fallbacks where campaign_id = $1)::int as fallbacks,
         (select count(*) from sms_fallbacks where campaign_id = $1 and state = 'sent')::int as sent,
         (select count(*) from sms_fallbacks f join messages w on w.id = f.source_message_id
          where f.campaign_id = $1 and w.recipient_phone not like '%0000')::int as to_reachable,
         (select count(*) from (select w.recipient_phone from sms_fallbacks f join messages w on w.id = f.source_message_id
          where f.campaign_id = $1 group by 1 having count(*) > 1) x)::int as twice,
         (select count(*) from sms_fallbacks where campaign_id = $2)::int as baseline_fallbacks`,
      [fallback.id, baseline.id],
    );
    const sandboxSent = (await control("GET", "/messages")).accepted - sentBefore;
    const n = (x, d = 0) =>
      typeof x === "number" ? x.toLocaleString("en-US", { maximumFractionDigits: d, minimumFractionDigits: d }) : "-";
    console.log(
      `\nSMS fallback, ${n(recipientsCount)} people each, ${Math.round(share * 100)}% not on WhatsApp (PostgreSQL; Meta sandbox at ${n(rate)}/s)`,
    );
    console.log(
      `  WhatsApp rate, middle 80%: baseline ${n(baseline.sustained)} /s, with the fallback ${n(fallback.sustained)} /s (ratio ${n(fallback.sustained / baseline.sustained, 2)})`,
    );
    console.log(
      `  SMS: ${n(delays.n)} of ${n(fallback.unreachable)} accepted by Africa's Talking; from the WhatsApp failure: p50 ${n(delays.p50, 1)} s, p99 ${n(delays.p99, 1)} s, max ${n(delays.max, 1)} s; the last SMS ${n(delays.last_sms - fallback.lastAccepted, 1)} s after the campaign's last WhatsApp message`,
    );
    const right =
      checks.fallbacks === fallback.unreachable &&
      checks.sent === fallback.unreachable &&
      checks.to_reachable === 0 &&
      checks.twice === 0 &&
      checks.baseline_fallbacks === 0 &&
      sandboxSent === fallback.unreachable;
    console.log(
      `  Checks: ${n(checks.fallbacks)} fallbacks, ${n(checks.sent)} sent, ${checks.to_reachable} to someone WhatsApp reached, ${checks.twice} people twice, ${checks.baseline_fallbacks} for the baseline; the sandbox accepted ${n(sandboxSent)} numbers -> ${right ? "all right" : "WRONG"}`,
    );
    console.log("  CPU seconds by process over each campaign (from its start until its last message and SMS were in):");
    const processes = [
      ["jumbe", "Jumbe (server, workers, dispatcher)"],
      ["postgres", "PostgreSQL (every backend)"],
      ["meta", "Meta sandbox (own process)"],
      ["africastalking", "Africa's Talking sandbox (own process)"],
      ["bench", "this script"],
      ["machine", "the whole machine, busy"],
      ["wall", "wall clock"],
    ];
    for (const [key, label] of processes)
      console.log(
        `    ${label.padEnd(42)} baseline ${n(baseline.cpu[key], 1).padStart(7)} s | fallback ${n(fallback.cpu[key], 1).padStart(7)} s`,
      );
    console.log(
      `    Jumbe's CPU per 1,000 WhatsApp messages: baseline ${n((baseline.cpu.jumbe / baseline.accepted) * 1000, 2)} s, fallback ${n((fallback.cpu.jumbe / fallback.accepted) * 1000, 2)} s`,
    );
    // Each kind in both campaigns: what the fallback adds is the difference.
    const before = new Map(baselineStatements.kinds.map((k) => [k.kind, k]));
    console.log(
      `  Database time by statement, baseline and fallback campaigns (${n(baselineStatements.totalMs)} ms and ${n(statements.totalMs)} ms in all):`,
    );
    for (const k of statements.kinds.slice(0, 14)) {
      const b = before.get(k.kind);
      console.log(
        `    ${k.kind.padEnd(50)} ${n(b?.calls ?? 0).padStart(8)} calls ${n(b?.ms ?? 0).padStart(9)} ms | ${n(k.calls).padStart(8)} calls ${n(k.ms).padStart(9)} ms ${n((k.ms / statements.totalMs) * 100, 1).padStart(5)}%`,
      );
    }
    console.log("  The fallback campaign's costliest statements:");
    for (const t of statements.top)
      console.log(`    ${n(t.ms).padStart(9)} ms ${n(t.calls).padStart(8)} calls ${n(t.meanMs, 2).padStart(7)} ms each  ${t.query}`);
    if (sampler)
      for (const [tag, result] of [
        ["baseline", baseline],
        ["fallback", fallback],
      ]) {
        console.log(`  Busy backends sampled every 100 ms, ${tag} campaign (samples; the wait, the statement):`);
        for (const [key, count] of result.waits.slice(0, 25)) console.log(`    ${String(count).padStart(6)}  ${key}`);
      }
    // BENCH_CPU_PROF_DIR (bench/lib/server.mjs): Jumbe's CPU by function in each campaign, from its profile.
    if (process.env.BENCH_CPU_PROF_DIR) {
      await server.stop();
      server = null;
      const file = readdirSync(process.env.BENCH_CPU_PROF_DIR).find((f) => f.endsWith(".cpuprofile"));
      if (file) {
        const byWindow = inclusiveByFunction(path.join(process.env.BENCH_CPU_PROF_DIR, file), [baseline.window, fallback.window]);
        const added = (name) => (byWindow[1].get(name) ?? 0) - (byWindow[0].get(name) ?? 0);
        const names = [
          ...new Set(
            byWindow.flatMap((w) =>
              [...w.entries()]
                .sort((a, b) => b[1] - a[1])
                .slice(0, 60)
                .map(([k]) => k),
            ),
          ),
        ];
        names.sort((a, b) => added(b) - added(a));
        console.log("  Jumbe's CPU by function, inclusive (baseline | fallback, seconds), by what the fallback adds:");
        for (const name of names.slice(0, 45))
          console.log(
            `    ${n((byWindow[0].get(name) ?? 0) / 1e6, 2).padStart(7)} | ${n((byWindow[1].get(name) ?? 0) / 1e6, 2).padStart(7)}  ${name}`,
          );
      }
    }
    if (!right) process.exitCode = 1;
  } finally {
    await client.end().catch(() => {});
    await sampler?.end().catch(() => {});
    await sandbox?.stop();
    await smsSandbox?.stop();
    await server?.stop();
    postgres.destroy();
    started.remove();
  }
}

await run();
