// Every signed-in page, the public entry pages and the JSON API under load, each beside two
// references measured in the same run at the same response size:
//   - bench/baseline-app: a minimal React Router 7 app (same installed packages, an Express server
//     with `compression` like React Router's custom-server template) rendering a page of about the
//     same size (rows of 100 bytes of HTML), or a JSON object padded to the same size;
//   - the bare node:http server (bench/lib/bare-server.mjs) sending a body of exactly that size.
// For each: requests/s and p50/p99 latency with autocannon (10 connections), and the server
// process's CPU time per request from /proc/<pid>/stat (utime + stime before and after the run).
// No Accept-Encoding is sent, so no side compresses: the sizes are the bodies as rendered.
import { readFileSync } from "node:fs";
import path from "node:path";
import autocannon from "autocannon";
import { ensureBaselineBuild, startBaselineApp } from "./lib/baseline.mjs";
import { startBareServer } from "./lib/bare-server.mjs";
import { request } from "./lib/http.mjs";
import { fillCampaignPages, fillContactPages, fillInboxPages } from "./page-weight.mjs";
import { cpuBetween, cpuOf, cpuSeconds, machineBusySeconds } from "./lib/proc.mjs";

// Routes of app/routes.ts's signed-in layouts that are not pages to load with a GET.
const NOT_PAGES = {
  "preferences/sidebar": "a form action (POST)",
  "embedded-callback": "Meta's redirect after Embedded Signup, meaningless without its parameters",
};
const QUERIES = { search: "?q=a" };
/** Shell pages that only a platform administrator opens (the partner programme's tabs, issue 46). */
const ADMIN_SHELL_PAGES = new Set(["revenue-share/partners", "revenue-share/transactions", "revenue-share/settlements"]);
const FALLBACK = ["dashboard", "get-started", "profile", "change-password", "whatsapp", "activity", "developers", "search"];

/**
 * The pages of app/routes.ts's signed-in layouts (routes/app/layout.tsx as the demo user,
 * routes/admin/layout.tsx as the admin) with a page module (.tsx), less NOT_PAGES. The planned
 * pages, made in a loop ("coming soon"), are left out. Falls back to a fixed list if the file's
 * shape changed.
 */
export function signedInPages(routesSource) {
  const pages = [];
  let as = null;
  for (const line of routesSource.split("\n")) {
    const layout = line.match(/\blayout\("routes\/(app|admin)\/layout\.tsx"/);
    if (layout) {
      as = layout[1] === "admin" ? "admin" : "individual";
      continue;
    }
    if (as && /^\s*\]\),?\s*$/.test(line)) {
      as = null;
      continue;
    }
    const route = as && line.match(/^\s*route\("([^"]+)",\s*"([^"]+)"/);
    // A path with a parameter (templates/:id/edit) needs a record to name, and a splat (the console's
    // "admin/*", its 404 page) names no page: both are left out.
    if (route && route[2].endsWith(".tsx") && !(route[1] in NOT_PAGES) && !/[:*]/.test(route[1]))
      pages.push({ path: `/${route[1]}${QUERIES[route[1]] ?? ""}`, as: ADMIN_SHELL_PAGES.has(route[1]) ? "admin" : as });
  }
  if (pages.length) return pages;
  return [...FALLBACK.map((p) => ({ path: `/${p}${QUERIES[p] ?? ""}`, as: "individual" })), { path: "/admin", as: "admin" }];
}

/** Every measured path: the public entry pages, the signed-in pages, the JSON API. */
export function pageTargets(root) {
  const signedIn = signedInPages(readFileSync(path.join(root, "app/routes.ts"), "utf8"));
  return [
    { path: "/", as: null, kind: "html" },
    { path: "/login", as: null, kind: "html" },
    ...signedIn.map((page) => ({ ...page, kind: "html" })),
    // A contact's own page: the record is the demo's first contact (fillContactPages).
    { path: "/messaging/contacts/:contact", as: "individual", kind: "html" },
    // A campaign's page: the demo's first campaign (fillCampaignPages).
    { path: "/messaging/campaigns/:campaign", as: "individual", kind: "html" },
    // A conversation beside the list: the demo inbox's newest (fillInboxPages).
    { path: "/chat/:conversation", as: "individual", kind: "html" },
    { path: "/api/auth/me", as: "individual", kind: "json" },
    { path: "/api/v1/account", as: "apiKey", kind: "json" },
  ];
}

/**
 * A 1 s warm-up, then `duration` seconds at `connections`, with the CPU time of the processes
 * `pids` around it: cpuMsPerRequest is theirs together, cpuShares each one's share of a CPU.
 * `databasePids()`, when given, lists the database's processes (a private PostgreSQL cluster):
 * their CPU per request is databaseCpuMsPerRequest (a process that exits during the run is missed).
 * `helperPids()` lists other processes of the benchmark (nginx). otherCpus is how many CPUs, on
 * average, went to work outside the benchmark during the run (the machine's busy time less these
 * processes' and this one's, where autocannon runs): when it is high, the figures are skewed.
 */
export async function measureLoad({ url, headers, pids = [], databasePids, helperPids, duration, connections }) {
  await autocannon({ url, headers, connections, duration: 1, pipelining: 1, timeout: 30 });
  const cpuBefore = pids.map((pid) => cpuSeconds(pid));
  const databaseBefore = databasePids ? cpuOf(databasePids()) : null;
  const helpersBefore = helperPids ? cpuOf(helperPids()) : null;
  const machineBefore = machineBusySeconds();
  const selfBefore = process.cpuUsage();
  const started = process.hrtime.bigint();
  const result = await autocannon({ url, headers, connections, duration, pipelining: 1, timeout: 30 });
  const wall = Number(process.hrtime.bigint() - started) / 1e9;
  const self = process.cpuUsage(selfBefore);
  const machine = machineBusySeconds() - machineBefore;
  const used = pids.map((pid, i) => cpuSeconds(pid) - cpuBefore[i]);
  const databaseCpu = databasePids ? cpuBetween(databaseBefore, cpuOf(databasePids())) : null;
  const helpersCpu = helperPids ? cpuBetween(helpersBefore, cpuOf(helperPids())) : 0;
  const cpu = pids.length ? used.reduce((a, b) => a + b, 0) : null;
  const requests = result.requests.total;
  const ours = (cpu ?? 0) + (databaseCpu ?? 0) + helpersCpu + (self.user + self.system) / 1e6;
  return {
    requestsPerSecond: result.requests.average,
    latencyMs: { p50: result.latency.p50, p99: result.latency.p99, max: result.latency.max },
    requests,
    statuses: Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, stats]) => [code, stats.count])),
    errors: result.errors,
    cpuMsPerRequest: cpu !== null && requests ? (cpu * 1000) / requests : null,
    cpuShares: used.map((seconds) => seconds / wall),
    databaseCpuMsPerRequest: databaseCpu !== null && requests ? (databaseCpu * 1000) / requests : null,
    otherCpus: Math.max(0, (machine - ours) / wall),
  };
}

/** Size of one answer as sent without compression, and its status. */
export async function probe(url, headers) {
  const response = await request(url, { headers });
  return {
    status: response.status,
    bytes: response.body.length,
    location: response.headers.location,
    headers: response.headers,
    body: response.body,
  };
}

/**
 * The baseline app's URL for a page or JSON answer of `bytes`: its /page adds kb * 1000 bytes of
 * rows to a shell of `shell.html` bytes; /json pads its object to kb * 1000 bytes.
 */
export function baselinePath(kind, bytes, shell) {
  if (kind === "json") return bytes > shell.json ? `/json?kb=${bytes / 1000}` : "/json";
  // To the nearest 100 bytes.
  return `/page?kb=${Math.max(0, Math.round((bytes - shell.html) / 100) / 10)}`;
}

/**
 * The two references, started side by side for a run: bench/baseline-app (built when stale) and
 * the bare server. Resolves to { baseline, bare, shell, build, stop }; `shell` is the size of the
 * baseline's empty page and JSON object.
 */
export async function startBaselines({ log = console.log } = {}) {
  const build = ensureBaselineBuild({ log });
  const baseline = await startBaselineApp();
  const bare = await startBareServer();
  const shell = {
    html: (await probe(`${baseline.baseUrl}/page?kb=0`, {})).bytes,
    json: (await probe(`${baseline.baseUrl}/json`, {})).bytes,
  };
  return { baseline, bare, shell, build, stop: async () => Promise.all([baseline.stop(), bare.stop()]) };
}

/**
 * One row: `url` on Jumbe (process `serverPid`, its database's processes `databasePids`), then the
 * baseline app at the nearest size and the bare server at exactly `bytes` (from startBaselines()),
 * one after the other, with the CPU ratio. `row` carries what the caller names the row by.
 *
 * With `rounds` > 1, Jumbe and the baseline take turns that many times and the row's ratio is the
 * median of the rounds' ratios (`row.ratios` keeps them all; the row's figures are its median
 * round's). This machine's speed drifts by up to 2x within a minute: one Jumbe run and one baseline
 * run, seconds apart, could each land on a slow or a fast stretch, and the ratio with them.
 */
export async function measureBesideBaselines(
  row,
  { url, headers, kind, bytes, serverPid, databasePids, refs, duration, connections, rounds = 1 },
) {
  const samePath = baselinePath(kind, bytes, refs.shell);
  const baselineBytes = (await probe(`${refs.baseline.baseUrl}${samePath}`, {})).bytes;
  const taken = [];
  for (let round = 0; round < Math.max(1, rounds); round++) {
    const jumbe = await measureLoad({ url, headers, pids: [serverPid], databasePids, duration, connections });
    const baseline = await measureLoad({
      url: `${refs.baseline.baseUrl}${samePath}`,
      headers: { Accept: headers.Accept },
      pids: [refs.baseline.pid],
      duration,
      connections,
    });
    // All the CPU a request cost Jumbe's side: its process, and the database's when it is known.
    const jumbeCpu = jumbe.cpuMsPerRequest === null ? null : jumbe.cpuMsPerRequest + (jumbe.databaseCpuMsPerRequest ?? 0);
    taken.push({ jumbe, baseline, ratio: jumbeCpu && baseline.cpuMsPerRequest ? jumbeCpu / baseline.cpuMsPerRequest : null });
  }
  const ordered = [...taken].sort((a, b) => (a.ratio ?? Infinity) - (b.ratio ?? Infinity));
  const median = ordered[Math.floor((ordered.length - 1) / 2)];
  row.jumbe = median.jumbe;
  row.baseline = { path: samePath, bytes: baselineBytes, ...median.baseline };
  row.bare = {
    bytes,
    ...(await measureLoad({ url: `${refs.bare.baseUrl}/?bytes=${bytes}`, pids: [refs.bare.pid], duration, connections })),
  };
  row.cpuRatio = median.ratio;
  if (taken.length > 1) row.ratios = taken.map((t) => t.ratio);
  return row;
}

/**
 * Measures every target on Jumbe (at `baseUrl`, process `serverPid`), the baseline app and the bare
 * server. `credentials` maps "individual" and "admin" to session cookies and "apiKey" to the demo
 * tenant's API key.
 */
export async function benchPages({
  root,
  baseUrl,
  serverPid,
  databasePids,
  credentials,
  duration,
  connections = 10,
  only,
  rounds = 1,
  log = console.log,
}) {
  const refs = await startBaselines({ log });
  try {
    // The contact pages with something on them: a custom field, a segment, a finished import.
    const records = await fillContactPages(baseUrl, credentials.individual).catch((error) => {
      log(`  the contact pages could not be filled: ${error.message}`);
      return {};
    });
    Object.assign(
      records,
      await fillCampaignPages(baseUrl, credentials.individual).catch((error) => {
        log(`  the campaign pages could not be filled: ${error.message}`);
        return {};
      }),
      await fillInboxPages(baseUrl, credentials.individual).catch((error) => {
        log(`  the inbox pages could not be filled: ${error.message}`);
        return {};
      }),
    );
    const rows = [];
    for (const target of pageTargets(root).filter((t) => !only?.length || only.includes(t.path))) {
      const headers = { Accept: target.kind === "json" ? "application/json" : "text/html,application/xhtml+xml,*/*;q=0.8" };
      if (target.as === "apiKey") headers.Authorization = `Bearer ${credentials.apiKey}`;
      else if (target.as) headers.Cookie = credentials[target.as];
      const named = target.path.match(/:(\w+)/)?.[1];
      if (named && !records[named]) {
        rows.push({ path: target.path, as: target.as, kind: target.kind, bytes: 0, problem: `no record for :${named}` });
        continue;
      }
      const url = `${baseUrl}${named ? target.path.replace(`:${named}`, records[named]) : target.path}`;
      const first = await probe(url, headers);
      const row = { path: target.path, as: target.as, kind: target.kind, bytes: first.bytes };
      if (first.status !== 200) {
        rows.push({ ...row, problem: `HTTP ${first.status}${first.location ? ` -> ${first.location}` : ""}` });
        log(`  ${target.path}: HTTP ${first.status}, not loaded`);
        continue;
      }
      log(`  ${target.path} (${first.bytes} bytes) ...`);
      const options = { url, headers, kind: target.kind, bytes: first.bytes, serverPid, databasePids, refs, duration, connections, rounds };
      rows.push(await measureBesideBaselines(row, options));
    }
    return { connections, durationSeconds: duration, rounds, baselineShellBytes: refs.shell, baselineBuild: refs.build, rows };
  } finally {
    await refs.stop();
  }
}

const fixed = (value, digits = 1) => (typeof value === "number" && Number.isFinite(value) ? value.toFixed(digits) : "-");
const statusNote = (run) => {
  const other = Object.entries(run.statuses).filter(([code]) => code !== "200");
  return other.length || run.errors ? `${other.map(([c, n]) => `${c}:${n}`).join(" ")}${run.errors ? ` errors:${run.errors}` : ""}` : "";
};

export function formatPages(report, { table, databaseKind, title = "Pages and JSON API" }) {
  const database = report.rows.some((r) => typeof r.jumbe?.databaseCpuMsPerRequest === "number");
  const rounds = report.rows.some((r) => r.ratios);
  const rows = report.rows.map((r) =>
    r.problem
      ? [r.path, r.as ?? "-", r.bytes, r.problem, ...Array((database ? 12 : 11) + (rounds ? 1 : 0)).fill("")]
      : [
          r.path,
          r.as ?? "-",
          r.bytes,
          fixed(r.jumbe.requestsPerSecond, 0),
          fixed(r.jumbe.latencyMs.p50, 0),
          fixed(r.jumbe.latencyMs.p99, 0),
          fixed(r.jumbe.cpuMsPerRequest, 2),
          ...(database ? [fixed(r.jumbe.databaseCpuMsPerRequest, 2)] : []),
          r.baseline.bytes,
          fixed(r.baseline.requestsPerSecond, 0),
          fixed(r.baseline.cpuMsPerRequest, 2),
          r.cpuRatio ? `${fixed(r.cpuRatio, 1)}x` : "-",
          ...(rounds ? [(r.ratios ?? []).map((ratio) => fixed(ratio, 1)).join("/")] : []),
          fixed(r.bare.requestsPerSecond, 0),
          fixed(r.bare.cpuMsPerRequest, 3),
          fixed(Math.max(r.jumbe.otherCpus, r.baseline.otherCpus, r.bare.otherCpus), 1),
          [statusNote(r.jumbe), statusNote(r.baseline), statusNote(r.bare)].filter(Boolean).join("; "),
        ],
  );
  const header = [
    `${title} (${report.connections} connections, ${report.durationSeconds} s each, no compression; CPU = server process user+system time per request;`,
    `baseline = bench/baseline-app at the nearest size, bare = node:http sending the same bytes; ${
      database
        ? "db CPU = the private PostgreSQL cluster's processes, counted in the ratio"
        : databaseKind === "postgres"
          ? "PostgreSQL's own CPU is not counted"
          : "PGlite runs inside Jumbe's process"
    })`,
    "other CPUs = CPUs busy with work outside the benchmark during the row's runs (the most of the three): near 0 on a quiet machine",
    ...(rounds
      ? [`CPU ratio = the median of ${report.rounds} rounds, Jumbe and the baseline taking turns (each round's ratio beside it)`]
      : []),
  ].join("\n");
  return `${header}\n${table(
    [
      "path",
      "as",
      "bytes",
      "Jumbe req/s",
      "p50 ms",
      "p99 ms",
      "CPU ms/req",
      ...(database ? ["db CPU ms"] : []),
      "base bytes",
      "base req/s",
      "base CPU ms",
      "CPU ratio",
      ...(rounds ? ["rounds' ratios"] : []),
      "bare req/s",
      "bare CPU ms",
      "other CPUs",
      "not 200",
    ],
    rows,
  )}`;
}
