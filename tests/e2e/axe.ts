import AxeBuilder from "@axe-core/playwright";
import type { NodeResult, Result } from "axe-core";
import type { Browser, Cookie, Page, TestInfo } from "@playwright/test";
import { expect } from "./fixtures";

// axe-core for the browser tests: the check every page passes (no violation with a serious or
// critical impact, every rule axe runs by default), its words in a failure, and the page it runs on
// when scripts are off.

export const SERIOUS = new Set(["serious", "critical"]);

/** A node's axe target selector, as printed in a failure. */
export const targetOf = (node: NodeResult) => node.target.join(" ");

/** The violations, one rule a paragraph with each node and what axe says of it. */
export function describeViolations(violations: Result[]) {
  return violations
    .map(
      (v) =>
        `${v.id} [${v.impact}] ${v.help}\n${v.nodes.map((n) => `    ${targetOf(n)}${n.failureSummary ? `: ${n.failureSummary.replace(/\s+/g, " ")}` : ""}`).join("\n")}`,
    )
    .join("\n");
}

/**
 * axe runs in the page and needs timers, which never fire while scripts are off. So without
 * scripts the page is rebuilt as a browser without JavaScript renders it (its own <script>s
 * removed, <noscript> content shown) and checked in a context where only axe runs. `cookies` sign
 * the copy in (a signed-in page's `page.context().cookies()`).
 */
export async function withoutScripts(browser: Browser, testInfo: TestInfo, clientIp: string, cookies: Cookie[] = []): Promise<Page> {
  const { baseURL, viewport, locale } = testInfo.project.use;
  const context = await browser.newContext({
    baseURL,
    viewport,
    locale,
    javaScriptEnabled: true,
    extraHTTPHeaders: { "X-Forwarded-For": clientIp },
  });
  if (cookies.length) await context.addCookies(cookies);
  await context.route("**/*", async (route) => {
    const type = route.request().resourceType();
    if (type === "script") return route.abort();
    if (type !== "document") return route.continue();
    const response = await route.fetch();
    const headers = Object.fromEntries(Object.entries(response.headers()).filter(([name]) => !/^content-(encoding|length)$/i.test(name)));
    const body = (await response.text()).replace(/<script\b[^>]*>[\s\S]*?<\/script\s*>/gi, "").replace(/<\/?noscript\b[^>]*>/gi, "");
    await route.fulfill({ status: response.status(), headers, body });
  });
  return context.newPage();
}

/** The serious and critical violations on the page as it stands (axe checked something on it). */
export async function seriousViolationsHere(page: Page, label: string) {
  // Every rule still runs; what passed is listed without its elements (about an eighth less time a page).
  const results = await new AxeBuilder({ page }).options({ resultTypes: ["violations"] }).analyze();
  expect(results.passes.length, `axe checked something on ${label}`).toBeGreaterThan(10);
  return results.violations.filter((v) => SERIOUS.has(v.impact ?? ""));
}

/** Opens `path` (a 200) and answers its serious and critical violations. */
export async function seriousViolations(page: Page, path: string) {
  const response = await page.goto(path);
  expect(response?.status(), `GET ${path}`).toBe(200);
  return seriousViolationsHere(page, path);
}
