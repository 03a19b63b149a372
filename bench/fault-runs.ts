// Fault runs (issue 78, "Proven, not assumed"): PgBouncer, the read replica and the object store
// killed in turn in the middle of a campaign, on the set-up of tests/integration/several-machines.test.ts
// (two production builds as two machines, a primary with a streaming standby, PgBouncer in transaction
// pooling before the primary, the S3 sandbox for files), with the Meta sandbox in its own process as
// the instances' Graph API (bench/campaign.mjs). docs/fault-runs.md says what it found.
//
//   npx react-router build && node --import tsx bench/fault-runs.ts
//   node --import tsx bench/fault-runs.ts --recipients 2500 --rate 100 --down-seconds 5 --faults pgbouncer,replica,object-store
//
// For a run without fault (the baseline) and then each fault:
// - a sandbox business of its own connected to the demo tenant, and `recipients` new contacts;
// - a campaign created through instance A's public API, sent by both instances' workers at `rate` a
//   second (the sandbox's throughput and the number's bucket), its statuses coming back to A;
// - a prober asking both instances every 100 ms for a page (/dashboard), an analytics page (the
//   replica's reads) and a file (/chat/media/:id, the object store), each answer's status recorded;
// - once a third of the audience is accepted, the component killed (SIGKILL for PgBouncer and the
//   standby's postmaster; the S3 sandbox's server closed, its connections cut), kept down
//   `down-seconds`, and started again on the same port;
// - once every message is final (read or failed): checked against the Meta sandbox's own record and
//   the database, every person got exactly one message and every row names Meta's message;
// - figures: the answers from the kill until every probe answers 200 again, by status (503 with
//   Retry-After expected, any other 5xx a finding), the seconds from the restart to that moment, and
//   the campaign's duration against the baseline's.
// Writes bench/results/fault-runs.json and bench/results/fault-runs.md.
import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { startS3Sandbox } from "../sandbox/s3/test-support";
import { findPgBouncer, startPgBouncer, type RunningPgBouncer } from "../tests/support/pgbouncer";
import { replicationAvailable, severalMachinesEnv, startReplicatedClusters } from "../tests/support/replica";
import { apiKeyFor } from "./api-v1.mjs";
import { signIn } from "./lib/http.mjs";
import { machineBusySeconds } from "./lib/proc.mjs";
import { freePort, startServer } from "./lib/server.mjs";
import { deliveryClean, deliveryFigures, probeFigures, sendTimeline, type Probe } from "./lib/fault-figures";
import { connectBenchNumber, GRAPH_VERSION, recipients, rootFor, sandboxBusiness, startSandbox, TEMPLATE } from "./sending.mjs";

const FAULTS = ["pgbouncer", "replica", "object-store"] as const;
type Fault = (typeof FAULTS)[number];
const FINAL = ["read", "failed"] as const;
const DEMO = { email: "demo@jumbe.demo", password: "JumbeDemo#2026" };
const HTML = "text/html,application/xhtml+xml,*/*;q=0.8";
const PROBE_EVERY_MS = 100;
/** A probe not answered by then counts as "error" (a hang is a failure a person sees too). */
const PROBE_BOUND_MS = 5_000;
const root = path.resolve(import.meta.dirname, "..");
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const say = (what: string) => process.stderr.write(`fault runs: ${what}\n`);
const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;

const { values: args } = parseArgs({
  options: {
    recipients: { type: "string", default: "2500" },
    rate: { type: "string", default: "100" },
    "down-seconds": { type: "string", default: "5" },
    faults: { type: "string", default: FAULTS.join(",") },
    "no-baseline": { type: "boolean", default: false },
    "kill-at": { type: "string", default: "0.33" },
    build: { type: "string" },
    "timeout-seconds": { type: "string", default: "600" },
  },
});
const RECIPIENTS = Number(args.recipients);
const RATE = Number(args.rate);
const DOWN_MS = Number(args["down-seconds"]) * 1000;
const KILL_AT = Number(args["kill-at"]);
const TIMEOUT_MS = Number(args["timeout-seconds"]) * 1000;
const faults = args.faults!.split(",").filter(Boolean) as Fault[];
for (const fault of faults) if (!FAULTS.includes(fault)) throw new Error(`--faults: ${fault} is not one of ${FAULTS.join(", ")}`);
const runs: (Fault | "none")[] = [...(args["no-baseline"] ? [] : (["none"] as const)), ...faults];

interface Instance {
  name: "A" | "B";
  baseUrl: string;
  output: () => string;
  stop: () => Promise<void>;
}

/** Every 100 ms per instance and probe, until stopped: each answer's status and Retry-After. */
function startProber(instances: Instance[], cookie: string, mediaMessageId: string) {
  const probes: Probe[] = [];
  let running = true;
  const kinds = { page: "/dashboard", analytics: "/analytics", media: `/chat/media/${mediaMessageId}` };
  const loops = instances.flatMap((instance) =>
    Object.entries(kinds).map(async ([kind, route]) => {
      while (running) {
        const sentAt = Date.now();
        let status: Probe["status"] = "error";
        let retryAfter: string | null = null;
        try {
          const answer = await fetch(`${instance.baseUrl}${route}`, {
            headers: { cookie, accept: HTML },
            redirect: "manual",
            signal: AbortSignal.timeout(PROBE_BOUND_MS),
          });
          await answer.arrayBuffer();
          status = answer.status;
          retryAfter = answer.headers.get("retry-after");
        } catch {
          // refused, reset or given up: "error"
        }
        probes.push({ series: `${instance.name} ${kind}`, sentAt, answeredAt: Date.now(), status, retryAfter });
        await sleep(Math.max(0, sentAt + PROBE_EVERY_MS - Date.now()));
      }
    }),
  );
  return {
    probes,
    stop: async () => {
      running = false;
      await Promise.all(loops);
    },
  };
}

/** This instance's heavy reads by target, from its /metrics. */
async function replicaReads(instance: Instance, token: string) {
  const answer = await fetch(`${instance.baseUrl}/metrics`, { headers: { authorization: `Bearer ${token}` } });
  const text = await answer.text();
  const count = (target: string) =>
    Number(new RegExp(`^jumbe_replica_reads_total\\{target="${target}"\\} (\\S+)$`, "m").exec(text)?.[1] ?? 0);
  return { replica: count("replica"), primary: count("primary") };
}

/**
 * What an instance logged at error level (pino's 50 and up) in the part of its output still kept,
 * mail to the closed SMTP port left out (startServer's SMTP_URL): each kind once, with how often.
 */
function loggedErrors(output: string) {
  const kinds = new Map<string, number>();
  for (const line of output.split("\n")) {
    let entry: { level?: number; msg?: string; queue?: string; err?: { message?: string } } | null = null;
    try {
      entry = JSON.parse(line);
    } catch {
      continue;
    }
    if (!entry || (entry.level ?? 0) < 50 || entry.queue === "notifications.mail") continue;
    const kind = `${entry.msg ?? ""}${entry.queue ? ` (${entry.queue})` : ""}: ${(entry.err?.message ?? "").slice(0, 200)}`;
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
  }
  return [...kinds].map(([kind, count]) => ({ kind, count }));
}

async function main() {
  const binary = findPgBouncer();
  if (!binary) throw new Error("PgBouncer not found (Debian's pgbouncer)");
  if (!replicationAvailable()) throw new Error("PostgreSQL 15's server binaries with pg_basebackup are needed");
  const started = rootFor(root, args.build);
  const loadAtStart = os.loadavg().map((n) => round(n, 2));
  const busyAtStart = machineBusySeconds();
  const wallAtStart = Date.now();
  const clusters = await startReplicatedClusters();
  say("primary and standby started");
  const POOL = 10;
  let bouncer: RunningPgBouncer = await startPgBouncer(binary, clusters.primaryUrl, { poolSize: POOL });
  const bouncerUrl = bouncer.through(clusters.primaryUrl);
  const bouncerPort = Number(new URL(bouncerUrl).port);
  const s3 = await startS3Sandbox();
  const client = new pg.Client({ connectionString: clusters.primaryUrl });
  const query = async <Row = Record<string, unknown>>(text: string, values?: unknown[]) => (await client.query(text, values)).rows as Row[];
  const instances: Instance[] = [];
  let meta: { base: string; stop: () => Promise<void>; output: () => string } | undefined;
  try {
    const appSecret = randomBytes(24).toString("hex");
    const encryptionKey = randomBytes(32).toString("hex");
    const controlToken = randomBytes(24).toString("base64url");
    const metricsToken = randomBytes(24).toString("hex");
    const sandboxPort = await freePort();
    const machine = {
      ...severalMachinesEnv(clusters, s3),
      META_APP_SECRET: appSecret,
      ENCRYPTION_KEY: encryptionKey,
      // One secret for both instances: a session signed in at one is good at the other.
      SESSION_SECRET: randomBytes(32).toString("hex"),
      METRICS_TOKEN: metricsToken,
      GRAPH_API_BASE_URL: `http://127.0.0.1:${sandboxPort}/sandbox/meta/graph`,
      GRAPH_API_VERSION: GRAPH_VERSION,
      JOB_WORKERS: "2",
      RATE_LIMIT_MULTIPLIER: "1000000",
    };
    // One after the other: A migrates (directly) and seeds the demo, its files going to the bucket; B finds both done.
    for (const name of ["A", "B"] as const) {
      const server = await startServer({ root: started.root, databaseUrl: bouncerUrl, extraEnv: machine });
      instances.push({ name, ...server });
      say(`instance ${name} at ${server.baseUrl}`);
    }
    const [a] = instances as [Instance, Instance];
    meta = await startSandbox(started.root, {
      PORT: String(sandboxPort),
      META_APP_SECRET: appSecret,
      META_SANDBOX_WEBHOOK_URL: `${a.baseUrl}/webhooks/whatsapp`,
      META_SANDBOX_STATUS_DELAYS_MS: "200,800,3000",
      META_SANDBOX_THROUGHPUT: String(RATE),
      META_SANDBOX_PAIR_RATE: "0",
      SANDBOX_CONTROL_TOKEN: controlToken,
    });
    await client.connect();
    const [demo] = await query<{ organization_id: string }>(`select organization_id from users where lower(email) = lower($1)`, [
      DEMO.email,
    ]);
    if (!demo) throw new Error("the demo seed made no demo organisation");
    const organizationId = demo.organization_id;
    await query(`update organizations set approval_threshold = null, billing_type = 'postpaid' where id = $1`, [organizationId]);
    const [media] = await query<{ id: string }>(
      `select id from messages where organization_id = $1 and direction = 'inbound' and media_file_id is not null order by created_at desc limit 1`,
      [organizationId],
    );
    if (!media) throw new Error("the demo seed has no inbound message with a file to probe");
    const control = async (method: string, route: string) => {
      const answer = await fetch(`${meta!.base}/sandbox/meta/control${route}`, { method, headers: { "X-Sandbox-Token": controlToken } });
      if (!answer.ok) throw new Error(`${method} control${route}: ${answer.status} ${await answer.text()}`);
      return answer.json();
    };
    const appId = (await control("GET", "/state")).appId as string;
    const cookie = await signIn(a.baseUrl, DEMO);
    const apiKey = await apiKeyFor(a.baseUrl, cookie);
    const api = async (method: string, route: string, body?: unknown) => {
      const answer = await fetch(`${a.baseUrl}${route}`, {
        method,
        headers: { Authorization: `Bearer ${apiKey}`, "Content-Type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await answer.text();
      if (answer.status >= 300) throw new Error(`${method} ${route} answered ${answer.status}: ${text.slice(0, 300)}`);
      return JSON.parse(text);
    };

    const outage: Record<Fault, { down: () => Promise<void>; up: () => Promise<void> }> = {
      pgbouncer: {
        down: () => bouncer.kill(),
        up: async () => {
          bouncer = await startPgBouncer(binary, clusters.primaryUrl, { poolSize: POOL, port: bouncerPort });
        },
      },
      replica: {
        down: () => clusters.killStandby(),
        up: async () => {
          // Its backends are gone (killStandby waits for them); a start that still finds the old
          // shared memory in use is tried again (a hang detector bounds it).
          const deadline = Date.now() + 30_000;
          for (;;) {
            try {
              await clusters.startStandbyInBackground();
              return;
            } catch (error) {
              if (Date.now() > deadline) throw error;
              await sleep(200);
            }
          }
        },
      },
      "object-store": { down: () => s3.refuseConnections!(), up: () => s3.acceptConnections!() },
    };

    const results = [];
    for (const [index, fault] of runs.entries()) {
      say(`run ${index + 1} of ${runs.length}: ${fault === "none" ? "no fault (the baseline)" : `${fault} killed`}`);
      const label = `Fault ${fault} ${randomBytes(2).toString("hex")} Ltd`;
      const business = await sandboxBusiness(meta, { controlToken, appId, appSecret, name: label });
      await connectBenchNumber(query, { organizationId, business, encryptionKey, rate: RATE, name: label });
      const audience = recipients(30_000_000 + index * 1_000_000, RECIPIENTS);
      const tag = `fault-run-${index}-${fault}`;
      await query(
        `insert into contacts (organization_id, name, phone, tags, opt_in)
         select $1, 'Mteja ' || n, p, array[$3], 'opted_in' from unnest($2::text[]) with ordinality as t(p, n)`,
        [organizationId, audience, tag],
      );
      await query(`analyze contacts`);
      const readsBefore = await Promise.all(instances.map((i) => replicaReads(i, metricsToken)));
      const prober = startProber(instances, cookie, media.id);
      await sleep(1000);
      const postedAt = Date.now();
      const campaign = await api("POST", "/api/v1/campaigns", {
        name: `Fault run: ${fault}`,
        template: TEMPLATE.name,
        from: business.phoneNumberId,
        audience: { tags: [tag] },
        parameters: [{ field: "first_name", fallback: "Mteja" }, { value: "KE-1042" }],
      });
      const counts = async () =>
        (
          await query<{ accepted: number; final: number }>(
            `select count(*) filter (where accepted_at is not null)::int as accepted,
                    count(*) filter (where status = any($2::text[]))::int as final
               from messages where campaign_id = $1`,
            [campaign.id, FINAL],
          )
        )[0]!;
      let killedAt: number | null = null;
      let restartedAt: number | null = null;
      let killedWith = 0;
      if (fault !== "none") {
        while ((await counts()).accepted < RECIPIENTS * KILL_AT) {
          if (Date.now() - postedAt > TIMEOUT_MS) throw new Error("the campaign did not reach the kill point");
          await sleep(100);
        }
        killedWith = (await counts()).accepted;
        say(`  killing ${fault} at ${killedWith} accepted`);
        killedAt = Date.now();
        await outage[fault].down();
        await sleep(Math.max(0, killedAt + DOWN_MS - Date.now()));
        await outage[fault].up();
        restartedAt = Date.now();
        say(`  ${fault} back after ${round((restartedAt - killedAt) / 1000, 2)} s`);
      }
      let finishedAt = 0;
      let lastSay = Date.now();
      for (;;) {
        const now = await counts().catch(() => ({ accepted: -1, final: -1 }));
        if (now.final >= RECIPIENTS) {
          finishedAt = Date.now();
          break;
        }
        if (Date.now() - lastSay > 10_000) {
          say(`  ${now.accepted} accepted, ${now.final} final`);
          lastSay = Date.now();
        }
        if (Date.now() - postedAt > TIMEOUT_MS) {
          say(`  not finished after ${TIMEOUT_MS / 1000} s: ${JSON.stringify(now)}`);
          break;
        }
        await sleep(500);
      }
      // The probes go on a little after the end (and at least 10 s after a restart), so a recovery is seen.
      await sleep(Math.max(2000, (restartedAt ?? 0) + 10_000 - Date.now()));
      await prober.stop();
      const readsAfter = await Promise.all(instances.map((i) => replicaReads(i, metricsToken)));
      // A few seconds for a late status to land before the rows are compared with Meta's.
      const sandboxSends = ((await control("GET", `/messages?phoneNumberId=${encodeURIComponent(business.phoneNumberId)}`)).messages ??
        []) as { wamid: string; waId: string; acceptedAt: string }[];
      const stored = await query<{ phone: string; wamid: string | null; status: string; attempts: number }>(
        `select recipient_phone as phone, wamid, status, attempts from messages where campaign_id = $1`,
        [campaign.id],
      );
      // The messages claimed more than once: when Meta accepted them, in seconds from the restart
      // (about 30 s: they waited out a claim's lease; about 300 s: a call's in-doubt hold).
      const acceptedAt = new Map(sandboxSends.map((m) => [m.wamid, Date.parse(m.acceptedAt)]));
      const retriedAfterRestart = stored
        .filter((r) => r.attempts > 1 && r.wamid && acceptedAt.has(r.wamid) && restartedAt !== null)
        .map((r) => (acceptedAt.get(r.wamid!)! - restartedAt!) / 1000)
        .sort((x, y) => x - y);
      const atMeta = sendTimeline(
        sandboxSends.map((m) => Date.parse(m.acceptedAt)),
        restartedAt,
      );
      const delivery = deliveryFigures({ audience, sandbox: sandboxSends, stored, finalStatuses: FINAL });
      const [timing] = await query<{ status: string; send_seconds: number; final_seconds: number; attempts_over_one: number }>(
        `select c.status,
                extract(epoch from (max(m.accepted_at) - c.started_at))::float8 as send_seconds,
                extract(epoch from (greatest(max(m.read_at), max(m.failed_at)) - c.started_at))::float8 as final_seconds,
                count(*) filter (where m.attempts > 1)::int as attempts_over_one
           from campaigns c join messages m on m.campaign_id = c.id where c.id = $1 group by c.id`,
        [campaign.id],
      );
      const window = { killedAt: killedAt ?? postedAt, restartedAt: restartedAt ?? postedAt };
      const answers = probeFigures(prober.probes, window);
      // In the baseline: every answer after the campaign's start (a 5xx there is a finding as much as in a fault).
      const result = {
        fault,
        recipients: RECIPIENTS,
        rate: RATE,
        downSeconds: killedAt && restartedAt ? round((restartedAt - killedAt) / 1000, 2) : 0,
        killedAtAccepted: killedWith,
        // As Meta saw the send (the sandbox's acceptance times): its length, its longest pause, and
        // how long after the restart the first message was accepted.
        atMeta: {
          seconds: round(atMeta.seconds, 1),
          longestGap: round(atMeta.longestGap, 1),
          longestGapFrom: round(atMeta.longestGapFrom, 1),
          resumedAfter: atMeta.resumedAfter === null ? null : round(atMeta.resumedAfter, 2),
        },
        campaign: {
          status: timing?.status,
          wallSeconds: finishedAt ? round((finishedAt - postedAt) / 1000, 1) : null,
          sendSeconds: round(timing?.send_seconds ?? 0, 1),
          finalSeconds: round(timing?.final_seconds ?? 0, 1),
          triedMoreThanOnce: timing?.attempts_over_one ?? 0,
          retriedAcceptedAfterRestart: retriedAfterRestart.length
            ? {
                first: round(retriedAfterRestart[0]!, 1),
                median: round(retriedAfterRestart[Math.floor(retriedAfterRestart.length / 2)]!, 1),
                last: round(retriedAfterRestart.at(-1)!, 1),
                over20s: retriedAfterRestart.filter((x) => x > 20).length,
              }
            : null,
        },
        delivery: {
          clean: deliveryClean(delivery),
          audience: delivery.audience,
          once: delivery.once,
          lost: delivery.lost.length,
          twice: delivery.twice.length,
          strangers: delivery.strangers.length,
          stored: delivery.stored,
          storedTwice: delivery.storedTwice.length,
          notFinal: delivery.notFinal.length,
          notFinalByStatus: delivery.notFinal.reduce<Record<string, number>>((m, r) => ({ ...m, [r.status]: (m[r.status] ?? 0) + 1 }), {}),
          storedUnknownToMeta: delivery.storedUnknownToMeta.length,
          metaUnknownToStore: delivery.metaUnknownToStore.length,
          examples: {
            lost: delivery.lost.slice(0, 5),
            twice: delivery.twice.slice(0, 5),
            notFinal: delivery.notFinal.slice(0, 5),
          },
        },
        answers: {
          requests: answers.requests,
          byStatus: answers.byStatus,
          unavailableWithRetryAfter: answers.unavailableWithRetryAfter,
          unavailableWithoutRetryAfter: answers.unavailableWithoutRetryAfter,
          serverErrors: answers.serverErrors,
          bySeries: answers.bySeries,
          recoverySeconds: fault === "none" ? null : answers.recoverySeconds,
          notRecovered: answers.notRecovered,
          allProbes: prober.probes.length,
          allByStatus: prober.probes.reduce<Record<string, number>>((m, p) => ({ ...m, [p.status]: (m[p.status] ?? 0) + 1 }), {}),
        },
        errorsLogged: instances.map((instance) => ({ instance: instance.name, errors: loggedErrors(instance.output()) })),
        replicaReads: instances.map((instance, i) => ({
          instance: instance.name,
          replica: readsAfter[i]!.replica - readsBefore[i]!.replica,
          primary: readsAfter[i]!.primary - readsBefore[i]!.primary,
        })),
      };
      say(
        `  ${JSON.stringify({ campaign: result.campaign, delivery: result.delivery, answers: result.answers.byStatus, recovery: result.answers.recoverySeconds })}`,
      );
      results.push(result);
      // Between runs: every probe answers 200 again before the next starts (a hang detector bounds it).
      const settled = startProber(instances, cookie, media.id);
      const deadline = Date.now() + 60_000;
      while (Date.now() < deadline) {
        await sleep(1000);
        const last = new Map(settled.probes.map((p) => [p.series, p.status]));
        if (last.size === 6 && [...last.values()].every((s) => s === 200)) break;
      }
      await settled.stop();
    }
    const report = {
      at: new Date().toISOString(),
      machine: {
        cpus: os.cpus().length,
        cpu: os.cpus()[0]?.model,
        node: process.version,
        loadAverageAtStart: loadAtStart,
        loadAverageAtEnd: os.loadavg().map((n) => round(n, 2)),
        // Cores busy over the whole run, this bench's processes and everyone else's.
        busyCores: round((machineBusySeconds() - busyAtStart) / ((Date.now() - wallAtStart) / 1000), 2),
      },
      settings: { recipients: RECIPIENTS, rate: RATE, downSeconds: DOWN_MS / 1000, killAt: KILL_AT, probeEveryMs: PROBE_EVERY_MS },
      results,
    };
    const outDir = path.join(root, "bench/results");
    mkdirSync(outDir, { recursive: true });
    writeFileSync(path.join(outDir, "fault-runs.json"), JSON.stringify(report, null, 2));
    const markdown = formatReport(report);
    writeFileSync(path.join(outDir, "fault-runs.md"), markdown);
    process.stdout.write(`${markdown}\nWrote bench/results/fault-runs.json and bench/results/fault-runs.md\n`);
  } finally {
    await client.end().catch(() => {});
    await meta?.stop();
    for (const instance of instances) await instance.stop();
    await bouncer.stop();
    await s3.close();
    clusters.destroy();
    started.remove();
  }
}

type Report = {
  at: string;
  machine: { cpus: number; cpu?: string; loadAverageAtStart: number[]; loadAverageAtEnd: number[]; busyCores: number };
  settings: { recipients: number; rate: number; downSeconds: number };
  results: {
    fault: string;
    downSeconds: number;
    atMeta: { seconds: number; longestGap: number; resumedAfter: number | null };
    campaign: { wallSeconds: number | null; sendSeconds: number; finalSeconds: number; triedMoreThanOnce: number; status?: string };
    delivery: {
      clean: boolean;
      audience: number;
      once: number;
      lost: number;
      twice: number;
      notFinal: number;
      storedUnknownToMeta: number;
    };
    answers: {
      requests: number;
      byStatus: Record<string, number>;
      unavailableWithRetryAfter: number;
      unavailableWithoutRetryAfter: number;
      serverErrors: number;
      recoverySeconds: number | null;
      notRecovered: string[];
      allByStatus: Record<string, number>;
    };
  }[];
};

/** The run as a markdown table. */
function formatReport(report: Report) {
  const baseline = report.results.find((r) => r.fault === "none");
  const statuses = (m: Record<string, number>) =>
    Object.entries(m)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([s, n]) => `${s}: ${n}`)
      .join(", ");
  const rows = report.results.map((r) => {
    const d = r.delivery;
    const versus =
      baseline && r !== baseline
        ? ` (${r.atMeta.seconds - baseline.atMeta.seconds >= 0 ? "+" : ""}${round(r.atMeta.seconds - baseline.atMeta.seconds, 1)} s)`
        : "";
    return [
      r.fault === "none" ? "none (baseline)" : r.fault,
      r.fault === "none" ? "-" : `${r.downSeconds} s`,
      `${d.once} of ${d.audience}; lost ${d.lost}, twice ${d.twice}, not final ${d.notFinal}`,
      r.fault === "none" ? statuses(r.answers.allByStatus) : statuses(r.answers.byStatus),
      r.fault === "none" ? "-" : `${r.answers.unavailableWithRetryAfter} / ${r.answers.unavailableWithoutRetryAfter}`,
      String(r.answers.serverErrors),
      r.fault === "none"
        ? "-"
        : r.answers.recoverySeconds === null
          ? `not recovered: ${r.answers.notRecovered.join(", ")}`
          : `${r.answers.recoverySeconds} s`,
      `${r.atMeta.seconds} s${versus}`,
      `${r.atMeta.longestGap} s`,
      r.atMeta.resumedAfter === null ? "-" : `${r.atMeta.resumedAfter} s`,
      `${r.campaign.finalSeconds} s`,
    ];
  });
  const head = [
    "fault",
    "down",
    "people sent exactly one message",
    "probe answers, kill to recovery",
    "503 with / without Retry-After",
    "other 5xx",
    "restart to all 200",
    "send time at Meta (vs baseline)",
    "longest pause in sending",
    "restart to next send",
    "start to last final status",
  ];
  const line = (cells: string[]) => `| ${cells.join(" | ")} |`;
  return [
    `Fault runs, ${report.at}: ${report.settings.recipients} people a campaign at ${report.settings.rate}/s, each component down ${report.settings.downSeconds} s; ` +
      `${report.machine.cpus} CPUs (${report.machine.cpu}), load ${report.machine.loadAverageAtStart.join(" ")} at the start, ${report.machine.busyCores} cores busy on average.`,
    "",
    line(head),
    line(head.map(() => "---")),
    ...rows.map(line),
    "",
  ].join("\n");
}

await main();
