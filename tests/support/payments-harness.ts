import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { afterAll, beforeAll, beforeEach } from "vitest";
import { parseEnv, setEnv } from "~/.server/infrastructure/config/env";
import { clearDarajaTokens } from "~/.server/infrastructure/clients/daraja";
import { requestLog } from "~/.server/infrastructure/http/request-log";
import { createMpesaSandbox, type MpesaSandbox } from "@jumbe/sandbox/mpesa/index";
import { createPaystackSandbox, type PaystackSandbox } from "@jumbe/sandbox/paystack/index";
import { appBuild, appFetch } from "./in-process-app";
import { keepIdleConnections } from "@jumbe/sandbox/test-server";

/** As long as a test may take (vitest's testTimeout, 120 s; the most the clients' settings take): how slow the machine is never decides an outcome. */
const HARNESS_TIMEOUT_MS = 120_000;

/**
 * Payments end to end in one process: the M-Pesa (Daraja) and Paystack sandboxes on a free port,
 * beside Jumbe's own routes (the in-process app) on the same origin, so Safaricom's callbacks and
 * Paystack's webhooks reach the real route modules. The sandboxes answer at once (no delays).
 */
export function paymentsHarnessForFile() {
  let server: http.Server | undefined;
  let mpesa: MpesaSandbox | undefined;
  let paystack: PaystackSandbox | undefined;
  let origin = "";
  const secretKey = "sk_test_jumbe_harness_0000000000000000";

  beforeAll(async () => {
    mpesa = createMpesaSandbox({
      consumerKey: "harness-consumer-key",
      consumerSecret: "harness-consumer-secret",
      shortcode: "174379",
      passkey: "bfb279f9aa9bdbcf158e97dd71a467cd2e0c893059b10f78e6b72ada1ed2c919",
      callbackDelayMs: 0,
      promptTimeoutMs: 600_000,
      // Above any test's own timeout: a callback that waits on a loaded machine (its first request
      // loads the route modules) is late, never lost (issue 75: partners-payouts failed so).
      callbackTimeoutMs: HARNESS_TIMEOUT_MS,
    });
    paystack = createPaystackSandbox({ secretKey, webhookDelayMs: 0, webhookAttempts: 1 });
    const app = express();
    // As server.ts: every request's log line (silent in tests unless a test captures the log).
    app.use(requestLog());
    app.use("/sandbox/mpesa", mpesa.router);
    app.use("/sandbox/paystack", paystack.router);
    // Everything else is Jumbe: the request as the built server would hand it to React Router.
    app.use(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const body = chunks.length ? Buffer.concat(chunks) : undefined;
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(name, value);
      const response = await appFetch(
        new Request(`${origin}${req.originalUrl}`, { method: req.method, headers, body: req.method === "GET" ? undefined : body }),
        "127.0.0.1",
      );
      res.status(response.status);
      response.headers.forEach((value, name) => res.setHeader(name, value));
      res.end(Buffer.from(await response.arrayBuffer()));
    });
    server = keepIdleConnections(http.createServer(app));
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    paystack.setWebhookUrl(`${origin}/webhooks/paystack`);
    // Every route module loaded here, in the hook's minute, not in the first test's 30 s by the
    // first callback (on a loaded machine that took longer than the test).
    await appBuild();
  });

  afterAll(async () => {
    await mpesa?.close();
    await paystack?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  beforeEach(() => {
    setEnv(
      parseEnv({
        NODE_ENV: "test",
        APP_URL: origin,
        MPESA_BASE_URL: `${origin}/sandbox/mpesa`,
        MPESA_CALLBACK_BASE_URL: origin,
        MPESA_CONSUMER_KEY: "harness-consumer-key",
        MPESA_CONSUMER_SECRET: "harness-consumer-secret",
        PAYSTACK_BASE_URL: `${origin}/sandbox/paystack`,
        PAYSTACK_SECRET_KEY: secretKey,
        // The same for Jumbe's calls to Daraja and Paystack: no test here is about their timeouts.
        MPESA_TIMEOUT_MS: String(HARNESS_TIMEOUT_MS),
        PAYSTACK_TIMEOUT_MS: String(HARNESS_TIMEOUT_MS),
      }),
    );
    clearDarajaTokens();
    mpesa!.reset();
    paystack!.reset();
  });

  const started = <T>(value: T | undefined) => {
    if (!value) throw new Error("paymentsHarnessForFile: use it inside a test or hook");
    return value;
  };
  return {
    get mpesa() {
      return started(mpesa);
    },
    get paystack() {
      return started(paystack);
    },
    get origin() {
      return origin;
    },
    secretKey,
  };
}
