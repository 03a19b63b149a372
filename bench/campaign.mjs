// A campaign of 100,000 people on PostgreSQL (issue 14): created through POST /api/v1/campaigns,
// frozen, fed to the dispatcher by the campaign feeder, sent to the Meta sandbox in a process of its
// own, and followed by the sandbox's status webhooks to `read`.
//
//   node bench/run.mjs --campaign-only                         (100,000 people; about 4 minutes)
//   node bench/run.mjs --campaign-only --campaign-recipients 20000
//
// - the same set-up as bench/sending.mjs (a private PostgreSQL with fsync off, the production build,
//   build/server/meta-sandbox.js with status delays 200, 800 and 3,000 ms and a throughput of `rate`
//   a second, pair rate off; a sandbox business connected to the demo tenant, TIER_UNLIMITED, a send
//   bucket of `rate`, an approved utility template at both ends);
// - `recipients` contacts in the demo tenant, tagged, opted in, with names (one INSERT ... SELECT,
//   then ANALYZE); the campaign maps {{1}} to each person's first name and {{2}} to a fixed text;
// - measured: the time POST /api/v1/campaigns takes (the audience counted, estimated and frozen);
//   the send rate from the campaign's start to each message's accepted_at (overall, and over the
//   middle 80% of the send outside the pause); the pause: at half the audience, POST .../pause, then
//   the last accepted_at after it (what was already in Meta's hands) and how many left after it;
//   the time to the last `read`; and, while it sends, the time of the Campaigns tab (/messaging)
//   and the campaign's page at the sending instance and at a web-only one (60 sequential GETs
//   each: median and 95th percentile as this process saw them and as the server reports them in
//   Server-Timing, and the server's slowest), beside the bare server answering the same bytes;
// - the baseline: bench/sending.mjs's bare loop (the same Graph calls and nothing else) for
//   `bareMessages`, in the same run, to a second number.
import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import { apiKeyFor } from "./api-v1.mjs";
import { postgresBinDir, startPrivatePostgres } from "./lib/database.mjs";
import { request, signIn } from "./lib/http.mjs";
import { startBareServer } from "./lib/bare-server.mjs";
import { timeBare, timePage } from "./lib/page-timing.mjs";
import { freePort, startServer } from "./lib/server.mjs";
import { cpuBetween, cpuOf, machineBusySeconds } from "./lib/proc.mjs";
import {
  bareLoop,
  connectBenchNumber,
  dispatcherBurstSeconds,
  dispatcherInFlight,
  GRAPH_VERSION,
  recipients,
  rootFor,
  statementTimes,
  sandboxBusiness,
  startSandbox,
  TEMPLATE,
} from "./sending.mjs";

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const BENCH_SQL = "/* bench:campaign */";

export async function benchCampaign({
  root,
  buildDir,
  recipientsCount = 100_000,
  bareMessages = 20_000,
  rate = 1000,
  statusDelaysMs = "200,800,3000",
  timeoutSeconds = 900,
  accounts,
  log = console.log,
}) {
  if (!postgresBinDir()) return { skipped: "PostgreSQL's binaries were not found" };
  const started = rootFor(root, buildDir);
  const postgres = await startPrivatePostgres({
    extraSettings: { shared_preload_libraries: "'pg_stat_statements'", "pg_stat_statements.max": "1000" },
  });
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: postgres.url });
  const query = async (text, params) => (await client.query(text, params)).rows;
  let server = null;
  let web = null;
  let sandbox = null;
  let bare = null;
  try {
    const appSecret = randomBytes(24).toString("hex");
    const encryptionKey = randomBytes(32).toString("hex");
    const controlToken = randomBytes(24).toString("base64url");
    const sandboxPort = await freePort();
    const graphBase = `http://127.0.0.1:${sandboxPort}/sandbox/meta/graph`;
    const instanceEnv = {
      RATE_LIMIT_MULTIPLIER: "1000000",
      META_APP_SECRET: appSecret,
      ENCRYPTION_KEY: encryptionKey,
      // One secret for both instances, so a session signed in at one is good at the other.
      SESSION_SECRET: randomBytes(32).toString("hex"),
      GRAPH_API_BASE_URL: graphBase,
      GRAPH_API_VERSION: GRAPH_VERSION,
    };
    server = await startServer({ root: started.root, databaseUrl: postgres.url, extraEnv: instanceEnv });
    // A second instance that only serves requests (JOB_WORKERS=0, as deploy/README.md suggests for
    // heavy sending): the pages are timed at both, the sending one and this one.
    web = await startServer({ root: started.root, databaseUrl: postgres.url, extraEnv: { ...instanceEnv, JOB_WORKERS: "0" } });
    sandbox = await startSandbox(started.root, {
      PORT: String(sandboxPort),
      META_APP_SECRET: appSecret,
      META_SANDBOX_WEBHOOK_URL: `${server.baseUrl}/webhooks/whatsapp`,
      META_SANDBOX_STATUS_DELAYS_MS: statusDelaysMs,
      META_SANDBOX_THROUGHPUT: String(rate),
      META_SANDBOX_PAIR_RATE: "0",
      SANDBOX_CONTROL_TOKEN: controlToken,
    });
    bare = await startBareServer();
    await client.connect();
    await query("create extension if not exists pg_stat_statements");
    log(`  Jumbe at ${server.baseUrl} (PostgreSQL), the Meta sandbox at ${sandbox.base} (pid ${sandbox.pid})`);

    const [{ organization_id: organizationId }] = await query(`select organization_id from users where lower(email) = lower($1)`, [
      accounts.individual.email,
    ]);
    const metaAppId = (
      await (await fetch(`${sandbox.base}/sandbox/meta/control/state`, { headers: { "X-Sandbox-Token": controlToken } })).json()
    ).appId;
    const business = await sandboxBusiness(sandbox, { controlToken, appId: metaAppId, appSecret, name: "Bench Campaign Ltd" });
    const bareBusiness = await sandboxBusiness(sandbox, { controlToken, appId: metaAppId, appSecret, name: "Bench Campaign Bare Ltd" });
    await connectBenchNumber(query, { organizationId, business, encryptionKey, rate, name: "Bench Campaign Ltd" });
    // The demo tenant has broadcast approval on (decision 033): the bench's campaign must not wait for it.
    // Its wallet (prepaid, a few thousand shillings: the demo seed) would pause a 100,000-person
    // campaign: postpaid, each accepted message is counted for the invoice instead.
    await query(`update organizations set approval_threshold = null, billing_type = 'postpaid' where id = $1`, [organizationId]);

    // The audience: contacts with Kenyan names and numbers the sandbox treats as ordinary people.
    const everyone = recipients(20_000_000, recipientsCount + bareMessages);
    const audience = everyone.slice(0, recipientsCount);
    const seeded = performance.now();
    await query(
      `${BENCH_SQL} insert into contacts (organization_id, name, phone, tags, opt_in)
       select $1, (array['Amina','Baraka','Chebet','Daudi','Esther','Faith','Grace','Hassan','Imani','Jabari'])[1 + (n % 10)] || ' ' ||
                  (array['Mwangi','Otieno','Wanjiku','Kamau','Ochieng','Njoroge','Kiprop','Wekesa'])[1 + (n / 10 % 8)],
              p, '{bench-campaign}', 'opted_in'
       from unnest($2::text[]) with ordinality as t(p, n)`,
      [organizationId, audience],
    );
    await query(`${BENCH_SQL} analyze contacts`);
    log(`  ${recipientsCount.toLocaleString("en-US")} contacts in ${((performance.now() - seeded) / 1000).toFixed(1)} s`);

    const cookie = await signIn(server.baseUrl, accounts.individual);
    const apiKey = await apiKeyFor(server.baseUrl, cookie);
    const api = async (method, route, body) => {
      const answer = await request(`${server.baseUrl}${route}`, {
        method,
        headers: { Authorization: `Bearer ${apiKey}`, "Content-Type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = answer.body.toString("utf8");
      if (answer.status >= 300) throw new Error(`${method} ${route} answered ${answer.status}: ${text.slice(0, 300)}`);
      return JSON.parse(text);
    };

    // The baseline first: the same Graph calls and nothing else, to a number no tenant has.
    const inFlight = dispatcherInFlight(root);
    const burstSeconds = dispatcherBurstSeconds(root);
    log(`  bare loop: ${bareMessages.toLocaleString("en-US")} sends, ${inFlight} in flight, paced at ${rate}/s ...`);
    const payload = {
      recipient_type: "individual",
      type: "template",
      template: {
        name: TEMPLATE.name,
        language: { code: TEMPLATE.language },
        components: [{ type: "body", parameters: TEMPLATE.parameters.map((text) => ({ type: "text", text })) }],
      },
    };
    const bareRun = await bareLoop({
      graph: business.graph.replace(/\/$/, ""),
      phoneNumberId: bareBusiness.phoneNumberId,
      token: bareBusiness.token,
      payload,
      to: everyone.slice(recipientsCount),
      inFlight,
      rate,
      burstSeconds,
    });
    log(`    ${Math.round(bareRun.acceptedPerSecond).toLocaleString("en-US")} accepted/s`);
    await sleep(5000);

    // The campaign, through the public API.
    await query(`${BENCH_SQL} select pg_stat_statements_reset()`);
    const createStarted = performance.now();
    const campaign = await api("POST", "/api/v1/campaigns", {
      name: "Bench: county rates reminder",
      template: TEMPLATE.name,
      from: business.phoneNumberId,
      audience: { tags: ["bench-campaign"] },
      parameters: [{ field: "first_name", fallback: "Mwananchi" }, { value: "KE-1042" }],
    });
    const createSeconds = (performance.now() - createStarted) / 1000;
    log(`  POST /api/v1/campaigns: ${campaign.status} in ${createSeconds.toFixed(1)} s (audience frozen)`);
    const [{ started_at: startedAt, start_epoch: startSeconds }] = await query(
      `select started_at::text, extract(epoch from started_at)::float8 as start_epoch from campaigns where id = $1`,
      [campaign.id],
    );

    // While it sends: the pages, then the pause at half the audience.
    let pages = null;
    let pause = null;
    const pidsNow = () => [server.pid, sandbox.pid, ...postgres.processIds()];
    const cpuBefore = cpuOf(pidsNow());
    const machineBefore = machineBusySeconds();
    const wallStart = performance.now();
    let lastLog = 0;
    // How far it is, without weighing on what is measured: every 500 ms the campaign's own figures
    // (stored by Jumbe's feeder, a few seconds old at most while it sends); the bench's own count of
    // every message (100 ms or more at 100,000, on the same 2 CPUs) only each 10 s and once the
    // campaign has stopped sending.
    const exactly = async () =>
      (
        await query(
          `${BENCH_SQL} select count(*) filter (where accepted_at is not null)::int as accepted,
                  count(*) filter (where status = 'read')::int as read, count(*) filter (where status = 'failed')::int as failed
           from messages where campaign_id = $1`,
          [campaign.id],
        )
      )[0];
    for (;;) {
      await sleep(500);
      const at = (performance.now() - wallStart) / 1000;
      const [stored] = await query(`${BENCH_SQL} select status, counts from campaigns where id = $1`, [campaign.id]);
      const counted = at - lastLog >= 10 || (stored.status !== "sending" && stored.status !== "paused");
      const p = counted
        ? await exactly()
        : { accepted: stored.counts?.sent ?? 0, read: stored.counts?.read ?? 0, failed: stored.counts?.failed ?? 0 };
      if (at - lastLog >= 10) {
        lastLog = at;
        log(
          `    ${at.toFixed(0)} s: ${p.accepted.toLocaleString("en-US")} accepted, ${p.read.toLocaleString("en-US")} read, ${p.failed} failed`,
        );
      }
      if (!pages && p.accepted > recipientsCount * 0.15) {
        const tab = await timePage(`${server.baseUrl}/messaging`, cookie);
        const one = await timePage(`${server.baseUrl}/messaging/campaigns/${campaign.id}`, cookie);
        const webTab = await timePage(`${web.baseUrl}/messaging`, cookie);
        const webOne = await timePage(`${web.baseUrl}/messaging/campaigns/${campaign.id}`, cookie);
        pages = {
          tab: { ...tab, bare: await timeBare(bare, tab.bytes) },
          campaign: { ...one, bare: await timeBare(bare, one.bytes) },
          webTab: { ...webTab, bare: await timeBare(bare, webTab.bytes) },
          webCampaign: { ...webOne, bare: await timeBare(bare, webOne.bytes) },
        };
        log(
          `    pages while sending (median, seen here / the server's own): /messaging ${tab.status} ${tab.median.toFixed(1)} / ${tab.serverMedian} ms, ` +
            `the campaign's page ${one.status} ${one.median.toFixed(1)} / ${one.serverMedian} ms; ` +
            `at the web-only instance ${webTab.median.toFixed(1)} / ${webTab.serverMedian} ms and ${webOne.median.toFixed(1)} / ${webOne.serverMedian} ms`,
        );
      }
      if (!pause && p.accepted >= recipientsCount / 2) {
        const [{ now: pausedAt }] = await query(`select clock_timestamp()::text as now`);
        await api("POST", `/api/v1/campaigns/${campaign.id}/pause`);
        await sleep(5000);
        const [after] = await query(
          `${BENCH_SQL} select max(accepted_at)::text as last, count(*) filter (where accepted_at > $2::timestamptz)::int as after,
                  extract(epoch from (max(accepted_at) - $2::timestamptz))::float8 as seconds
           from messages where campaign_id = $1`,
          [campaign.id, pausedAt],
        );
        pause = { pausedAt, lastAcceptedAt: after.last, sentAfter: after.after, holdSeconds: Math.max(0, after.seconds ?? 0) };
        log(`    paused: ${after.after} messages left after the pause, the last ${pause.holdSeconds.toFixed(2)} s after it`);
        await api("POST", `/api/v1/campaigns/${campaign.id}/resume`);
        pause.resumedAt = (await query(`select clock_timestamp()::text as now`))[0].now;
      }
      if ((counted && p.read + p.failed >= recipientsCount) || at > timeoutSeconds) break;
    }
    const wallSeconds = (performance.now() - wallStart) / 1000;
    const cpuAfter = cpuOf(pidsNow());
    const one = (pid) => (cpuAfter.get(pid) ?? 0) - (cpuBefore.get(pid) ?? 0);
    const others = (map) => new Map([...map].filter(([pid]) => pid !== server.pid && pid !== sandbox.pid));
    // CPU seconds over the run (the bench's own probes of PostgreSQL included in its share).
    const cpu = {
      server: one(server.pid),
      sandbox: one(sandbox.pid),
      postgres: cpuBetween(others(cpuBefore), others(cpuAfter)),
      machine: machineBusySeconds() - machineBefore,
    };
    const statements = await statementTimes(query);

    // The figures, from the rows.
    const [figures] = await query(
      `${BENCH_SQL} with m as (select accepted_at, read_at, status from messages where campaign_id = $1),
            span as (select min(accepted_at) as first, max(accepted_at) as last from m)
       select (select count(*) from m where accepted_at is not null)::int as accepted,
              (select count(*) from m where status = 'read')::int as read,
              (select count(*) from m where status = 'failed')::int as failed,
              extract(epoch from ((select last from span) - $2::timestamptz))::float8 as send_seconds,
              extract(epoch from ((select max(read_at) from m) - $2::timestamptz))::float8 as to_last_read_seconds`,
      [campaign.id, startedAt],
    );
    // The sustained rate: accepted per second over the middle 80% of the messages, the pause left out.
    const times = (
      await query(
        `${BENCH_SQL} select extract(epoch from accepted_at)::float8 as t from messages where campaign_id = $1 and accepted_at is not null order by accepted_at`,
        [campaign.id],
      )
    ).map((r) => r.t);
    const pauseGap = pause ? Math.max(0, Date.parse(pause.resumedAt) / 1000 - Date.parse(pause.pausedAt) / 1000) : 0;
    const lo = times[Math.floor(times.length * 0.1)];
    const hi = times[Math.floor(times.length * 0.9)];
    const middle = times.length * 0.8;
    const sustained = middle / Math.max(0.001, hi - lo - (pause && Date.parse(pause.pausedAt) / 1000 > lo ? pauseGap : 0));
    // Accepted in each 10 s from the start (the pause shows as a dip).
    const perTen = [];
    for (const t of times) perTen[Math.floor((t - startSeconds) / 10)] = (perTen[Math.floor((t - startSeconds) / 10)] ?? 0) + 1;
    const duplicates = await query(
      `${BENCH_SQL} select count(*)::int as n from (select recipient_phone from messages where campaign_id = $1 group by recipient_phone having count(*) > 1) d`,
      [campaign.id],
    );
    const [final] = await query(`select status, audience_size from campaigns where id = $1`, [campaign.id]);
    return {
      recipients: recipientsCount,
      rate,
      createSeconds,
      wallSeconds,
      ...figures,
      overallPerSecond: figures.accepted / Math.max(0.001, figures.send_seconds - pauseGap),
      sustainedPerSecond: sustained,
      pause,
      pages,
      bare: { acceptedPerSecond: bareRun.acceptedPerSecond, messages: bareRun.messages, accepted: bareRun.accepted },
      duplicates: duplicates[0].n,
      final,
      statements,
      acceptedPerTenSeconds: Array.from(perTen, (v) => v ?? 0),
      cpu,
    };
  } finally {
    await client.end().catch(() => {});
    await bare?.stop();
    await sandbox?.stop();
    await web?.stop();
    await server?.stop();
    postgres.destroy();
    started.remove();
  }
}

export function formatCampaign(report, { table }) {
  if (report.skipped) return `  not measured: ${report.skipped}`;
  const n = (x, d = 0) => (typeof x === "number" ? x.toLocaleString("en-US", { maximumFractionDigits: d, minimumFractionDigits: d }) : "-");
  const lines = [
    `Campaign of ${n(report.recipients)} people (PostgreSQL, the sandbox in its own process at ${n(report.rate)}/s; status delays 200/800/3,000 ms)`,
    table(
      ["figure", "value"],
      [
        ["POST /api/v1/campaigns (count, estimate, freeze)", `${n(report.createSeconds, 1)} s`],
        ["accepted by Meta", `${n(report.accepted)} (${n(report.failed)} failed); final status ${report.final.status}`],
        ["send rate, overall (pause left out)", `${n(report.overallPerSecond)} /s`],
        ["send rate, middle 80%", `${n(report.sustainedPerSecond)} /s`],
        [
          "bare loop, same Graph calls only",
          `${n(report.bare.acceptedPerSecond)} /s (ratio ${n(report.sustainedPerSecond / report.bare.acceptedPerSecond, 2)})`,
        ],
        ["start to last read", `${n(report.to_last_read_seconds, 1)} s`],
        [
          "pause: messages leaving after it, and the last one",
          report.pause ? `${n(report.pause.sentAfter)}, ${n(report.pause.holdSeconds, 2)} s after the pause` : "-",
        ],
        ["numbers sent to twice", n(report.duplicates)],
      ],
    ),
  ];
  if (report.pages) {
    const row = (label, page) =>
      page && [
        label,
        page.status,
        `${n(page.median, 1)} ms`,
        `${n(page.p95, 1)} ms`,
        page.serverMedian == null ? "-" : `${n(page.serverMedian, 1)} ms`,
        page.serverP95 == null ? "-" : `${n(page.serverP95, 1)} ms`,
        page.serverMax == null ? "-" : `${n(page.serverMax, 1)} ms`,
        n(page.bytes),
        `${n(page.bare, 2)} ms`,
      ];
    lines.push(
      table(
        [
          "page while sending (60 requests)",
          "status",
          "median",
          "p95",
          "server median",
          "server p95",
          "server max",
          "bytes",
          "bare server, same bytes",
        ],
        [
          row("/messaging (Campaigns tab)", report.pages.tab),
          row("the campaign's page", report.pages.campaign),
          row("/messaging, web-only instance", report.pages.webTab),
          row("the campaign's page, web-only", report.pages.webCampaign),
        ].filter(Boolean),
      ),
    );
  }
  if (report.acceptedPerTenSeconds)
    lines.push(`  Accepted in each 10 s from the start: ${report.acceptedPerTenSeconds.map((v) => n(v)).join(" ")}.`);
  if (report.cpu) {
    const { server, sandbox, postgres, machine } = report.cpu;
    const per = (seconds) => `${((seconds / Math.max(1, report.accepted)) * 1000).toFixed(2)} ms`;
    const cores = (seconds) => (seconds / report.wallSeconds).toFixed(2);
    lines.push(
      `  CPU over the ${report.wallSeconds.toFixed(1)} s run (cores): server ${cores(server)}, sandbox ${cores(sandbox)}, PostgreSQL ${cores(postgres)}, ` +
        `the whole machine ${cores(machine)}; per message: server ${per(server)}, PostgreSQL ${per(postgres)}, sandbox ${per(sandbox)}.`,
    );
  }
  if (report.statements) {
    const t = report.statements;
    lines.push(`  Database time by statement (pg_stat_statements from the campaign's creation: ${n(t.totalMs)} ms in all)`);
    lines.push(
      table(
        ["statement", "calls", "total ms", "mean ms", "rows", "share"],
        t.kinds.map((k) => [k.kind, n(k.calls), n(k.ms), n(k.meanMs, 2), n(k.rows), `${n((k.ms / t.totalMs) * 100, 1)}%`]),
      ),
    );
  }
  return lines.join("\n");
}
