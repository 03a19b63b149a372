import { once } from "node:events";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { SMTPServer } from "smtp-server";
import { afterEach, describe, expect, it, vi } from "vitest";
import { sql } from "drizzle-orm";
import {
  DEMO_MPESA_CONSUMER_KEY,
  DEMO_MPESA_CONSUMER_SECRET,
  DEMO_MPESA_PASSKEY,
  DEMO_MPESA_SHORTCODE,
  env,
  parseEnv,
  setEnv,
} from "~/.server/infrastructure/config/env";
import { db } from "~/.server/infrastructure/db/client";
import { queryRows } from "~/.server/infrastructure/db/query";
import { createMetaSandbox } from "@jumbe/sandbox/meta/index";
import { createMpesaSandbox } from "@jumbe/sandbox/mpesa/index";
import { clearProbeCache, probeServices, serviceHealth, serviceProbes, type HealthReport } from "~/.server/domains/admin/system/probes";
import { alertInWords, evaluateAlertRules, ERROR_RATE_MIN_REQUESTS } from "~/.server/domains/admin/system/alerts";
import { inLocale } from "~/.server/infrastructure/http/display-zone";
import { instanceIdentity, noteRequest } from "~/.server/infrastructure/metrics/instance";
import { METRIC, pruneSystemData, runSystemMonitor, writeHeartbeat, writeInstanceSamples } from "~/.server/domains/admin/system/monitor";
import { parseRange } from "~/.server/domains/admin/system/series";
import { seedAdminSystem } from "~/.server/demo/seed-admin-system";
import { systemAlerts } from "~/.server/domains/admin/system-alerts";
import { platformScope } from "~/.server/infrastructure/db/scope";
import { loader as systemLoader, action as systemAction } from "~/routes/admin/system";
import { loader as exportLoader } from "~/routes/admin/system-export";
import { loader as metricsLoader } from "~/routes/metrics";
import { createVerifiedUser, signedInCookie } from "../support/accounts";
import { formRequest, getRequest, run } from "../support/http";

// Issue 19, the System tab: real probes against sandboxes started here (and stopped: down, never a
// 500), the minute's samples, each alert rule raising and clearing on a real condition, Resolve with
// its audit record, the range in the URL, /metrics behind its token, and 404 to everyone but admins.

async function admin() {
  const account = await createVerifiedUser({ usertype: "admin", businessName: "Jumbe Platform" });
  return { ...account, cookie: await signedInCookie(account.email, account.password) };
}

async function member() {
  const account = await createVerifiedUser({ businessName: "Duka la Mama Ltd" });
  return { ...account, cookie: await signedInCookie(account.email, account.password) };
}

const openAlertRows = () =>
  queryRows<{
    id: string;
    rule: string;
    key: string;
    level: string;
    title: string;
    details: string | null;
    resolved_at: string | null;
    resolution: string | null;
  }>(db(), sql`select id, rule, key, level, title, details, resolved_at, resolution from system_alerts order by opened_at`);

const stoppers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (stoppers.length) await stoppers.pop()!();
  clearProbeCache();
});

async function listen(app: express.Express) {
  const server: Server = app.listen(0, "127.0.0.1");
  await once(server, "listening");
  const port = (server.address() as AddressInfo).port;
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  stoppers.push(stop);
  return { origin: `http://127.0.0.1:${port}`, stop };
}

/** The Graph and Daraja sandboxes and an SMTP server, each on a free port, and Jumbe configured for them. */
async function startSandboxes() {
  const meta = createMetaSandbox({
    appId: env().META_APP_ID,
    appSecret: env().META_APP_SECRET,
    configId: env().META_CONFIG_ID,
    webhookUrl: "http://127.0.0.1:9/webhooks/whatsapp",
    webhookRetry: { attempts: 1, baseDelayMs: 0 },
  });
  const mpesa = createMpesaSandbox({
    consumerKey: DEMO_MPESA_CONSUMER_KEY,
    consumerSecret: DEMO_MPESA_CONSUMER_SECRET,
    shortcode: DEMO_MPESA_SHORTCODE,
    passkey: DEMO_MPESA_PASSKEY,
    callbackDelayMs: 0,
  });
  stoppers.push(
    () => meta.close(),
    () => mpesa.close(),
  );
  const graph = await listen(express().use("/sandbox/meta", meta.router));
  const daraja = await listen(express().use("/sandbox/mpesa", mpesa.router));
  const smtpServer = new SMTPServer({ authOptional: true, disabledCommands: ["STARTTLS"], banner: "Jumbe test relay" });
  await new Promise<void>((resolve) => smtpServer.listen(0, "127.0.0.1", resolve));
  const smtpPort = (smtpServer.server.address() as AddressInfo).port;
  let smtpStopped = false;
  const stopSmtp = async () => {
    if (smtpStopped) return;
    smtpStopped = true;
    await new Promise<void>((resolve) => smtpServer.close(() => resolve()));
  };
  stoppers.push(stopSmtp);
  setEnv(
    parseEnv({
      NODE_ENV: "test",
      APP_URL: "http://jumbe.test",
      GRAPH_API_BASE_URL: `${graph.origin}/sandbox/meta/graph`,
      MPESA_BASE_URL: `${daraja.origin}/sandbox/mpesa`,
      SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
    }),
  );
  return { graph, daraja, stopSmtp };
}

const card = (report: HealthReport, service: string) => report.services.find((s) => s.service === service)!;

describe("the health probes", () => {
  it("show every service up against running sandboxes, each with its latency", async () => {
    await startSandboxes();
    const report = await probeServices();
    expect(report.services.map((s) => [s.service, s.status])).toEqual([
      ["Database", "up"],
      ["Job queue", "up"],
      ["Webhook intake", "up"],
      ["Graph API", "up"],
      ["M-Pesa (Daraja)", "up"],
      ["SMTP", "up"],
    ]);
    for (const probe of report.services) expect(probe.latencyMs).toBeGreaterThanOrEqual(0);
    expect(card(report, "SMTP").summary).toContain("Jumbe test relay");
    expect(card(report, "M-Pesa (Daraja)").summary).toBe("Daraja issued an OAuth token.");
  });

  it("show a stopped sandbox as down with the reason in words, and the page still answers 200", async () => {
    const { graph, daraja, stopSmtp } = await startSandboxes();
    const before = await serviceHealth();
    expect(before.cached).toBe(false);
    expect(card(before, "Graph API").status).toBe("up");
    await graph.stop();
    await daraja.stop();
    await stopSmtp();
    const report = await probeServices();
    for (const service of ["Graph API", "M-Pesa (Daraja)", "SMTP"]) {
      expect(card(report, service).status, service).toBe("down");
      expect(card(report, service).summary, service).toBe("Connection refused: nothing is listening at the configured address.");
    }
    expect(card(report, "Database").status).toBe("up");

    // The page shows the last results (with their time) until a new run has them; Probe again waits for one.
    const me = await admin();
    const cachedPage = await run(systemLoader, getRequest("/admin/system", { cookie: me.cookie }));
    expect(cachedPage.data.health).toMatchObject({ cached: true, checkedAt: before.checkedAt });
    const page = await run(systemLoader, getRequest("/admin/system?probe=now", { cookie: me.cookie }));
    expect(page.status).toBe(200);
    expect(page.data.health.services.find((s: { service: string }) => s.service === "Graph API").status).toBe("down");
  });

  // Issue 72: the Database, Job queue and Webhook intake cards read "18 ms" all three (the two queue
  // cards timed one shared statement, and every probe waited on the others' connection). A probe
  // made slow shows its slowness on its own card and on no other.
  it("time each probe alone: a slow one shows only on its own card", async () => {
    await startSandboxes();
    // No waiting on the wall clock: the probes' clock (process.hrtime) stands still while they run and
    // moves SLOW_MS only inside the slow probe, once every probe that does not follow it has finished
    // (the database's run one after another, the outside services' beside them). A probe timed with
    // another's wait, or over another's run, shows those SLOW_MS.
    const SLOW_MS = 1000;
    vi.useFakeTimers({ toFake: ["hrtime"] });
    try {
      const all = serviceProbes();
      const database = all.filter((p) => p.database).map((p) => p.service);
      for (const slow of ["Job queue", "Database", "Graph API", "Webhook intake"]) {
        const after = database.includes(slow) ? database.slice(database.indexOf(slow) + 1) : [];
        const done = new Map(
          all.map((p) => {
            let resolve = () => {};
            const promise = new Promise<void>((r) => (resolve = r));
            return [p.service, { promise, resolve }];
          }),
        );
        const before = Promise.all(
          all.filter((p) => p.service !== slow && !after.includes(p.service)).map((p) => done.get(p.service)!.promise),
        );
        const probes = all.map((p) =>
          p.run
            ? {
                ...p,
                run: async (signal: AbortSignal) => {
                  try {
                    if (p.service !== slow) return await p.run!(signal);
                    await before;
                    await new Promise((resolve) => setImmediate(resolve)); // their timing ends in the microtasks after their runs
                    vi.advanceTimersByTime(SLOW_MS);
                    return await p.run!(signal);
                  } finally {
                    done.get(p.service)!.resolve();
                  }
                },
              }
            : (done.get(p.service)!.resolve(), p),
        );
        const report = await probeServices(probes);
        expect(
          report.services.every((s) => s.status === "up"),
          slow,
        ).toBe(true);
        for (const probe of report.services)
          expect(probe.latencyMs, `${probe.service} beside a slow ${slow}`).toBe(probe.service === slow ? SLOW_MS : 0);
      }
    } finally {
      vi.useRealTimers();
    }
  });

  it("say SMTP is not configured when mail goes to the sandbox outbox", async () => {
    const report = await probeServices();
    expect(card(report, "SMTP")).toMatchObject({ status: "off", summary: "SMTP_URL is not set: mail is kept in the sandbox outbox." });
  });

  it("report the queue's depth and oldest job, and the webhook backlog", async () => {
    await db().execute(sql`insert into jobs (queue, payload, run_at) values ('test.slow', '{}'::jsonb, now() - interval '10 minutes')`);
    await db().execute(
      sql`insert into webhook_events (body, signature, received_at) values ('{}', 'sha256=x', now() - interval '7 minutes')`,
    );
    const report = await probeServices();
    expect(card(report, "Job queue")).toMatchObject({ status: "degraded" });
    expect(card(report, "Job queue").figures[0]).toEqual({ label: "Ready", value: "1" });
    expect(card(report, "Webhook intake")).toMatchObject({ status: "degraded" });
    expect(card(report, "Webhook intake").figures.find((f) => f.label === "Waiting")!.value).toBe("1");
  });
});

describe("heartbeats and samples", () => {
  it("writes this instance's heartbeat with its resources, and its minute's requests and 5xx", async () => {
    await writeHeartbeat();
    const me = instanceIdentity();
    const [beat] = await queryRows<{ instance_id: string; pid: number; resources: Record<string, number> | string }>(
      db(),
      sql`select instance_id, pid, resources from instance_heartbeats`,
    );
    expect(beat!.instance_id).toBe(me.id);
    expect(beat!.pid).toBe(process.pid);
    const resources = typeof beat!.resources === "string" ? JSON.parse(beat!.resources) : beat!.resources;
    expect(Object.keys(resources).sort()).toEqual(["cpuPercent", "eventLoopP99Ms", "heapUsedBytes", "rssBytes"]);
    expect(resources.rssBytes).toBeGreaterThan(0);

    await writeInstanceSamples(); // starts a clean minute
    await db().execute(sql`delete from metric_samples`);
    noteRequest("GET", 200, 12);
    noteRequest("POST", 302, 20);
    noteRequest("GET", 503, 5);
    await writeInstanceSamples();
    const samples = await queryRows<{ name: string; instance_id: string; value: number }>(
      db(),
      sql`select name, instance_id, value from metric_samples order by name`,
    );
    expect(samples.every((s) => s.instance_id === me.id)).toBe(true);
    const value = (name: string) => Number(samples.find((s) => s.name === name)?.value);
    expect(value(METRIC.requests)).toBe(3);
    expect(value(METRIC.serverErrors)).toBe(1);
    expect(value(METRIC.rss)).toBeGreaterThan(0);
    expect(samples.map((s) => s.name)).toContain(METRIC.loopDelay);
    expect(samples.map((s) => s.name)).toContain(METRIC.cpu);
  });

  it("samples the platform under instance '' (queue, oldest job, webhooks, error rate) and keeps 30 days", async () => {
    await db().execute(sql`insert into jobs (queue, payload, run_at) values ('test.slow', '{}'::jsonb, now() - interval '90 seconds')`);
    await db().execute(sql`insert into webhook_events (body, signature) values ('{}', 'sha256=x'), ('{}', 'sha256=y')`);
    await db().execute(sql`
      insert into metric_samples (name, instance_id, at, value) values
        ('http_requests', 'web-1:10:aa', now() - interval '20 seconds', 40), ('http_5xx', 'web-1:10:aa', now() - interval '20 seconds', 2),
        ('http_requests', 'web-1:10:aa', now() - interval '31 days', 5)`);
    await runSystemMonitor();
    const platform = await queryRows<{ name: string; value: number }>(
      db(),
      sql`select name, value from metric_samples where instance_id = ''`,
    );
    const value = (name: string) => Number(platform.find((s) => s.name === name)?.value);
    expect(value(METRIC.jobsReady)).toBe(1);
    expect(value(METRIC.oldestJob)).toBeGreaterThanOrEqual(90);
    expect(value(METRIC.webhooksReceived)).toBe(2);
    expect(value(METRIC.webhookBacklog)).toBe(2);
    expect(value(METRIC.errorRate)).toBe(5);

    expect(await pruneSystemData()).toBe(1);
    const [left] = await queryRows<{ n: number }>(
      db(),
      sql`select count(*)::int as n from metric_samples where at < now() - interval '30 days'`,
    );
    expect(left!.n).toBe(0);
  });
});

describe("the alert rules", () => {
  it("an instance missing: opens when its heartbeat is over a minute old, one row however often evaluated, clears when it beats", async () => {
    await db().execute(sql`
      insert into instance_heartbeats (instance_id, hostname, pid, started_at, last_seen_at)
      values ('web-3:4242:ab12cd', 'web-3', 4242, now() - interval '1 day', now() - interval '3 minutes')`);
    await evaluateAlertRules();
    await evaluateAlertRules();
    const [opened, ...others] = await openAlertRows();
    expect(others).toEqual([]);
    expect(opened).toMatchObject({ rule: "instance_missing", key: "web-3:4242:ab12cd", level: "error", resolved_at: null });
    expect(opened!.title).toBe("Instance web-3 (process 4242) has sent no heartbeat for 3 minutes");
    // Stored in English; an administrator reading in Swahili or French sees it in their language.
    expect(inLocale("sw", () => alertInWords(opened!.title))).toBe("Seva web-3 (mchakato 4242) haijatuma ishara ya uhai kwa dakika 3");
    expect(inLocale("fr", () => alertInWords(opened!.details!))).toBe(
      "L'instance web-3:4242:ab12cd a écrit son dernier signal de vie il y a 3 minutes ; elle en envoie un toutes les 15 secondes. Si elle a été retirée volontairement, résolvez cette alerte pour l'oublier.",
    );
    expect(await systemAlerts(platformScope({ role: "platform_admin" } as never))).toEqual([
      { id: opened!.id, level: "error", text: opened!.title },
    ]);

    await db().execute(sql`update instance_heartbeats set last_seen_at = now()`);
    await evaluateAlertRules();
    const [cleared] = await openAlertRows();
    expect(cleared!.resolved_at).not.toBeNull();
    expect(cleared!.resolution).toBe("The condition cleared.");
    expect(inLocale("sw", () => alertInWords(cleared!.resolution!))).toBe("Hali imerejea kuwa ya kawaida.");
  });

  it("queue lag: opens per queue when the oldest ready job waited over 2 minutes, clears when it ran", async () => {
    await db().execute(sql`insert into jobs (queue, payload, run_at) values ('mail.reset', '{}'::jsonb, now() - interval '5 minutes')`);
    await db().execute(sql`insert into jobs (queue, payload, run_at) values ('webhooks.out', '{}'::jsonb, now() - interval '10 seconds')`);
    await evaluateAlertRules();
    const rows = await openAlertRows();
    expect(rows.map((r) => [r.rule, r.key, r.level])).toEqual([["queue_lag", "mail.reset", "warning"]]);
    expect(rows[0]!.title).toBe("The mail.reset queue's oldest ready job has waited 5 minutes");

    await db().execute(sql`update jobs set finished_at = now()`);
    await evaluateAlertRules();
    expect((await openAlertRows())[0]!.resolved_at).not.toBeNull();
  });

  it("error rate: opens above 5% of the last 5 minutes' requests (with enough of them), clears when the share drops", async () => {
    const sample = (name: string, value: number, ago = "1 minute") =>
      db().execute(sql`insert into metric_samples (name, instance_id, at, value)
                       values (${name}, 'web-1:10:aa', now() - ${ago}::interval, ${value})`);
    // Too few requests to call it a trend.
    await sample("http_requests", ERROR_RATE_MIN_REQUESTS - 1);
    await sample("http_5xx", 10);
    await evaluateAlertRules();
    expect(await openAlertRows()).toEqual([]);

    await db().execute(sql`delete from metric_samples`);
    await sample("http_requests", 200);
    await sample("http_5xx", 30);
    await evaluateAlertRules();
    const [opened] = await openAlertRows();
    expect(opened).toMatchObject({ rule: "error_rate", key: "", level: "error", resolved_at: null });
    expect(opened!.title).toBe("15% of requests answered with a server error in the last 5 minutes");

    await sample("http_requests", 2000, "30 seconds");
    await evaluateAlertRules();
    expect((await openAlertRows())[0]!.resolved_at).not.toBeNull();
  });

  it("webhook backlog and failures: deliveries waiting over 5 minutes, and deliveries that failed processing in the last hour", async () => {
    await db().execute(sql`
      insert into webhook_events (body, signature, received_at) values
        ('{}', 'sha256=a', now() - interval '8 minutes'), ('{}', 'sha256=b', now() - interval '6 minutes'), ('{}', 'sha256=c', now())`);
    await db().execute(sql`
      insert into webhook_events (body, signature, received_at, processed_at, outcome)
      values ('{}', 'sha256=d', now() - interval '20 minutes', now() - interval '10 minutes', 'failed')`);
    await evaluateAlertRules();
    const rows = await openAlertRows();
    expect(rows.map((r) => [r.rule, r.level, r.title]).sort()).toEqual([
      ["webhook_backlog", "error", "2 webhook deliveries have waited over 5 minutes"],
      ["webhook_failures", "warning", "1 webhook delivery failed processing in the last hour"],
    ]);

    await db().execute(sql`update webhook_events set processed_at = now(), outcome = coalesce(outcome, 'processed')`);
    await db().execute(sql`update webhook_events set received_at = now() - interval '2 hours' where outcome = 'failed'`);
    await evaluateAlertRules();
    expect((await openAlertRows()).every((r) => r.resolved_at !== null)).toBe(true);
  });

  it("a condition still holding after an administrator's Resolve opens a new alert (history is never reopened)", async () => {
    await db().execute(sql`insert into jobs (queue, payload, run_at) values ('mail.reset', '{}'::jsonb, now() - interval '5 minutes')`);
    await evaluateAlertRules();
    await db().execute(sql`update system_alerts set resolved_at = now(), resolution = 'Looked at it'`);
    await evaluateAlertRules();
    const rows = await openAlertRows();
    expect(rows.map((r) => r.resolution)).toEqual(["Looked at it", null]);
  });
});

describe("the System tab", () => {
  async function missingInstanceAlert() {
    await db().execute(sql`
      insert into instance_heartbeats (instance_id, hostname, pid, started_at, last_seen_at)
      values ('web-3:4242:ab12cd', 'web-3', 4242, now() - interval '1 day', now() - interval '3 minutes')`);
    await evaluateAlertRules();
    return (await openAlertRows())[0]!;
  }

  it("Resolve closes the alert with the note, records it in the audit log, and forgets the retired instance", async () => {
    const me = await admin();
    const alert = await missingInstanceAlert();
    const outcome = await run(
      systemAction,
      formRequest(
        "/admin/system?range=7d",
        { intent: "resolve", alertId: alert.id, note: "Retired web-3 after the move to Mombasa Road" },
        { cookie: me.cookie },
      ),
    );
    expect(outcome.status).toBe(302);
    expect(outcome.location).toBe("/admin/system?range=7d#alerts");
    const [row] = await queryRows<{ resolved_at: string | null; resolved_by: string; resolution: string }>(
      db(),
      sql`select resolved_at, resolved_by, resolution from system_alerts where id = ${alert.id}`,
    );
    expect(row!.resolved_at).not.toBeNull();
    expect(row!.resolved_by).toBe(me.user.id);
    expect(row!.resolution).toBe("Retired web-3 after the move to Mombasa Road");
    const audit = await queryRows<{ action: string; target_type: string; target_id: string; reason: string; admin_email: string }>(
      db(),
      sql`select action, target_type, target_id, reason, admin_email from admin_audit_log`,
    );
    expect(audit).toEqual([
      {
        action: "alert.resolve",
        target_type: "alert",
        target_id: alert.id,
        reason: "Retired web-3 after the move to Mombasa Road",
        admin_email: me.email,
      },
    ]);
    expect(await queryRows(db(), sql`select 1 from instance_heartbeats where instance_id = 'web-3:4242:ab12cd'`)).toEqual([]);
    await evaluateAlertRules();
    expect((await openAlertRows()).filter((r) => r.resolved_at === null)).toEqual([]);

    // The page lists it as resolved, by whom, with the note.
    const page = await run(systemLoader, getRequest("/admin/system?range=1h", { cookie: me.cookie }));
    expect(page.data.openAlerts).toEqual([]);
    expect(page.data.alerts[0]).toMatchObject({
      id: alert.id,
      resolvedByEmail: me.email,
      resolution: "Retired web-3 after the move to Mombasa Road",
    });

    // Again: already resolved (409), nothing more recorded.
    const again = await run(
      systemAction,
      formRequest("/admin/system", { intent: "resolve", alertId: alert.id, note: "Twice" }, { cookie: me.cookie }),
    );
    expect(again.status).toBe(409);
    expect(again.data.message).toBe("This alert is already resolved.");
    expect(await queryRows(db(), sql`select 1 from admin_audit_log`)).toHaveLength(1);
  });

  it("refuses a missing note (400) and an unknown alert (404), changing nothing", async () => {
    const me = await admin();
    const alert = await missingInstanceAlert();
    const empty = await run(
      systemAction,
      formRequest("/admin/system", { intent: "resolve", alertId: alert.id, note: "  " }, { cookie: me.cookie }),
    );
    expect(empty.status).toBe(400);
    expect(empty.data.message).toBe("Say how the alert was resolved (at least 3 characters).");
    // PostgreSQL cannot store NUL in text: the form is refused before anything reads it.
    const nul = await run(
      systemAction,
      formRequest("/admin/system", { intent: "resolve", alertId: alert.id, note: "Restarted\u0000 it" }, { cookie: me.cookie }),
    );
    expect(nul.status).toBe(400);
    const unknown = await run(
      systemAction,
      formRequest(
        "/admin/system",
        { intent: "resolve", alertId: "6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f", note: "Done" },
        { cookie: me.cookie },
      ),
    );
    expect(unknown.status).toBe(404);
    const malformed = await run(
      systemAction,
      formRequest("/admin/system", { intent: "resolve", alertId: "42", note: "Done" }, { cookie: me.cookie }),
    );
    expect(malformed.status).toBe(404);
    expect((await openAlertRows())[0]!.resolved_at).toBeNull();
    expect(await queryRows(db(), sql`select 1 from admin_audit_log`)).toEqual([]);
  });

  it("keeps metric_hours equal to the samples added up by UTC hour through inserts, deletes, updates and a truncate", async () => {
    const byHour = () =>
      queryRows<{ name: string; instance_id: string; hour: string; total: number; peak: number; samples: number }>(
        db(),
        sql`select name, instance_id, hour::text, total, peak, samples from metric_hours order by 1, 2, 3`,
      );
    const fromSamples = () =>
      queryRows(
        db(),
        sql`select name, instance_id, date_trunc('hour', at, 'UTC')::text as hour, sum(value) as total, max(value) as peak,
                   count(*)::int as samples
            from metric_samples group by 1, 2, 3 order by 1, 2, 3`,
      );
    await db().execute(sql`delete from metric_samples`);
    expect(await byHour()).toEqual([]);
    // Two statements into the same hours add up; another instance and the platform ('') stay apart.
    await db().execute(sql`
      insert into metric_samples (name, instance_id, at, value) values
        ('cpu_percent', 'web-1:10:aa', '2026-11-30 10:05:00+00', 20), ('cpu_percent', 'web-1:10:aa', '2026-11-30 10:59:59+00', 40),
        ('cpu_percent', 'web-1:10:aa', '2026-11-30 11:00:00+00', 5), ('cpu_percent', 'web-2:11:bb', '2026-11-30 10:30:00+00', 90),
        ('jobs_ready', '', '2026-11-30 10:30:00+00', 7)`);
    await db().execute(sql`
      insert into metric_samples (name, instance_id, at, value) values ('cpu_percent', 'web-1:10:aa', '2026-11-30 10:30:00+00', 60)
      on conflict do nothing`);
    expect(await byHour()).toEqual(await fromSamples());
    expect((await byHour())[0]).toEqual({
      name: "cpu_percent",
      instance_id: "web-1:10:aa",
      hour: "2026-11-30 10:00:00+00",
      total: 120,
      peak: 60,
      samples: 3,
    });
    // A sample written again (the same minute) changes nothing.
    await db().execute(sql`
      insert into metric_samples (name, instance_id, at, value) values ('cpu_percent', 'web-1:10:aa', '2026-11-30 10:30:00+00', 60)
      on conflict do nothing`);
    expect((await byHour())[0]!.samples).toBe(3);
    // Retention's delete takes the peak with it; an update moving a sample to another hour moves its sums.
    await db().execute(sql`delete from metric_samples where value = 60`);
    await db().execute(sql`update metric_samples set at = '2026-11-30 12:10:00+00' where value = 5`);
    expect(await byHour()).toEqual(await fromSamples());
    expect((await byHour()).find((h) => h.instance_id === "web-1:10:aa" && h.hour.startsWith("2026-11-30 10"))?.peak).toBe(40);
    await db().execute(sql`truncate metric_samples`);
    expect(await byHour()).toEqual([]);
  });

  it("takes each range from the URL; a bad one answers 400 with the reason and the default range", async () => {
    const me = await admin();
    await db().execute(sql`
      insert into metric_samples (name, instance_id, at, value) values
        ('http_requests', 'web-1:10:aa', now() - interval '2 minutes', 42),
        ('http_requests', 'web-1:10:aa', now() - interval '3 days', 1000),
        ('cpu_percent', 'web-1:10:aa', now() - interval '2 minutes', 12.5),
        ('jobs_ready', '', now() - interval '2 minutes', 7)`);
    const expected = { "1h": [60, 42], "24h": [24, 42], "7d": [42, 1042], "30d": [30, 1042] } as const;
    for (const [range, [points, requests]] of Object.entries(expected)) {
      const page = await run(systemLoader, getRequest(`/admin/system?range=${range}`, { cookie: me.cookie }));
      expect(page.status, range).toBe(200);
      expect(page.data.range).toBe(range);
      expect(page.data.series.requests, range).toHaveLength(points);
      expect(
        page.data.series.requests.reduce((sum: number, p: { value: number }) => sum + p.value, 0),
        range,
      ).toBe(requests);
      expect(page.data.series.instances.map((i: { hostname: string }) => i.hostname)).toEqual(["web-1"]);
      expect(Math.max(...page.data.series.jobsReady.map((p: { value: number }) => p.value))).toBe(7);
    }
    const bad = await run(systemLoader, getRequest("/admin/system?range=2w", { cookie: me.cookie }));
    expect(bad.status).toBe(400);
    expect(bad.data.range).toBe("24h");
    expect(bad.data.rangeError).toBe('There is no time range "2w": choose 1h, 24h, 7d or 30d. Showing the last 24 hours.');
    expect(parseRange(null)).toEqual({ range: "24h", error: null });

    const page = await run(systemLoader, getRequest("/admin/system", { cookie: me.cookie }));
    expect(page.data.database.sizeBytes).toBeGreaterThan(0);
    expect(page.data.database.tables.length).toBeGreaterThan(0);
    // No DATABASE_REPLICA_URL here: the card says every read goes to the primary (tests/integration/replica.test.ts has one).
    expect(page.data.replica).toBeNull();
    if (page.data.database.kind === "pglite") {
      expect(page.data.database.slowestNote).toBe("The embedded database (PGlite) keeps no statement statistics.");
      expect(page.data.database.connections).toBeNull();
    } else {
      expect(page.data.database.connections.length).toBeGreaterThan(0);
      expect(page.data.database.slowest !== null || /pg_stat_statements/.test(page.data.database.slowestNote)).toBe(true);
    }
  });

  it("exports the range's alerts, open and resolved, as CSV; a bad range is 400", async () => {
    const me = await admin();
    await missingInstanceAlert();
    await db().execute(sql`
      insert into system_alerts (rule, key, level, title, opened_at, resolved_at, resolution)
      values ('queue_lag', 'mail.reset', 'warning', 'The mail.reset queue''s oldest ready job has waited 4 minutes', now() - interval '2 days', now() - interval '2 days', 'The condition cleared.'),
             ('error_rate', '', 'error', 'Old news', now() - interval '40 days', now() - interval '40 days', 'The condition cleared.')`);
    const csv = await run<string>(exportLoader, getRequest("/admin/system/export.csv?range=7d", { cookie: me.cookie }));
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    const lines = csv.data
      .replace(/^\uFEFF/, "")
      .trim()
      .split("\r\n");
    expect(lines[0]).toBe('"Opened","Rule","About","Level","Alert","Details","Last seen","Resolved","Resolved by","Resolution"');
    expect(lines).toHaveLength(3);
    expect(lines[1]).toContain('"Instance missing","web-3:4242:ab12cd","error","Instance web-3 (process 4242) has sent no heartbeat');
    expect(lines[2]).toContain('"Queue lag","mail.reset","warning"');
    expect(lines[2]).toContain('"the rule (condition cleared)","The condition cleared."');
    const day = await run<string>(exportLoader, getRequest("/admin/system/export.csv?range=24h", { cookie: me.cookie }));
    expect(day.data.trim().split("\r\n")).toHaveLength(2);
    const bad = await run(exportLoader, getRequest("/admin/system/export.csv?range=1y", { cookie: me.cookie }));
    expect(bad.status).toBe(400);
  });

  it("shows the demo's week: two instances' resources, the platform's charts and three resolved alerts", async () => {
    const me = await admin();
    await seedAdminSystem(me.email);
    const page = await run(systemLoader, getRequest("/admin/system?range=7d", { cookie: me.cookie }));
    expect(page.status).toBe(200);
    expect(page.data.series.instances.map((i: { hostname: string }) => i.hostname)).toEqual(["jumbe-web-1", "jumbe-web-2"]);
    expect(page.data.series.requests.filter((p: { value: number }) => p.value > 0).length).toBeGreaterThan(35);
    expect(page.data.series.webhooksReceived.filter((p: { value: number }) => p.value > 0).length).toBeGreaterThan(35);
    expect(page.data.openAlerts).toEqual([]);
    expect(page.data.alerts.map((a: { ruleWords: string; resolvedByEmail: string | null }) => [a.ruleWords, a.resolvedByEmail])).toEqual([
      ["Instance missing", me.email],
      ["Queue lag", null],
      ["Webhook backlog", me.email],
    ]);
    const audit = await queryRows<{ action: string }>(db(), sql`select action from admin_audit_log`);
    expect(audit.map((a) => a.action)).toEqual(["alert.resolve", "alert.resolve"]);
  });

  it("answers 404 to visitors and members: the page, Resolve and the export", async () => {
    const alert = await missingInstanceAlert();
    const tenant = await member();
    for (const cookie of [undefined, tenant.cookie]) {
      expect((await run(systemLoader, getRequest("/admin/system", { cookie }))).status).toBe(404);
      expect((await run(exportLoader, getRequest("/admin/system/export.csv", { cookie }))).status).toBe(404);
      const post = await run(
        systemAction,
        formRequest("/admin/system", { intent: "resolve", alertId: alert.id, note: "Not mine" }, { cookie }),
      );
      expect(post.status).toBe(404);
    }
    expect((await openAlertRows())[0]!.resolved_at).toBeNull();
  });
});

describe("/metrics", () => {
  const scrape = (authorization?: string) =>
    run<string>(metricsLoader, getRequest("/metrics", { headers: authorization ? { authorization } : {} }));

  it("answers 401 without METRICS_TOKEN configured, whatever is sent", async () => {
    expect((await scrape()).status).toBe(401);
    expect((await scrape("Bearer anything-at-all-anything-at-all")).status).toBe(401);
  });

  it("answers 401 without the token or with a wrong one, and the Prometheus text with it", async () => {
    const token = "metrics-token-for-the-test-0123456789";
    setEnv(parseEnv({ NODE_ENV: "test", APP_URL: "http://jumbe.test", METRICS_TOKEN: token }));
    const refused = await scrape();
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toBe('Bearer realm="metrics"');
    expect((await scrape(`Bearer ${token}x`)).status).toBe(401);
    expect((await scrape(`Basic ${token}`)).status).toBe(401);

    await db().execute(sql`insert into jobs (queue, payload, run_at) values ('test.slow', '{}'::jsonb, now() - interval '10 minutes')`);
    await db().execute(sql`insert into webhook_events (body, signature) values ('{}', 'sha256=x')`);
    await db().execute(sql`insert into system_alerts (rule, key, level, title) values ('queue_lag', 'test.slow', 'error', 'Slow')`);
    // Two charges the fold has not reached yet.
    await db().execute(
      sql`insert into billing_usage_pending (organization_id, day, phone_number_id, category, messages, amount_cents)
          values (gen_random_uuid(), current_date, 'pn', 'marketing', 1, 120), (gen_random_uuid(), current_date, 'pn', 'utility', 1, 40)`,
    );
    noteRequest("GET", 200, 8);
    const ok = await scrape(`Bearer ${token}`);
    expect(ok.status).toBe(200);
    expect(ok.headers.get("content-type")).toContain("text/plain");
    expect(ok.data).toMatch(/^jumbe_jobs_ready 1$/m);
    expect(ok.data).toMatch(/^jumbe_jobs_oldest_ready_seconds (59\d|6\d\d)$/m);
    expect(ok.data).toMatch(/^jumbe_webhook_backlog 1$/m);
    expect(ok.data).toMatch(/^jumbe_usage_pending 2$/m);
    expect(ok.data).toMatch(/^jumbe_alerts_open\{level="error"\} 1$/m);
    expect(ok.data).toMatch(/^jumbe_alerts_open\{level="warning"\} 0$/m);
    expect(ok.data).toMatch(/^jumbe_http_requests_total\{method="GET",status="2xx"\} \d+$/m);
    expect(ok.data).toContain("jumbe_http_request_duration_seconds_bucket");
    expect(ok.data).toContain("jumbe_process_cpu_seconds_total");
    expect(ok.data).toContain("jumbe_nodejs_eventloop_lag_p99_seconds");
  });
});
