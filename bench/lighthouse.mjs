// Lighthouse 12 scores of the public pages, in its default mobile configuration (a mid-range phone,
// simulated slow 4G and 4x CPU slowdown), against the production build on loopback.
//
//   node bench/lighthouse.mjs                (after `npm run build`; starts its own server)
//
// Targets (public-site issue): performance >= 98, accessibility 100, SEO 100 for `/`, `/privacy-policy`
// and `/terms-of-service`. `/login` is scored for reference only.
//
// Lighthouse must never reach the network: Chromium resolves no host name (every name maps to
// ~NOTFOUND) and sends everything that is not loopback to a closed local proxy port, so only the
// server under test on 127.0.0.1 answers. The report lists any request to another origin anyway.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { whenRunDirectly } from "./lib/server.mjs";
import * as chromeLauncher from "chrome-launcher";
import lighthouse from "lighthouse";

export const LIGHTHOUSE_PAGES = [
  { path: "/", targeted: true },
  { path: "/privacy-policy", targeted: true },
  { path: "/terms-of-service", targeted: true },
  { path: "/login", targeted: false },
];
export const TARGETS = { performance: 98, accessibility: 100, seo: 100 };
const CATEGORIES = ["performance", "accessibility", "best-practices", "seo"];

const CHROME_FLAGS = [
  "--headless=new",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  // Offline apart from loopback: no DNS, and a dead proxy for any IP literal that is not loopback
  // (Chromium never sends loopback through a proxy).
  "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost",
  "--proxy-server=http://127.0.0.1:9",
  "--no-first-run",
  "--no-default-browser-check",
  "--disable-component-update",
  "--disable-sync",
  "--disable-default-apps",
  "--disable-extensions",
  "--metrics-recording-only",
];

const isLoopback = (url) => /^(https?|wss?):\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?\//.test(url);

/** Audits of a category that did not pass, with a short description of each finding. */
function failedAudits(lhr, category) {
  return (lhr.categories[category]?.auditRefs ?? [])
    .map((ref) => lhr.audits[ref.id])
    .filter(
      (audit) =>
        audit && audit.score !== null && audit.score < 1 && !["notApplicable", "manual", "informative"].includes(audit.scoreDisplayMode),
    )
    .map((audit) => ({
      id: audit.id,
      title: audit.title,
      score: audit.score,
      ...(audit.displayValue ? { displayValue: audit.displayValue } : {}),
      items: (audit.details?.items ?? []).slice(0, 10).map((item) => describeItem(item)),
    }));
}

function describeItem(item) {
  if (item.node) return item.node.selector ?? item.node.snippet;
  const where = item.sourceLocation?.url ?? item.source?.url ?? (typeof item.url === "string" ? item.url : null);
  if (item.description) return where ? `${item.description} (${where})` : String(item.description);
  if (item.url) return item.url;
  return JSON.stringify(item).slice(0, 200);
}

function summarise(page, lhr) {
  const scores = Object.fromEntries(
    CATEGORIES.map((c) => [c, lhr.categories[c]?.score == null ? null : Math.round(lhr.categories[c].score * 100)]),
  );
  const metric = (id) => lhr.audits[id]?.numericValue ?? null;
  const missed = page.targeted
    ? Object.entries(TARGETS)
        .filter(([category, target]) => scores[category] === null || scores[category] < target)
        .map(([category, target]) => `${category} ${scores[category] ?? "n/a"} < ${target}`)
    : [];
  const requests = (lhr.audits["network-requests"]?.details?.items ?? []).map((item) => item.url);
  const consoleErrors = (lhr.audits["errors-in-console"]?.details?.items ?? []).map((item) =>
    [item.source, item.description, item.sourceLocation?.url ?? item.url].filter(Boolean).join(" "),
  );
  const issues = (lhr.audits["inspector-issues"]?.details?.items ?? []).map((item) => `${item.issueType ?? ""}`.trim());
  return {
    path: page.path,
    targeted: page.targeted,
    finalUrl: lhr.finalDisplayedUrl ?? lhr.finalUrl,
    scores,
    metrics: {
      fcpMs: metric("first-contentful-paint"),
      lcpMs: metric("largest-contentful-paint"),
      cls: metric("cumulative-layout-shift"),
      tbtMs: metric("total-blocking-time"),
      speedIndexMs: metric("speed-index"),
    },
    missed,
    failed: Object.fromEntries(CATEGORIES.map((c) => [c, failedAudits(lhr, c)]).filter(([, list]) => list.length)),
    consoleErrors,
    issues,
    offLoopbackRequests: requests.filter((url) => !isLoopback(url) && !url.startsWith("data:")),
    runWarnings: lhr.runWarnings ?? [],
    runtimeError: lhr.runtimeError?.message ?? null,
    lighthouseVersion: lhr.lighthouseVersion,
    benchmarkIndex: lhr.environment?.benchmarkIndex ?? null,
  };
}

/**
 * Runs Lighthouse once per page with one Chromium. `reportDir`, when given, receives each page's
 * HTML report. Returns `{ targets, pages: [...] }`.
 */
export async function runLighthouse(baseUrl, { pages = LIGHTHOUSE_PAGES, reportDir } = {}) {
  const chrome = await chromeLauncher.launch({
    chromePath: process.env.CHROME_PATH || "/usr/bin/chromium",
    chromeFlags: CHROME_FLAGS,
    logLevel: "silent",
  });
  try {
    const results = [];
    for (const page of pages) {
      const url = new URL(page.path, baseUrl).href;
      try {
        const runner = await lighthouse(url, {
          port: chrome.port,
          output: reportDir ? ["json", "html"] : "json",
          logLevel: "error",
          onlyCategories: CATEGORIES,
          // A signed-in page: the session cookie on every request.
          ...(page.headers ? { extraHeaders: page.headers } : {}),
        });
        if (!runner) throw new Error("Lighthouse returned no result");
        results.push(summarise(page, runner.lhr));
        if (reportDir) {
          mkdirSync(reportDir, { recursive: true });
          const name = page.path === "/" ? "home" : page.path.replace(/^\//, "").replace(/[^a-z0-9-]+/gi, "_");
          writeFileSync(path.join(reportDir, `${name}.html`), [runner.report].flat()[1] ?? "");
        }
      } catch (error) {
        results.push({ path: page.path, targeted: page.targeted, error: error instanceof Error ? error.message : String(error) });
      }
    }
    return { targets: TARGETS, mode: "mobile (Lighthouse default: simulated throttling)", pages: results };
  } finally {
    chrome.kill();
  }
}

function table(headers, rows) {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) => cells.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join("  ");
  return [line(headers), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n");
}

const ms = (value) => (typeof value === "number" ? Math.round(value) : "-");

/** The report as text: scores and metrics per page, then every missed target and failed audit. */
export function formatLighthouse(report) {
  const lines = [
    `Lighthouse ${report.pages.find((p) => p.lighthouseVersion)?.lighthouseVersion ?? ""}, ${report.mode}; targets: performance >= ${TARGETS.performance}, accessibility ${TARGETS.accessibility}, SEO ${TARGETS.seo}`,
  ];
  const rows = report.pages.map((p) =>
    p.error
      ? [p.path, p.error, "", "", "", "", "", "", "", ""]
      : [
          p.path + (p.targeted ? "" : " (reference)"),
          p.scores.performance ?? "-",
          p.scores.accessibility ?? "-",
          p.scores["best-practices"] ?? "-",
          p.scores.seo ?? "-",
          ms(p.metrics.fcpMs),
          ms(p.metrics.lcpMs),
          typeof p.metrics.cls === "number" ? p.metrics.cls.toFixed(3) : "-",
          ms(p.metrics.tbtMs),
          p.missed.length ? "MISSED" : p.targeted ? "ok" : "-",
        ],
  );
  lines.push(table(["page", "perf", "a11y", "best-pr.", "SEO", "FCP ms", "LCP ms", "CLS", "TBT ms", "targets"], rows));
  for (const p of report.pages) {
    if (p.error) continue;
    for (const m of p.missed) lines.push(`  TARGET MISSED ${p.path}: ${m}`);
    for (const [category, audits] of Object.entries(p.failed)) {
      if (category === "performance") continue; // opportunities, not findings; see the HTML report
      for (const a of audits) lines.push(`  ${p.path} ${category}: ${a.id} (${a.title})${a.items.length ? `: ${a.items.join("; ")}` : ""}`);
    }
    for (const e of p.consoleErrors) lines.push(`  ${p.path} console error: ${e}`);
    for (const url of p.offLoopbackRequests) lines.push(`  WARNING ${p.path}: requested ${url} (not the local server)`);
    for (const w of p.runWarnings) lines.push(`  ${p.path} Lighthouse warning: ${w}`);
    if (p.runtimeError) lines.push(`  ${p.path} Lighthouse error: ${p.runtimeError}`);
  }
  return lines.join("\n");
}

// Run on its own: start the production build, score, print, stop.
await whenRunDirectly(import.meta.url, async (baseUrl, root) => {
  const report = await runLighthouse(baseUrl, { reportDir: path.join(root, "bench/results/lighthouse") });
  console.log(formatLighthouse(report));
  console.log("HTML reports: bench/results/lighthouse/");
  if (process.argv.includes("--json")) console.log(JSON.stringify(report, null, 2));
});
