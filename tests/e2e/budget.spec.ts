import { test, expect } from "./fixtures";
import { BASE_URL } from "./helpers";

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
