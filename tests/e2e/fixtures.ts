import { test as base, expect } from "@playwright/test";
import { randomIp } from "./helpers";

/**
 * The shared `test` (its CSS animations slowed, see slowAnimations):
 * - every test gets its own client IP (X-Forwarded-For, trusted from loopback) for the page and the
 *   `request` fixture alike, so the per-IP rate limits never couple tests;
 * - browser console errors and uncaught page errors are collected; with JavaScript on, any Content
 *   Security Policy violation, uncaught script error or other console error (a hydration mismatch, say)
 *   fails the test. Failed-status notices ("Failed to load resource: ... 400") are expected: forms
 *   answer refused submissions with 4xx statuses.
 */
export const test = base.extend<{ clientIp: string; consoleErrors: string[]; slowAnimations: void }>({
  clientIp: async ({}, use) => {
    await use(randomIp());
  },

  extraHTTPHeaders: async ({ clientIp }, use) => {
    await use({ "X-Forwarded-For": clientIp });
  },

  /**
   * Toasts fade out by CSS six seconds after they appear. On a loaded machine the next check can come
   * later than that, so CSS animations run at a fifth of their speed (the toast stays 30 s): how long a
   * toast stays is not what the tests assert, and a test must not depend on the machine's speed.
   */
  slowAnimations: [
    async ({ page }, use) => {
      const cdp = await page.context().newCDPSession(page);
      await cdp.send("Animation.enable");
      await cdp.send("Animation.setPlaybackRate", { playbackRate: 0.2 });
      await use();
    },
    { auto: true },
  ],

  consoleErrors: [
    async ({ page, javaScriptEnabled }, use, testInfo) => {
      const errors: string[] = [];
      const pageErrors: string[] = [];
      page.on("console", (message) => {
        if (message.type() === "error") errors.push(message.text());
      });
      page.on("pageerror", (error) => pageErrors.push(`${error.name}: ${error.message}`));

      await use(errors);

      const all = [...errors, ...pageErrors];
      if (all.length) await testInfo.attach("browser-console-errors", { body: all.join("\n"), contentType: "text/plain" });
      if (javaScriptEnabled) {
        const csp = errors.filter((text) => text.includes("Content Security Policy"));
        expect(csp, "Content Security Policy violations in the browser console").toEqual([]);
        expect(pageErrors, "uncaught errors in the page").toEqual([]);
        const unexpected = errors.filter((text) => !/^Failed to load resource: the server responded with a status of 4\d\d\b/.test(text));
        expect(unexpected, "console errors in the page").toEqual([]);
      }
    },
    { auto: true },
  ],
});

export { expect };
