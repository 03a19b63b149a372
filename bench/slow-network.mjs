// A slow phone network (issue 42): how long a first visit takes on Chrome's "Regular 3G" profile
// (750 kb/s down, 250 kb/s up, 100 ms round trips) from a cold cache, and Lighthouse's mobile scores
// of the sign-in page and of signed-in pages, beside the landing page's.
//
//   node bench/slow-network.mjs            (after `npm run build`; starts its own server)
//   node bench/run.mjs --slow-network-only
//
// For each page, in a fresh phone-sized Chromium context with the network throttled through the
// DevTools protocol: the first paint, when the document was parsed (every module script has run by
// then), the load event, the bytes that crossed the wire, and when the page is usable: for the sign-in
// page, its form on screen with the page script's password toggle shown; for a hydrated page, React
// hydrated (the router's state is in the window); for a document, parsed with its scripts run. A page
// not usable within a minute is reported as never ("-"). Lighthouse (bench/lighthouse.mjs) then scores the
// same pages in its default mobile configuration, signed in by a cookie header.
/* global window, document */ // inside tab.evaluate, in the page
import { whenRunDirectly } from "./lib/server.mjs";
import { chromium } from "@playwright/test";
import { signIn } from "./lib/http.mjs";
import { formatLighthouse, runLighthouse } from "./lighthouse.mjs";

/** Chrome DevTools' "Regular 3G" preset, in bytes a second. */
export const REGULAR_3G = { latency: 100, downloadThroughput: (750 * 1000) / 8, uploadThroughput: (250 * 1000) / 8 };
const CHROMIUM = process.env.CHROME_PATH || "/usr/bin/chromium";
const DEMO = { email: "demo@jumbe.demo", password: "JumbeDemo#2026" };

/** The pages, and what says each is usable. */
export const SLOW_PAGES = [
  { path: "/", signedIn: false, usable: "document" },
  { path: "/login", signedIn: false, usable: "sign-in form" },
  { path: "/dashboard", signedIn: true, usable: "hydrated" },
  // Documents without React (decisions 066 and 069): usable once parsed, their page scripts run.
  { path: "/chat", signedIn: true, usable: "document" },
  { path: "/billing", signedIn: true, usable: "document" },
];

/** How long a page may take to become usable before the check gives up on it (it is then reported as never). */
const USABLE_WITHIN_MS = 60_000;

async function visit(browser, baseUrl, page, cookie) {
  const context = await browser.newContext({
    viewport: { width: 412, height: 823 },
    deviceScaleFactor: 1.75,
    isMobile: true,
    hasTouch: true,
    serviceWorkers: "block",
  });
  try {
    if (cookie) {
      const [name, value] = cookie.split(/=(.*)/s);
      await context.addCookies([{ name, value, url: baseUrl }]);
    }
    const tab = await context.newPage();
    const cdp = await context.newCDPSession(tab);
    await cdp.send("Network.enable");
    await cdp.send("Network.setCacheDisabled", { cacheDisabled: true });
    await cdp.send("Network.emulateNetworkConditions", { offline: false, ...REGULAR_3G });
    let bytes = 0;
    cdp.on("Network.loadingFinished", (event) => {
      bytes += event.encodedDataLength;
    });
    const url = new URL(page.path, baseUrl).href;
    const response = await tab.goto(url, { waitUntil: "load", timeout: 120_000 });
    if (response?.status() !== 200) throw new Error(`${page.path} answered ${response?.status()}`);
    // When it became usable, on the page's own clock (ms since navigation start).
    const usableAt = await tab.evaluate(
      async ([kind, within]) => {
        const until = (check) =>
          new Promise((resolve) => {
            const started = performance.now();
            const poll = () =>
              check() ? resolve(performance.now()) : performance.now() - started > within ? resolve(null) : setTimeout(poll, 10);
            poll();
          });
        if (kind === "sign-in form") return until(() => document.querySelector("[data-password-toggle]:not([hidden])"));
        if (kind === "hydrated") return until(() => window.__reactRouterRouteModules && document.querySelector("main"));
        return performance.getEntriesByType("navigation")[0]?.domContentLoadedEventEnd ?? null;
      },
      [page.usable, USABLE_WITHIN_MS],
    );
    const timing = await tab.evaluate(() => {
      const navigation = performance.getEntriesByType("navigation")[0];
      const paint = performance.getEntriesByName("first-contentful-paint")[0];
      return {
        fcpMs: paint?.startTime ?? null,
        domContentLoadedMs: navigation?.domContentLoadedEventEnd ?? null,
        loadMs: navigation?.loadEventEnd ?? null,
      };
    });
    await tab.waitForLoadState("networkidle").catch(() => undefined);
    return { path: page.path, signedIn: page.signedIn, usable: page.usable, usableMs: usableAt, bytes, ...timing };
  } finally {
    await context.close();
  }
}

/** Every page once on Regular 3G, cold; then Lighthouse's mobile run of the same pages. */
export async function measureSlowNetwork(baseUrl, { lighthouse = true } = {}) {
  const cookie = await signIn(baseUrl, DEMO);
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
  });
  const pages = [];
  try {
    for (const page of SLOW_PAGES) {
      try {
        pages.push(await visit(browser, baseUrl, page, page.signedIn ? cookie : null));
      } catch (error) {
        pages.push({ path: page.path, error: error instanceof Error ? error.message : String(error) });
      }
    }
  } finally {
    await browser.close();
  }
  const scores = lighthouse
    ? await runLighthouse(baseUrl, {
        pages: SLOW_PAGES.map((page) => ({ path: page.path, targeted: false, headers: page.signedIn ? { Cookie: cookie } : undefined })),
      })
    : null;
  return { profile: { name: "Regular 3G", ...REGULAR_3G }, pages, lighthouse: scores };
}

const ms = (value) => (typeof value === "number" ? String(Math.round(value)) : "-");

export function formatSlowNetwork(report) {
  const rows = report.pages.map((p) =>
    p.error
      ? [p.path, p.error, "", "", "", "", ""]
      : [p.path, p.usable, ms(p.fcpMs), ms(p.domContentLoadedMs), ms(p.usableMs), ms(p.loadMs), (p.bytes / 1000).toFixed(1)],
  );
  const headers = ["page", "usable when", "first paint ms", "parsed ms", "usable ms", "load ms", "kB on the wire"];
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) => cells.map((c, i) => (i < 2 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join("  ");
  const lines = [
    `A first visit on ${report.profile.name} (${(report.profile.downloadThroughput * 8) / 1000} kb/s down, ${report.profile.latency} ms round trips), cold cache, phone viewport:`,
    line(headers),
    widths.map((w) => "-".repeat(w)).join("  "),
    ...rows.map(line),
  ];
  if (report.lighthouse) lines.push("", formatLighthouse(report.lighthouse));
  return lines.join("\n");
}

await whenRunDirectly(import.meta.url, async (baseUrl) => {
  const report = await measureSlowNetwork(baseUrl, { lighthouse: !process.argv.includes("--no-lighthouse") });
  console.log(formatSlowNetwork(report));
  if (process.argv.includes("--json")) console.log(JSON.stringify(report, null, 2));
});
