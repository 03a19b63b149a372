import { test, expect } from "./fixtures";
import { ADMIN, BASE_URL, DEMO } from "./helpers";

interface PageReport {
  path: string;
  error?: string;
  violations: string[];
  problems: string[];
  byType: Record<string, { requests: number; bytes: number }>;
  gzipOnly: { violations: string[] };
}

// The first visit to `/` transfers at most 60 KB (HTML, CSS, JS, fonts) and at most 15 KB of JS, measured
// by the benchmark's own code (bench/public-pages.mjs) in a fresh browser, for brotli and gzip-only clients.
test("the first visit to / stays inside the public-site budget", async ({ javaScriptEnabled }) => {
  test.skip(!javaScriptEnabled, "a measurement in its own browser; once is enough");
  const bench = "../../bench/public-pages.mjs";
  const { measurePublicPages } = (await import(/* @vite-ignore */ bench)) as {
    measurePublicPages: (baseUrl: string, options: { paths: string[] }) => Promise<{ pages: PageReport[] }>;
  };
  const { pages } = await measurePublicPages(BASE_URL, { paths: ["/"] });
  const home = pages[0]!;
  expect(home.error).toBeUndefined();
  expect(home.problems).toEqual([]);
  expect(home.violations).toEqual([]);
  expect(home.gzipOnly.violations).toEqual([]);
  expect(home.byType.font!.bytes).toBe(0);
  expect(home.byType.js!.requests).toBe(1);
});

// Every page the benchmark weighs, signed in as the demo users. A page sent without React (sign-in,
// sign-up, codes: decision 060) carries at most 15 KB of JavaScript in gzip, only its own script. A
// hydrated page carries at most 140 KB in gzip on a first visit (issue 42's goal is 120 for its code:
// the Overview meets it), 150 KB in brotli (decision 020), and at most 25 KB more when opened after the
// Overview; its words add at most 5 KB gzip in any language (issue 43, decision 072).
test("every signed-in and auth page stays inside its JavaScript and HTML budgets", async ({ javaScriptEnabled }) => {
  test.skip(!javaScriptEnabled, "a measurement over HTTP; once is enough");
  const weight = "../../bench/page-weight.mjs";
  const http = "../../bench/lib/http.mjs";
  interface Weighed {
    path: string;
    as: string | null;
    error?: string;
    document?: boolean;
    overBudget?: boolean;
    overGoal?: boolean;
    overWordsBudget?: boolean;
    js?: {
      brotliBytes: number;
      gzipBytes: number;
      urls: string[];
      afterOverviewGzipBytes?: number;
      wordsGzipBytes?: number;
      wordsByLocale?: Record<string, number>;
    };
    html?: { rawBytes: number };
  }
  const { measurePages } = (await import(/* @vite-ignore */ weight)) as {
    measurePages: (
      baseUrl: string,
      cookies: Record<string, string>,
    ) => Promise<{
      budgetBytes: number;
      documentBudgetGzip: number;
      appGoalGzip: number;
      appCeilingGzip: number;
      wordsBudgetGzip: number;
      nextPageBudgetGzip: number;
      htmlBudgetRaw: number;
      pages: Weighed[];
    }>;
  };
  const { signIn } = (await import(/* @vite-ignore */ http)) as {
    signIn: (baseUrl: string, account: { email: string; password: string }) => Promise<string>;
  };
  const cookies = { individual: await signIn(BASE_URL, DEMO), admin: await signIn(BASE_URL, ADMIN) };
  const report = await measurePages(BASE_URL, cookies);
  const { pages } = report;
  expect(report.budgetBytes).toBe(150_000);
  expect(report.documentBudgetGzip).toBe(15_000);
  expect(report.appGoalGzip).toBe(120_000);
  expect(report.appCeilingGzip).toBe(140_000);
  expect(report.wordsBudgetGzip).toBe(5_000);
  expect(report.nextPageBudgetGzip).toBe(25_000);
  expect(pages.filter((p) => p.error)).toEqual([]);
  expect(
    pages
      .filter((p) => p.overBudget)
      .map((p) => `${p.path}: ${p.js?.gzipBytes} bytes gzip, ${p.js?.brotliBytes} br, ${p.js?.afterOverviewGzipBytes} after /dashboard`),
  ).toEqual([]);
  const overview = pages.find((p) => p.path === "/dashboard")!;
  expect(overview.overGoal, `/dashboard: ${overview.js?.gzipBytes} bytes gzip, ${overview.js?.wordsGzipBytes} of them words`).toBe(false);
  // Issue 43: a hydrated page's words, in each language, add at most 5 KB gzip, and its code has none.
  for (const page of pages.filter((p) => !p.document)) {
    expect(Object.keys(page.js!.wordsByLocale ?? {}), page.path).toEqual(["en", "sw", "fr"]);
    expect(page.overWordsBudget, `${page.path}: ${JSON.stringify(page.js!.wordsByLocale)}`).toBe(false);
    expect(page.js!.wordsByLocale!.en, page.path).toBe(page.js!.wordsGzipBytes);
  }
  expect(overview.js!.wordsGzipBytes).toBeGreaterThan(0);
  for (const page of pages.filter((p) => !p.document && p.path !== "/dashboard"))
    expect(page.js!.afterOverviewGzipBytes, `${page.path} after /dashboard`).toBeGreaterThan(0);

  const documents = pages.filter((p) => p.document);
  const LIVE_PAGES = [
    // The Campaigns tab's figures follow its campaigns as they send (decision 114).
    "/messaging",
    "/messaging/campaigns/:campaign",
    "/messaging/campaigns/new",
    "/messaging/broadcasts/new",
    "/preview",
    "/templates/new",
    "/chat",
    "/chat/:conversation",
  ];
  // Signed out: the sign-in pages (decision 060). Signed in: the console, and the app's settings,
  // lists and reference pages (decisions 063, 066), which carry the menus' script too.
  const signedIn = documents.filter((p) => p.as);
  expect(documents.filter((p) => !p.as).map((p) => p.path)).toEqual(["/login", "/signup", "/verify-otp", "/forgot-password"]);
  expect(signedIn.map((p) => p.path)).toEqual(expect.arrayContaining(["/admin", "/developers", "/profile", "/messaging", "/activity"]));
  for (const page of documents) {
    // Only the page's own scripts: no React, no router, no preloads.
    const own = [expect.stringMatching(/^\/assets\/forms-[\w-]+\.js$/)];
    if (page.as) own.push(expect.stringMatching(/^\/assets\/menus-[\w-]+\.js$/));
    // WhatsApp Setup: Embedded Signup (Meta's window and its two messages).
    if (page.path === "/whatsapp") own.push(expect.stringMatching(/^\/assets\/embedded-signup-[\w-]+\.js$/));
    // Parts the server redraws: a campaign's live figures, its form's placeholders, the preview as it is typed.
    if (LIVE_PAGES.includes(page.path)) own.push(expect.stringMatching(/^\/assets\/live-[\w-]+\.js$/));
    expect(page.js!.urls, page.path).toEqual(own);
    expect(page.js!.gzipBytes, page.path).toBeGreaterThan(500);
  }
  // Hydrated pages: every one's code within the 120 kB goal (the last over it, a conversation, became a
  // document in decision 069), and with its words within the goal and the words' 5 kB.
  for (const page of pages.filter((p) => !p.document)) {
    const code = page.js!.gzipBytes - page.js!.wordsGzipBytes!;
    expect(code, `${page.path}: JavaScript bytes in gzip, less its words`).toBeLessThanOrEqual(report.appGoalGzip);
    expect(page.js!.gzipBytes, `${page.path}: JavaScript bytes in gzip`).toBeLessThanOrEqual(report.appGoalGzip + report.wordsBudgetGzip);
  }

  // HTML: at most 40 kB before compression for every page a phone opens by default (issue 42). The
  // pages still over it are listed with a ceiling a little above what they weigh now, so none grows
  // while they wait for their turn; the list only shrinks.
  expect(report.htmlBudgetRaw).toBe(40_000);
  const stillOver: Record<string, number> = {
    // 38 kB on the demo's one instance; each instance that sampled in the range adds three charts
    // and their table (about 5 kB), and the browser suite starts several servers of its own.
    "/admin/system": 48_000,
  };

  // The console shows the whole platform, which the suite's other tests add to while this one runs
  // (tenants, disputes, alerts, audit entries): its pages get 15% of room for that.
  const room = (path: string) => (path.startsWith("/admin") ? 1.15 : 1);
  for (const page of pages) {
    const ceiling = Math.round((stillOver[page.path] ?? report.htmlBudgetRaw) * room(page.path));
    expect(page.html!.rawBytes, `${page.path}: HTML bytes`).toBeLessThanOrEqual(ceiling);
  }
  for (const path of Object.keys(stillOver)) expect(pages.map((p) => p.path)).toContain(path);
  // Every file really arrived compressed: nothing near the raw size.
  for (const page of pages.filter((p) => !p.document)) expect(page.js!.brotliBytes, page.path).toBeGreaterThan(50_000);
});
