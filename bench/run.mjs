#!/usr/bin/env node
// Jumbe benchmarks: figures to compare between commits, never a pass/fail test.
//
//   npm run build && npm run bench
//   node bench/run.mjs --duration 5
//   node bench/run.mjs --database-url postgres://...     (or DATABASE_URL=...; see docs/benchmarks.md)
//   node bench/run.mjs --public-only                     (landing and legal pages: weight and Lighthouse)
//   node bench/run.mjs --webhooks-only                   (POST /webhooks/whatsapp: acknowledged/s, latency, drain)
//   node bench/run.mjs --activity-only --database-url .. (activity log with a million records: first page, export; PostgreSQL only)
//   node bench/run.mjs --pages-only                      (every signed-in page and the JSON API beside a baseline React Router app and bare Node)
//   node bench/run.mjs --templates-only --private-postgres (the Templates pages with 5,000 templates beside the baselines; PostgreSQL only)
//   node bench/run.mjs --nginx-only                      (nginx in front of two instances vs one, on a private PostgreSQL)
//   node bench/run.mjs --sending-only                    (100,000 messages through the sending pipeline and the Meta sandbox, on a private PostgreSQL)
//   node bench/run.mjs --campaign-only                   (a 100,000-person campaign through the API, the feeder, the dispatcher and the Meta sandbox, with a pause)
//   node bench/run.mjs --contacts-import-only            (a 100,000-row contacts CSV imported on a private PostgreSQL and on PGlite, beside the bare parse)
//   node bench/run.mjs --inbox-only                      (the inbox: webhook to browser stream through nginx, 2,000 idle streams, /chat at 5,000,000 messages)
//   node bench/run.mjs --billing-only                    (wallet holds and charges under contention, an M-Pesa top-up end to end, sending on prepaid vs postpaid)
//   node bench/run.mjs --analytics-only                  (the analytics report in process, /analytics once built, /api/v1/analytics and /dashboard at 10,000,000 messages, on a private PostgreSQL)
//   node bench/run.mjs --admin-only                      (the admin console's tabs, notifications and search at 10,000 organisations, on a private PostgreSQL)
//   node bench/run.mjs --automations-only                (inbound messages at 1,000 a second without, then with 500 keyword rules, welcome and away, on a private PostgreSQL)
//
// Starts the production build (node build/server/index.js) on a free port with a fresh DATA_DIR,
// measures the app pages' weight, the public pages' transferred bytes in Chromium, their Lighthouse
// scores, API throughput, every page and the JSON API beside a baseline app and bare Node, webhook
// ingestion and (PostgreSQL only) the activity log at a million records, and stops the server;
// then nginx in front of two instances vs one. Prints tables and writes bench/results/latest.json.
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { postgresDurability, startPrivatePostgres, withDatabase } from "./lib/database.mjs";
import { signIn } from "./lib/http.mjs";
import { startServer } from "./lib/server.mjs";
import { formatLighthouse, runLighthouse } from "./lighthouse.mjs";
import { formatSlowNetwork, measureSlowNetwork } from "./slow-network.mjs";
import { measurePages } from "./page-weight.mjs";
import { formatPublicPages, measurePublicPages } from "./public-pages.mjs";
import { argon2Cost, benchMe, benchSignin } from "./throughput.mjs";
import { apiKeyFor, benchApiV1, formatApiV1 } from "./api-v1.mjs";
import { benchWebhooks, formatWebhooks, newAppSecret, verifyStoredRows } from "./webhooks.mjs";
import { benchActivity, formatActivity } from "./activity.mjs";
import { benchPages, formatPages } from "./pages.mjs";
import { benchTemplates, formatTemplates } from "./templates.mjs";
import { benchNginxPair, formatNginxPair } from "./nginx-pair.mjs";
import { benchSending, formatSending } from "./sending.mjs";
import { benchContactsImport, formatContactsImport } from "./contacts-import.mjs";
import { benchCampaign, formatCampaign } from "./campaign.mjs";
import { benchInbox, formatInbox, PARTS as INBOX_PARTS } from "./inbox.mjs";
import { benchBilling, formatBilling } from "./billing.mjs";
import { benchAnalytics, formatAnalytics } from "./analytics.mjs";
import { benchAdmin, formatAdmin } from "./admin.mjs";
import { benchAutomations, formatAutomations } from "./automations.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

// The demo seed (app/.server/demo/seed.ts) creates these in sandbox mode.
const ACCOUNTS = {
  individual: { email: "demo@jumbe.demo", password: "JumbeDemo#2026" },
  admin: { email: "admin@jumbe.demo", password: "JumbeAdmin#2026" },
};

const { values: args } = parseArgs({
  options: {
    "database-url": { type: "string" },
    duration: { type: "string", default: "10" },
    "signin-connections": { type: "string", default: "1,4,16" },
    "me-connections": { type: "string", default: "1,10,50" },
    "skip-throughput": { type: "boolean", default: false },
    "skip-public": { type: "boolean", default: false },
    "skip-lighthouse": { type: "boolean", default: false },
    "public-only": { type: "boolean", default: false },
    "webhook-connections": { type: "string", default: "10,50,100" },
    "drain-timeout": { type: "string", default: "60" },
    "skip-webhooks": { type: "boolean", default: false },
    "webhooks-only": { type: "boolean", default: false },
    "activity-records": { type: "string", default: "1000000" },
    "activity-duration": { type: "string", default: "5" },
    "activity-export-timeout": { type: "string", default: "240" },
    "skip-activity": { type: "boolean", default: false },
    "activity-only": { type: "boolean", default: false },
    "pages-connections": { type: "string", default: "10" },
    "skip-pages": { type: "boolean", default: false },
    "pages-only": { type: "boolean", default: false },
    "pages-paths": { type: "string" },
    "pages-rounds": { type: "string", default: "1" },
    "templates-count": { type: "string", default: "5000" },
    "templates-hops": { type: "string", default: "100" },
    "skip-templates": { type: "boolean", default: false },
    "templates-only": { type: "boolean", default: false },
    "nginx-connections": { type: "string", default: "10" },
    "nginx-rounds": { type: "string", default: "1" },
    "skip-nginx": { type: "boolean", default: false },
    "nginx-only": { type: "boolean", default: false },
    "sending-messages": { type: "string", default: "100000" },
    "sending-sample": { type: "string", default: "10" },
    "sending-bare-messages": { type: "string", default: "20000" },
    "sending-rate": { type: "string", default: "1000" },
    "sending-status-delays": { type: "string", default: "200,800,3000" },
    "sending-build": { type: "string" },
    "sending-no-cpu-prof": { type: "boolean", default: false },
    "sending-billing": { type: "string", default: "postpaid" },
    "skip-sending": { type: "boolean", default: false },
    "sending-only": { type: "boolean", default: false },
    "contacts-import-rows": { type: "string", default: "100000" },
    "skip-contacts-import": { type: "boolean", default: false },
    "contacts-import-only": { type: "boolean", default: false },
    "campaign-recipients": { type: "string", default: "100000" },
    "campaign-build": { type: "string" },
    "skip-campaign": { type: "boolean", default: false },
    "campaign-only": { type: "boolean", default: false },
    "inbox-parts": { type: "string", default: INBOX_PARTS.join(",") },
    "inbox-rate": { type: "string", default: "200" },
    "inbox-duration": { type: "string", default: "20" },
    "inbox-customers": { type: "string", default: "400" },
    "inbox-streams": { type: "string", default: "1" },
    "inbox-nginx-streams": { type: "string", default: "2" },
    "inbox-idle-streams": { type: "string", default: "2000" },
    "inbox-conversations": { type: "string", default: "100000" },
    "inbox-messages": { type: "string", default: "5000000" },
    "inbox-requests": { type: "string", default: "60" },
    "skip-inbox": { type: "boolean", default: false },
    "inbox-only": { type: "boolean", default: false },
    "billing-connections": { type: "string", default: "20" },
    "billing-ops": { type: "string", default: "500" },
    "billing-topups": { type: "string", default: "200" },
    "billing-concurrency": { type: "string", default: "10" },
    "billing-sending-messages": { type: "string", default: "20000" },
    "skip-billing": { type: "boolean", default: false },
    "billing-only": { type: "boolean", default: false },
    "analytics-messages": { type: "string", default: "10000000" },
    "analytics-contacts": { type: "string", default: "200000" },
    "analytics-others": { type: "string", default: "100" },
    "analytics-others-messages": { type: "string", default: "1000" },
    "analytics-requests": { type: "string", default: "30" },
    "analytics-keep": { type: "boolean", default: false },
    "skip-analytics": { type: "boolean", default: false },
    "analytics-only": { type: "boolean", default: false },
    "admin-organizations": { type: "string", default: "10000" },
    "admin-messages": { type: "string", default: "60" },
    "admin-requests": { type: "string", default: "30" },
    "admin-keep": { type: "boolean", default: false },
    "skip-admin": { type: "boolean", default: false },
    "admin-only": { type: "boolean", default: false },
    "automations-rate": { type: "string", default: "1000" },
    "automations-duration": { type: "string", default: "10" },
    "automations-customers": { type: "string", default: "2000" },
    "automations-rules": { type: "string", default: "500" },
    "automations-drain-timeout": { type: "string", default: "180" },
    "automations-status-webhooks": { type: "boolean", default: false },
    "automations-cap": { type: "string", default: "fresh" },
    "automations-control": { type: "boolean", default: false },
    "automations-instances": { type: "string", default: "1" },
    "skip-automations": { type: "boolean", default: false },
    "automations-only": { type: "boolean", default: false },
    "private-postgres": { type: "boolean", default: false },
    "durable-postgres": { type: "boolean", default: false },
    "postgres-socket": { type: "boolean", default: false },
    help: { type: "boolean", short: "h", default: false },
  },
});

if (args.help) {
  console.log(`Usage: node bench/run.mjs [options]   (run \`npm run build\` first)

  --database-url URL          run on PostgreSQL (default: env DATABASE_URL, else embedded PGlite)
  --duration SECONDS          length of each load run (default 10)
  --signin-connections LIST   connection counts for POST /api/auth/signin (default 1,4,16)
  --me-connections LIST       connection counts for GET /api/auth/me (default 1,10,50)
  --skip-throughput           no load runs (page weight and Lighthouse only)
  --skip-public               leave out the public pages (/, /privacy-policy, /terms-of-service)
  --skip-lighthouse           leave out the Lighthouse runs
  --public-only               only the public pages: their transferred bytes and Lighthouse scores, and the
                              slow-network check (Regular 3G first visits; Lighthouse on /login, /dashboard, /chat, /billing)
  --webhook-connections LIST  connection counts for POST /webhooks/whatsapp (default 10,50,100)
  --drain-timeout SECONDS     how long to wait for the webhook backlog after each load run (default 60)
  --skip-webhooks             leave out the webhook ingestion runs
  --webhooks-only             only the webhook runs (bare Node baseline, Jumbe, drain)
  --activity-records N        activity records inserted for the demo tenant (default 1000000; PostgreSQL only)
  --activity-duration SECONDS length of each activity load run at 10 connections (default 5)
  --activity-export-timeout S stop reading an export after S seconds and report what arrived (default 240)
  --skip-activity             leave out the activity log benchmark
  --activity-only             only the activity log benchmark (first page and export at a million records)
  --pages-connections N       connections for the pages runs (default 10)
  --skip-pages                leave out the pages runs (every signed-in page and the JSON API beside the baselines)
  --pages-only                only the pages runs: Jumbe, bench/baseline-app and bare Node at the same sizes
  --pages-paths P1,P2         only these paths in the pages runs (as listed in the report, e.g. /developers,/api/auth/me)
  --pages-rounds N            Jumbe and the baseline app take turns N times per path; the ratio is the rounds' median (default 1)
  --templates-count N         message templates inserted for the demo tenant and for the admin's (default 5000; PostgreSQL only)
  --templates-hops N          "Older" links followed from /templates to the deep page (default 100)
  --skip-templates            leave out the message templates benchmark
  --templates-only            only the message templates benchmark (its pages beside the baselines, query plans; PostgreSQL only)
  --nginx-connections N       connections for the nginx runs (default 10)
  --nginx-rounds N            nginx runs with one and two instances N times, alternating; the best of each counts (default 1)
  --skip-nginx                leave out nginx in front of two instances vs one
  --nginx-only                only nginx in front of two instances vs one (a private PostgreSQL cluster of its own)
  --sending-messages N        messages through the sending pipeline (default 100000)
  --sending-sample N          of them through POST /api/v1/messages, the rest by one INSERT copying the API's row (default 10)
  --sending-bare-messages N   calls of the bare loop (the same Graph calls without Jumbe; default 20000)
  --sending-rate N            the number's send bucket and the sandbox's throughput, a second (default 1000)
  --sending-status-delays L   the sandbox's sent,delivered,read delays in ms (default 200,800,3000)
  --sending-build DIR         run the sending section on this copy of build/ (so a rebuild meanwhile cannot touch it)
  --sending-no-cpu-prof       no --cpu-prof of the server during the sending run
  --sending-billing TYPE      the tenant's billing while sending: postpaid (each message counted) or prepaid (charged from its wallet); default postpaid
  --skip-sending              leave out the sending pipeline
  --sending-only              only the sending pipeline (a private PostgreSQL cluster of its own, the Meta sandbox as its own process)
  --contacts-import-rows N    rows of the contacts import benchmark's file (default 100000; 2% invalid, 5% duplicates)
  --skip-contacts-import      leave out the contacts import
  --contacts-import-only      only the contacts import (a private PostgreSQL cluster of its own, then PGlite, beside the bare parse)
  --campaign-recipients N     people in the campaign benchmark (default 100000)
  --campaign-build DIR        run the campaign benchmark on a copy of this build (others may rebuild build/ meanwhile)
  --skip-campaign             leave out the campaign benchmark
  --campaign-only             only the campaign (a private PostgreSQL cluster, the Meta sandbox as its own process)
  --inbox-parts LIST          which inbox measurements: latency,idle,scale (default all three)
  --inbox-rate N              inbound messages a second through nginx (default 200)
  --inbox-duration SECONDS    how long they are sent (default 20)
  --inbox-customers N         customers writing them, each once in a warm-up first (default 400)
  --inbox-streams N           GET /chat/events streams straight at each instance (default 1)
  --inbox-nginx-streams N     streams through nginx (default 2)
  --inbox-idle-streams N      idle streams held on one instance (default 2000)
  --inbox-conversations N     conversations of the tenant at scale (default 100000)
  --inbox-messages N          its messages (default 5000000)
  --inbox-requests N          sequential requests a page at scale (default 60)
  --skip-inbox                leave out the inbox
  --inbox-only                only the inbox (two instances behind nginx on a private PostgreSQL cluster)
  --billing-connections N     connections holding and charging on one wallet (default 20)
  --billing-ops N             hold + charge pairs per connection (default 500)
  --billing-topups N          M-Pesa top-ups through the server and its M-Pesa sandbox (default 200)
  --billing-concurrency N     top-ups in flight at once (default 10)
  --billing-sending-messages N  messages through the sending pipeline on prepaid, then on postpaid (default 20000; 0 leaves it out)
  --skip-billing              leave out billing
  --billing-only              only billing (a private PostgreSQL cluster, the production build and its M-Pesa sandbox)
  --analytics-messages N      the large tenant's messages over 365 days (default 10000000; 100000 for a smoke run)
  --analytics-contacts N      its contacts (default 200000)
  --analytics-others N        small tenants beside it (default 100)
  --analytics-others-messages N  messages of each small tenant (default 1000)
  --analytics-requests N      sequential calls of the report and requests of each page (default 30)
  --analytics-keep            leave its cluster running at the end (its URL printed) until Ctrl-C, to look at plans
  --skip-analytics            leave out analytics
  --analytics-only            only analytics (a private PostgreSQL cluster: seed, backfill and fold, the report in process, /analytics, the API and /dashboard)
  --admin-organizations N     the admin console bench's organisations (default 10000; 500 for a smoke run)
  --admin-messages N          messages a year of each of its organisations (default 60)
  --admin-requests N          sequential requests of each console page (default 30)
  --admin-keep                leave its cluster running at the end (its URL printed) until Ctrl-C, to look at plans
  --skip-admin                leave out the admin console
  --admin-only                only the admin console (a private PostgreSQL cluster: seed, fold, each tab's first page, notifications and search)
  --automations-rate LIST     inbound messages a second of the automations runs, each rate without then with automations (default 1000)
  --automations-duration S    seconds of messages a run (default 10)
  --automations-customers N   customers writing them, new to the tenant in each run (default 2000)
  --automations-rules N       keyword rules of the run with automations (default 500)
  --automations-drain-timeout S  how long to wait for the webhooks and jobs after each run's load (default 180)
  --automations-status-webhooks  let the Meta sandbox send the replies' status webhooks at its usual delays (default: held past the runs)
  --automations-cap fresh|full  the number's hourly cap of 1,000 automated replies when run B starts: fresh (its first replies are
                              queued, then it is reached) or full (every message decided, then capped: the steady state); default fresh
  --automations-instances N   Jumbe instances on the database, the webhooks spread over them in turn as nginx does (default 1)
  --automations-control       a second run without automations after the first, to measure this machine's noise beside what automations add
  --skip-automations          leave out the automations benchmark
  --automations-only          only automations (a private PostgreSQL cluster with commit timestamps, or --database-url; PGlite when PostgreSQL is missing)
  --private-postgres          run on a throwaway PostgreSQL cluster started for this run (fsync off)
  --durable-postgres          with --private-postgres: fsync, synchronous_commit and full_page_writes on, as production runs
  --postgres-socket           with --private-postgres: Jumbe reaches it through its Unix socket instead of TCP on 127.0.0.1`);
  process.exit(0);
}

const duration = Number(args.duration);
const connectionList = (text) =>
  text
    .split(",")
    .map(Number)
    .filter((n) => Number.isInteger(n) && n > 0);
let databaseUrl = args["database-url"] ?? process.env.DATABASE_URL;
if (args["private-postgres"] && databaseUrl) {
  console.error("--private-postgres and --database-url (or DATABASE_URL) exclude each other.");
  process.exit(2);
}
const publicOnly = args["public-only"];
const webhooksOnly = args["webhooks-only"];
const activityOnly = args["activity-only"];
const pagesOnly = args["pages-only"];
const nginxOnly = args["nginx-only"];
const templatesOnly = args["templates-only"];
const sendingOnly = args["sending-only"];
const contactsImportOnly = args["contacts-import-only"];
const campaignOnly = args["campaign-only"];
const inboxOnly = args["inbox-only"];
const billingOnly = args["billing-only"];
const analyticsOnly = args["analytics-only"];
const adminOnly = args["admin-only"];
const automationsOnly = args["automations-only"];
if (
  [
    publicOnly,
    webhooksOnly,
    activityOnly,
    pagesOnly,
    nginxOnly,
    templatesOnly,
    sendingOnly,
    contactsImportOnly,
    campaignOnly,
    inboxOnly,
    billingOnly,
    analyticsOnly,
    adminOnly,
    automationsOnly,
  ].filter(Boolean).length > 1
) {
  console.error(
    "--public-only, --webhooks-only, --activity-only, --pages-only, --templates-only, --nginx-only, --sending-only, --contacts-import-only, --campaign-only, --inbox-only, --billing-only, --analytics-only, --admin-only and --automations-only exclude each other.",
  );
  process.exit(2);
}
const only =
  publicOnly ||
  webhooksOnly ||
  activityOnly ||
  pagesOnly ||
  nginxOnly ||
  templatesOnly ||
  sendingOnly ||
  contactsImportOnly ||
  campaignOnly ||
  inboxOnly ||
  billingOnly ||
  analyticsOnly ||
  adminOnly ||
  automationsOnly;
const runAppPages = !only;
const runPublic = publicOnly || (!only && !args["skip-public"]);
const runLighthouseScores = runPublic && !args["skip-lighthouse"];
const runThroughput = !only && !args["skip-throughput"];
const runWebhooks = webhooksOnly || (!only && !args["skip-webhooks"]);
const runActivity = activityOnly || (!only && !args["skip-activity"]);
const runPages = pagesOnly || (!only && !args["skip-pages"]);
const runTemplates = templatesOnly || (!only && !args["skip-templates"]);
const runNginx = nginxOnly || (!only && !args["skip-nginx"]);
const runSending = sendingOnly || (!only && !args["skip-sending"]);
const runContactsImport = contactsImportOnly || (!only && !args["skip-contacts-import"]);
const runCampaign = campaignOnly || (!only && !args["skip-campaign"]);
const runInbox = inboxOnly || (!only && !args["skip-inbox"]);
const runBilling = billingOnly || (!only && !args["skip-billing"]);
const runAnalytics = analyticsOnly || (!only && !args["skip-analytics"]);
const runAdmin = adminOnly || (!only && !args["skip-admin"]);
const runAutomations = automationsOnly || (!only && !args["skip-automations"]);

const kB = (bytes) => (bytes / 1000).toFixed(1);
const fixed = (value, digits = 1) => (typeof value === "number" ? value.toFixed(digits) : "-");

function table(headers, rows) {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) => cells.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join("  ");
  return [line(headers), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n");
}

function gitCommit() {
  try {
    return execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: root, stdio: ["ignore", "pipe", "ignore"] })
      .toString()
      .trim();
  } catch {
    return null;
  }
}

function printPages(report) {
  console.log(
    `\nPage weight (first visit; kB = 1000 bytes on the wire; br = a browser over HTTPS, gzip = a gzip-only client; budgets: pages without React ${kB(report.documentBudgetGzip)} kB gzip, hydrated pages ${kB(report.appCeilingGzip)} kB gzip (goal ${kB(report.appGoalGzip)} for the code, words at most ${kB(report.wordsBudgetGzip)} kB gzip in each language) and ${kB(report.nextPageBudgetGzip)} kB more opened after /dashboard)`,
  );
  const rows = report.pages.map((p) =>
    p.error && !p.js
      ? [p.path, p.as ?? "-", p.error, "", "", "", "", "", "", "", ""]
      : [
          p.path,
          p.as ?? "-",
          p.js.files,
          kB(p.js.rawBytes),
          kB(p.js.brotliBytes),
          kB(p.js.gzipBytes),
          kB(p.html.gzipBytes),
          kB(p.css.gzipBytes),
          p.js.afterOverviewGzipBytes === undefined ? "-" : kB(p.js.afterOverviewGzipBytes),
          p.js.wordsByLocale
            ? Object.entries(p.js.wordsByLocale)
                .map(([locale, bytes]) => `${locale} ${kB(bytes)}`)
                .join(", ")
            : "-",
          p.document
            ? `${p.overBudget ? "OVER" : (p.error ?? "ok")} (${kB(report.documentBudgetGzip)} kB gzip)`
            : `${p.overBudget || p.overWordsBudget ? "OVER" : (p.error ?? "ok")}${p.overGoal ? `, over the ${kB(report.appGoalGzip)} kB goal` : ", goal met"}`,
        ],
  );
  console.log(
    table(
      ["page", "as", "JS files", "JS raw", "JS br", "JS gzip", "HTML gzip", "CSS gzip", "after /dashboard", "words gzip", "JS budget"],
      rows,
    ),
  );
}

function printThroughput(section, note) {
  console.log(`\n${section.endpoint}${note ? `  (${note})` : ""}`);
  if (section.problem) {
    console.log(`  not measured: ${section.problem}`);
    return;
  }
  const rows = section.runs.map((r) => [
    r.case,
    r.connections,
    fixed(r.requestsPerSecond),
    fixed(r.latencyMs.p50, 0),
    fixed(r.latencyMs.p99, 0),
    r.requests,
    Object.entries(r.statuses)
      .map(([code, count]) => `${code}:${count}`)
      .join(" ") + (r.errors ? ` errors:${r.errors}` : ""),
  ]);
  console.log(table(["case", "connections", "req/s", "p50 ms", "p99 ms", "requests", "statuses"], rows));
  const refused = section.runs.reduce((total, r) => total + (r.statuses["429"] ?? 0), 0);
  if (refused)
    console.log(
      `  WARNING: ${refused} responses were 429 (rate limited): the server ignored RATE_LIMIT_MULTIPLIER, so these figures are not sign-ins.`,
    );
  else if (section.runs.some((r) => r.errors || Object.keys(r.statuses).some((code) => Number(code) !== (r.expectedStatus ?? 200))))
    console.log("  WARNING: some requests did not get the expected answer; see statuses.");
}

function printArgon2(argon2, signin) {
  const parallel = Math.min(argon2.threadPool, argon2.cpus);
  const median = (label) => signin.runs.find((r) => r.case === label && r.connections === 1)?.latencyMs.p50;
  const valid = median("valid account");
  const unknown = median("unknown e-mail (401)");
  console.log(
    `  argon2id (19 MiB, t=2, p=1) dominates: one verification takes ${fixed(argon2.verifyMs)} ms in a quiet process here` +
      (valid && unknown
        ? `; an unknown e-mail, which verifies against a dummy hash and writes nothing, has a ${unknown} ms median against ${valid} ms for a real sign-in`
        : "") +
      `. Verifications run on libuv's thread pool (${argon2.threadPool} threads) over ${argon2.cpus} CPUs shared with the database and autocannon, ` +
      `so hashing alone caps sign-in near ${fixed((parallel * 1000) / argon2.verifyMs, 0)}/s.`,
  );
}

const cpus = os.availableParallelism?.() ?? os.cpus().length;
/** The throwaway cluster of --private-postgres, while it runs. */
let privatePostgres = null;

async function main() {
  if ((activityOnly || templatesOnly) && !databaseUrl && !args["private-postgres"]) {
    console.log(
      `${activityOnly ? "Activity log" : "Message templates"} at scale: skipped (PostgreSQL only: pass --database-url or --private-postgres, or set DATABASE_URL; on PGlite nothing is measured).`,
    );
    return;
  }
  const started = new Date();
  const loadBefore = os.loadavg()[0];
  // Throughput figures are only comparable on an otherwise idle machine.
  if (loadBefore > cpus / 2)
    console.log(
      `Note: the 1-minute load average is ${loadBefore.toFixed(1)} on ${cpus} CPUs; other work will skew the throughput and Lighthouse figures.`,
    );
  const results = {
    startedAt: started.toISOString(),
    commit: gitCommit(),
    node: process.version,
    machine: {
      cpu: os.cpus()[0]?.model ?? "unknown",
      cpus,
      memoryGiB: Math.round(os.totalmem() / 2 ** 30),
      loadAverageBefore: loadBefore,
      loadAverageAfter: null,
    },
    database: null,
    durationSeconds: duration,
  };
  // nginx-pair.mjs makes a cluster of its own; this one is for the single-server runs.
  privatePostgres =
    args["private-postgres"] &&
    !nginxOnly &&
    !sendingOnly &&
    !contactsImportOnly &&
    !campaignOnly &&
    !inboxOnly &&
    !billingOnly &&
    !analyticsOnly &&
    !adminOnly &&
    !automationsOnly
      ? await startPrivatePostgres({
          extraSettings: args["durable-postgres"] ? { fsync: "on", synchronous_commit: "on", full_page_writes: "on" } : {},
        })
      : null;
  if (privatePostgres) {
    // Also when a signal ends the run (destroy() is synchronous).
    process.once("exit", () => privatePostgres.destroy());
    databaseUrl = args["postgres-socket"] ? privatePostgres.socketUrl : privatePostgres.url;
    const durability = args["durable-postgres"] ? "fsync and synchronous_commit on" : "fsync and synchronous_commit off";
    console.log(`Private PostgreSQL cluster at ${databaseUrl} (${durability})`);
  }
  try {
    if (
      !nginxOnly &&
      !sendingOnly &&
      !contactsImportOnly &&
      !campaignOnly &&
      !inboxOnly &&
      !billingOnly &&
      !analyticsOnly &&
      !adminOnly &&
      !automationsOnly
    )
      await singleServerRuns(results);
    // Its own cluster, server and Meta sandbox, after the single server has stopped.
    if (runSending) {
      const count = Number(args["sending-messages"]);
      if (sendingOnly) results.database = "postgres";
      console.log(`\nSending pipeline: ${count.toLocaleString("en-US")} messages through Jumbe and the Meta sandbox ...`);
      try {
        results.sending = await benchSending({
          root,
          buildDir: args["sending-build"],
          accounts: ACCOUNTS,
          messages: count,
          sample: Number(args["sending-sample"]),
          bareMessages: Number(args["sending-bare-messages"]),
          rate: Number(args["sending-rate"]),
          statusDelaysMs: args["sending-status-delays"],
          cpuProfile: !args["sending-no-cpu-prof"],
          billingType: args["sending-billing"],
          log: (line) => console.log(line),
        });
      } catch (error) {
        results.sending = { problem: error instanceof Error ? error.message : String(error) };
      }
      console.log(formatSending(results.sending, { table }));
    }
    // Its own cluster (commit timestamps on) and a server started afresh for each run.
    if (runAutomations) {
      const loadBeforeAutomations = os.loadavg();
      const rates = connectionList(args["automations-rate"]);
      const seconds = Number(args["automations-duration"]);
      console.log(
        `\nAutomations: ${rates.map((r) => `${r.toLocaleString("en-US")}/s`).join(", ")} of inbound messages for ${seconds} s, without then with ${Number(args["automations-rules"])} keyword rules, welcome and away ...`,
      );
      try {
        results.automations = await benchAutomations({
          root,
          accounts: ACCOUNTS,
          // Not --private-postgres's cluster: this benchmark's own has commit timestamps on.
          databaseUrl: args["database-url"] ?? process.env.DATABASE_URL,
          rates,
          duration: seconds,
          customers: Number(args["automations-customers"]),
          rules: Number(args["automations-rules"]),
          drainTimeoutSeconds: Number(args["automations-drain-timeout"]),
          statusWebhooks: args["automations-status-webhooks"],
          cap: args["automations-cap"],
          control: args["automations-control"],
          instances: Number(args["automations-instances"]),
          log: (line) => console.log(line),
        });
        if (automationsOnly) results.database = results.automations.database.kind;
      } catch (error) {
        results.automations = { problem: error instanceof Error ? error.message : String(error) };
      }
      results.automations.loadAverage = { before: loadBeforeAutomations, after: os.loadavg() };
      console.log(formatAutomations(results.automations, { table }));
    }
    // Its own cluster, server and Meta sandbox, like the sending pipeline.
    if (runCampaign) {
      const count = Number(args["campaign-recipients"]);
      if (campaignOnly) results.database = "postgres";
      console.log(`\nCampaign: ${count.toLocaleString("en-US")} people through the API, the feeder and the Meta sandbox ...`);
      try {
        results.campaign = await benchCampaign({
          root,
          buildDir: args["campaign-build"],
          accounts: ACCOUNTS,
          recipientsCount: count,
          log: (line) => console.log(line),
        });
      } catch (error) {
        results.campaign = { skipped: error instanceof Error ? error.message : String(error) };
      }
      console.log(formatCampaign(results.campaign, { table }));
    }
    // Its own cluster and server, with the M-Pesa sandbox.
    if (runBilling) {
      if (billingOnly) results.database = "postgres";
      console.log(`\nBilling: the wallet under contention and M-Pesa top-ups end to end, beside bare baselines ...`);
      try {
        results.billing = await benchBilling({
          root,
          accounts: ACCOUNTS,
          connections: Number(args["billing-connections"]),
          ops: Number(args["billing-ops"]),
          topups: Number(args["billing-topups"]),
          concurrency: Number(args["billing-concurrency"]),
          sendingMessages: Number(args["billing-sending-messages"]),
          log: (line) => console.log(line),
        });
      } catch (error) {
        results.billing = { problem: error instanceof Error ? error.message : String(error) };
      }
      console.log(formatBilling(results.billing, { table }));
    }
    // Its own servers: on a private PostgreSQL cluster, then on PGlite.
    if (runContactsImport) {
      const rows = Number(args["contacts-import-rows"]);
      console.log(`\nContacts import: ${rows.toLocaleString("en-US")} rows through the import page, on PostgreSQL and PGlite ...`);
      try {
        results.contactsImport = await benchContactsImport({ root, accounts: ACCOUNTS, rows, log: (line) => console.log(line) });
      } catch (error) {
        results.contactsImport = { problem: error instanceof Error ? error.message : String(error) };
      }
      console.log(formatContactsImport(results.contactsImport, { table }));
    }
    // Last: it starts servers of its own, which the single server would compete with.
    if (runNginx) {
      console.log(`\nnginx in front of two instances vs one (${duration} s per run) ...`);
      try {
        results.nginx = await benchNginxPair({
          root,
          accounts: ACCOUNTS,
          duration,
          connections: Number(args["nginx-connections"]),
          rounds: Math.max(1, Number(args["nginx-rounds"]) || 1),
          log: (line) => console.log(line),
        });
      } catch (error) {
        results.nginx = { problem: error instanceof Error ? error.message : String(error) };
      }
      console.log(`\n${formatNginxPair(results.nginx, { table })}`);
    }
    // Its own cluster, two instances and nginx; the 5,000,000 messages it seeds would weigh on anything after it.
    if (runInbox) {
      if (inboxOnly) results.database = "postgres";
      const loadBeforeInbox = os.loadavg();
      console.log(`\nInbox: webhook to browser stream through nginx, idle streams, /chat at scale ...`);
      try {
        results.inbox = await benchInbox({
          root,
          accounts: ACCOUNTS,
          parts: args["inbox-parts"].split(",").filter((part) => INBOX_PARTS.includes(part)),
          rate: Number(args["inbox-rate"]),
          duration: Number(args["inbox-duration"]),
          customers: Number(args["inbox-customers"]),
          streamsPerInstance: Number(args["inbox-streams"]),
          nginxStreams: Number(args["inbox-nginx-streams"]),
          idleCount: Number(args["inbox-idle-streams"]),
          conversations: Number(args["inbox-conversations"]),
          messages: Number(args["inbox-messages"]),
          requests: Number(args["inbox-requests"]),
          log: (line) => console.log(line),
        });
      } catch (error) {
        results.inbox = { problem: error instanceof Error ? error.message : String(error) };
      }
      results.inbox.loadAverage = { before: loadBeforeInbox, after: os.loadavg() };
      console.log(`\n${formatInbox(results.inbox, { table })}`);
    }
    // Its own cluster and server; last, as its millions of messages take the longest to seed.
    if (runAnalytics) {
      if (analyticsOnly) results.database = "postgres";
      const loadBeforeAnalytics = os.loadavg();
      const messages = Number(args["analytics-messages"]);
      console.log(
        `\nAnalytics: the report and /analytics for each period, and /dashboard, at ${messages.toLocaleString("en-US")} messages ...`,
      );
      try {
        results.analytics = await benchAnalytics({
          root,
          accounts: ACCOUNTS,
          messages,
          contacts: Number(args["analytics-contacts"]),
          others: Number(args["analytics-others"]),
          othersMessages: Number(args["analytics-others-messages"]),
          requests: Number(args["analytics-requests"]),
          keep: args["analytics-keep"],
          log: (line) => console.log(line),
        });
      } catch (error) {
        results.analytics = { problem: error instanceof Error ? error.message : String(error) };
      }
      results.analytics.loadAverage = { before: loadBeforeAnalytics, after: os.loadavg() };
      console.log(`\n${formatAnalytics(results.analytics, { table })}`);
    }
    // Its own cluster and server: 10,000 organisations, each tab's first page and the search.
    if (runAdmin) {
      if (adminOnly) results.database = "postgres";
      const loadBeforeAdmin = os.loadavg();
      const organizations = Number(args["admin-organizations"]);
      console.log(
        `\nAdmin console: each tab's first page, notifications and search at ${organizations.toLocaleString("en-US")} organisations ...`,
      );
      try {
        results.admin = await benchAdmin({
          root,
          accounts: ACCOUNTS,
          organizations,
          messages: Number(args["admin-messages"]),
          requests: Number(args["admin-requests"]),
          keep: args["admin-keep"],
          log: (line) => console.log(line),
        });
      } catch (error) {
        results.admin = { problem: error instanceof Error ? error.message : String(error) };
      }
      results.admin.loadAverage = { before: loadBeforeAdmin, after: os.loadavg() };
      console.log(`\n${formatAdmin(results.admin, { table })}`);
    }
  } finally {
    privatePostgres?.destroy();
  }
  results.machine.loadAverageAfter = os.loadavg()[0];
  writeResults(results);
  // --analytics-keep: the seeded cluster stays until Ctrl-C (its signal handler destroys it).
  for (const [name, section] of [
    ["analytics", results.analytics],
    ["admin console", results.admin],
  ]) {
    if (section?.keptAt)
      console.log(`\nThe ${name} cluster is kept at ${section.keptAt} (psql "${section.keptAt}"); Ctrl-C stops and removes it.`);
  }
  if (results.analytics?.keptAt || results.admin?.keptAt) setInterval(() => {}, 2 ** 30);
}

/**
 * Writes bench/results/latest.json. A section this run did not measure (a partial run such as
 * --pages-only) keeps the previous file's; `sections` says which run and commit each one is from.
 */
function writeResults(results) {
  const outDir = path.join(root, "bench/results");
  const file = path.join(outDir, "latest.json");
  mkdirSync(outDir, { recursive: true });
  let previous = {};
  try {
    previous = JSON.parse(readFileSync(file, "utf8"));
  } catch {
    // none yet, or unreadable: start afresh
  }
  const meta = new Set(["startedAt", "commit", "node", "machine", "database", "durationSeconds", "sections"]);
  const measured = Object.keys(results).filter((key) => !meta.has(key) && results[key] !== null && results[key] !== undefined);
  const sections = { ...previous.sections };
  for (const key of Object.keys(previous))
    if (!meta.has(key) && previous[key] !== null && !sections[key])
      sections[key] = { startedAt: previous.startedAt, commit: previous.commit, database: previous.database ?? null };
  for (const key of measured) sections[key] = { startedAt: results.startedAt, commit: results.commit, database: results.database };
  const merged = {
    ...previous,
    ...Object.fromEntries(Object.entries(results).filter(([key]) => meta.has(key) || measured.includes(key))),
    sections,
  };
  writeFileSync(file, `${JSON.stringify(merged, null, 2)}\n`);
  const kept = Object.keys(sections).filter((key) => !measured.includes(key));
  console.log(
    `\nWrote bench/results/latest.json (${results.machine.cpus} CPUs, ${results.machine.cpu}, Node ${process.version})${kept.length ? `; kept from earlier runs: ${kept.join(", ")}` : ""}`,
  );
}

/** Everything measured on one production server: page weight, public pages, Lighthouse, throughput, pages, templates, webhooks, activity. */
async function singleServerRuns(results) {
  console.log(`Starting the production build (${databaseUrl ? "PostgreSQL" : "PGlite"}) ...`);
  // The webhook payloads are signed with this app secret, not the sandbox's published default.
  const appSecret = newAppSecret();
  const server = await startServer({ root, databaseUrl, extraEnv: { RATE_LIMIT_MULTIPLIER: "1000000", META_APP_SECRET: appSecret } });
  const stopOnSignal = () => void server.stop().finally(() => process.exit(130));
  process.once("SIGINT", stopOnSignal);
  process.once("SIGTERM", stopOnSignal);

  try {
    const ready = await (await fetch(`${server.baseUrl}/readyz`)).json();
    console.log(`Server at ${server.baseUrl}, database: ${ready.database ?? "unknown"}`);
    results.database = ready.database ?? null;
    // The seed has just written every table: PostgreSQL's autovacuum would analyze and vacuum them a
    // minute or so later, in the middle of whichever row runs then. Done now, as in a database in service.
    if (privatePostgres) await withDatabase({ databaseUrl }, (query) => query("vacuum analyze"));
    // The seed has just written every table: PostgreSQL's autovacuum would analyze and vacuum them a
    // minute or so later, in the middle of whichever row runs then (it added 0.4 ms of database CPU
    // a request to /api/auth/me). Done now, as a database in service has it done already.
    if (privatePostgres) await withDatabase({ databaseUrl }, (query) => query("vacuum analyze"));

    const cookies =
      runAppPages || runThroughput || runPages || runWebhooks || ((runActivity || runTemplates) && databaseUrl)
        ? { individual: await signIn(server.baseUrl, ACCOUNTS.individual), admin: await signIn(server.baseUrl, ACCOUNTS.admin) }
        : {};
    let pageWeight = null;
    if (runAppPages) {
      pageWeight = await measurePages(server.baseUrl, cookies);
      printPages(pageWeight);
    }

    let publicPages = null;
    if (runPublic) {
      publicPages = await measurePublicPages(server.baseUrl);
      console.log(`\n${formatPublicPages(publicPages)}`);
    }

    // Before the load runs, so the server and the machine are quiet.
    let lighthouseScores = null;
    if (runLighthouseScores) {
      console.log("\nRunning Lighthouse (about 10 s a page) ...");
      lighthouseScores = await runLighthouse(server.baseUrl, { reportDir: path.join(root, "bench/results/lighthouse") });
      console.log(formatLighthouse(lighthouseScores));
      console.log("  HTML reports: bench/results/lighthouse/");
    }

    // A first visit on Regular 3G, and Lighthouse's mobile run signed in (bench/slow-network.mjs).
    let slowNetwork = null;
    if (runLighthouseScores) {
      console.log("\nA slow phone network: Regular 3G first visits, then Lighthouse signed in (about a minute) ...");
      slowNetwork = await measureSlowNetwork(server.baseUrl);
      console.log(formatSlowNetwork(slowNetwork));
    }

    let throughput = null;
    if (runThroughput) {
      const argon2 = await argon2Cost();
      const me = await benchMe(server.baseUrl, cookies.individual, { duration, connections: connectionList(args["me-connections"]) });
      printThroughput(me, "session lookup in the database");
      const signin = await benchSignin(server.baseUrl, ACCOUNTS.individual, {
        duration,
        connections: connectionList(args["signin-connections"]),
      });
      printThroughput(signin, "argon2id password check, then session, activity and last-login writes");
      printArgon2(argon2, signin);
      const apiKey = await apiKeyFor(server.baseUrl, cookies.individual);
      const apiV1 = await benchApiV1(server.baseUrl, apiKey, { duration, connections: connectionList(args["me-connections"]) });
      console.log(`\n${formatApiV1(apiV1)}`);
      throughput = { argon2, me, signin, apiV1 };
    }

    // Before the webhooks, which leave tens of thousands of rows behind.
    let pages = null;
    if (runPages) {
      console.log(
        `\nPages and JSON API beside bench/baseline-app and bare Node (${duration} s per run; Jumbe and the baseline ${Number(args["pages-rounds"])} time(s) a row, then bare) ...`,
      );
      try {
        const apiKey = await apiKeyFor(server.baseUrl, cookies.individual);
        pages = await benchPages({
          root,
          baseUrl: server.baseUrl,
          serverPid: server.pid,
          databasePids: privatePostgres?.processIds,
          credentials: { ...cookies, apiKey },
          duration,
          connections: Number(args["pages-connections"]),
          only: args["pages-paths"]?.split(",").filter(Boolean),
          rounds: Math.max(1, Number(args["pages-rounds"]) || 1),
        });
        console.log(`\n${formatPages(pages, { table, databaseKind: ready.database })}`);
      } catch (error) {
        pages = { problem: error instanceof Error ? error.message : String(error) };
        console.log(`\nPages: not measured (${pages.problem})`);
      }
    }

    // Inserts 5,000 templates for two tenants and deletes them again; before the webhooks' rows.
    let templates = null;
    if (runTemplates) {
      if (!databaseUrl) {
        templates = { skipped: "PostgreSQL only: pass --database-url or --private-postgres (see docs/benchmarks.md)" };
      } else {
        console.log(`\nMessage templates at scale (${Number(args["templates-count"]).toLocaleString("en-US")} templates a tenant) ...`);
        try {
          templates = await benchTemplates({
            baseUrl: server.baseUrl,
            databaseUrl,
            cookies,
            apiKey: await apiKeyFor(server.baseUrl, cookies.individual),
            serverPid: server.pid,
            databasePids: privatePostgres?.processIds,
            templates: Number(args["templates-count"]),
            hops: Number(args["templates-hops"]),
            duration,
            connections: Number(args["pages-connections"]),
          });
        } catch (error) {
          templates = { problem: error instanceof Error ? error.message : String(error) };
        }
      }
      console.log(formatTemplates(templates, { table, databaseKind: ready.database, formatPages }));
    }

    // Last: it leaves tens of thousands of rows behind.
    let webhooks = null;
    if (runWebhooks) {
      console.log(`\nWebhook ingestion (POST /webhooks/whatsapp, ${duration} s per run) ...`);
      // A commit that does not wait for the disk makes a "durable" acknowledgement much cheaper.
      const durability = await postgresDurability(databaseUrl).catch(() => null);
      try {
        webhooks = await benchWebhooks({
          baseUrl: server.baseUrl,
          appSecret,
          individualCookie: cookies.individual,
          adminCookie: cookies.admin,
          duration,
          connections: connectionList(args["webhook-connections"]),
          drainTimeoutSeconds: Number(args["drain-timeout"]),
          serverPid: server.pid,
          serverOutput: server.output,
          databaseUrl,
        });
      } catch (error) {
        webhooks = { endpoint: "POST /webhooks/whatsapp", problem: error instanceof Error ? error.message : String(error) };
      }
      webhooks.postgresSettings = durability;
      console.log(formatWebhooks(webhooks, { table, databaseKind: ready.database, cpus }));
    }

    // After the webhooks: a million records would weigh on every other figure.
    let activity = null;
    if (runActivity) {
      if (!databaseUrl) {
        activity = { skipped: "PostgreSQL only: pass --database-url (see docs/benchmarks.md)" };
      } else {
        console.log(`\nActivity log at scale (${Number(args["activity-records"]).toLocaleString("en-US")} records) ...`);
        try {
          activity = await benchActivity({
            baseUrl: server.baseUrl,
            databaseUrl,
            cookies,
            serverPid: server.pid,
            records: Number(args["activity-records"]),
            duration: Number(args["activity-duration"]),
            exportTimeoutSeconds: Number(args["activity-export-timeout"]),
          });
        } catch (error) {
          activity = { problem: error instanceof Error ? error.message : String(error) };
        }
      }
      console.log(formatActivity(activity, { table }));
    }

    Object.assign(results, {
      pageWeight,
      publicPages,
      lighthouse: lighthouseScores,
      slowNetwork,
      throughput,
      pages,
      templates,
      webhooks,
      activity,
    });
    // The rows themselves, read once the server has stopped (PGlite serves one process at a time).
    if (webhooks?.tag) {
      await server.stop({ keepDataDir: true });
      webhooks.database = await checkWebhookRows(webhooks);
    }
  } finally {
    await server.stop();
    server.removeDataDir();
  }

  async function checkWebhookRows(webhooks) {
    try {
      const rows = await withDatabase({ databaseUrl, dataDir: server.dataDir }, (query) => verifyStoredRows(query, webhooks.tag));
      const c = webhooks.correctness;
      const ok =
        rows.events === c.stored + c.probes && rows.processed === rows.events && rows.statuses === rows.events && rows.unrouted === 0;
      console.log(
        `\nIn the database after the run: ${rows.events} webhook_events of this run (${c.stored} + ${c.probes} probe; ${rows.processed} processed), ${rows.statuses} message_statuses rows, ` +
          `${rows.unrouted} unrouted, ${rows.failedJobs} failed jobs -> ${ok ? "every stored delivery was routed to the demo tenant and processed once" : "WARNING: these counts do not agree"}.`,
      );
      return { ...rows, consistent: ok };
    } catch (error) {
      console.log(`\nCould not read the database after the run: ${error instanceof Error ? error.message : error}`);
      return { error: String(error) };
    }
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
