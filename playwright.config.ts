import { existsSync } from "node:fs";
import { defineConfig, devices } from "@playwright/test";
import { e2eServer } from "./tests/e2e/server-env";

// Browser tests against the built server (`npx react-router build` first; the README's test command does).
// Each run starts the server on a fresh embedded database, so the seeded demo accounts and every limit start clean.
// A free port and a fresh temporary data directory per run, so two runs on one machine never collide.
const { port: PORT, baseUrl: BASE_URL, dataDir: DATA_DIR } = e2eServer();
// Debian's chromium-headless-shell (Chromium's old headless mode, as Playwright's own headless
// download is) when installed: the same engine without the full browser's user interface, about a
// sixth faster through the suite than /usr/bin/chromium in its new headless mode. CI installs it.
const BROWSER = ["/usr/bin/chromium-headless-shell", "/usr/bin/chromium"].find((file) => existsSync(file)) ?? "/usr/bin/chromium";

export default defineConfig({
  testDir: "tests/e2e",
  testMatch: "**/*.spec.ts",
  timeout: 60_000,
  // A wait for what the page shows detects a hang; it is no speed requirement. 10 s failed on a
  // loaded machine (issue 75): the suite's own waits are 30 s or more, and pass as fast as before.
  expect: { timeout: 30_000 },
  fullyParallel: true,
  // Three at a time: without traces two workers leave a core a third idle while pages wait on the
  // server and the sandboxes; three keep both cores busy (measured with a CPU sampler, decision 058).
  // E2E_WORKERS overrides it on a bigger machine.
  workers: Number(process.env.E2E_WORKERS) || 3,
  retries: 0,
  forbidOnly: !!process.env.CI,
  reporter: process.env.CI ? [["list"], ["html", { open: "never" }]] : [["list"]],
  // Per run: Playwright empties its output directory when it starts.
  outputDir: `test-results/run-${PORT}`,
  globalTeardown: "./tests/e2e/global-teardown.ts",
  webServer: {
    command: "node build/server/index.js",
    env: {
      PORT: String(PORT),
      HOST: "127.0.0.1",
      DATA_DIR,
      APP_URL: BASE_URL,
      // As `npm start` runs it: React's production build, a local deployment's checks.
      NODE_ENV: "production",
      DEPLOYMENT: "local",
      SANDBOX: "1",
      TRUST_PROXY: "loopback",
      LOG_LEVEL: "error",
      // The Meta sandbox's reviewer decides a submitted template after this long on its own: longer
      // than any test, so a spec reading "pending" right after a submission never races the machine's
      // speed. A spec that needs the decision asks the control API for it (waitForTemplateStatus).
      META_SANDBOX_TEMPLATE_REVIEW_MS: "600000",
    },
    url: `${BASE_URL}/healthz`,
    reuseExistingServer: false,
    // A first start migrates and seeds an empty database: about 10 s on an idle machine, a minute and
    // more beside other work. The deadline only tells a hung server from a slow one.
    timeout: 240_000,
    stdout: "ignore",
    stderr: "pipe",
  },
  use: {
    ...devices["Desktop Chrome"],
    baseURL: BASE_URL,
    viewport: { width: 1280, height: 800 },
    locale: "en-KE",
    timezoneId: "Africa/Nairobi",
    // A trace records every action's DOM and screen: Chromium's CPU nearly doubles, and the suite
    // takes half as long again (decision 058). None is recorded unless asked: E2E_TRACE=1 keeps one
    // for each failing test, to open with `npx playwright show-trace`.
    trace: process.env.E2E_TRACE ? "retain-on-failure" : "off",
    screenshot: "only-on-failure",
    launchOptions: {
      executablePath: BROWSER,
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
    },
  },
  projects: [
    { name: "js", use: { javaScriptEnabled: true } },
    { name: "no-js", use: { javaScriptEnabled: false } },
  ],
});
