import { once } from "node:events";
import type { AddressInfo } from "node:net";
import express from "express";
import { startWebhookReceiver } from "../test-receiver";
import { createShopifySandbox, type ShopifySandboxOptions } from "./index";
import { keepIdleConnections } from "../test-server";

export const CLIENT_ID = "shopify-sandbox-tests-client";
export const CLIENT_SECRET = "shpss_sandbox_tests_secret_0123456789";
export const SHOP = "duka-bora.myshopify.com";
export const REDIRECT_URI = "http://127.0.0.1:9/integrations/shopify/callback";
export const SCOPES = "read_orders,read_customers";
export const API_VERSION = "2025-10";

export type { ReceivedWebhook } from "../test-receiver";

export interface Answer<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  json: T;
}

/** The sandbox on a throwaway Express app on a free loopback port, with a webhook receiver. */
export async function startShopify(overrides: Partial<ShopifySandboxOptions> = {}, options: { complianceToReceiver?: boolean } = {}) {
  const receiver = await startWebhookReceiver("/webhooks/shopify");
  const sandbox = createShopifySandbox({
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    webhookDelayMs: 0,
    webhookAttempts: 3,
    // The app configuration's compliance address: the receiver, when a test asks for it.
    ...(options.complianceToReceiver ? { complianceWebhookAddress: receiver.url } : {}),
    ...overrides,
  });
  const app = express();
  app.use((_req, res, next) => {
    res.locals.cspNonce = "test-nonce";
    next();
  });
  app.use("/sandbox/shopify", sandbox.router);
  const server = keepIdleConnections(app.listen(0, "127.0.0.1"));
  await once(server, "listening");
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const base = `${origin}/sandbox/shopify`;

  async function answer<T>(response: Response): Promise<Answer<T>> {
    const text = await response.text();
    return { status: response.status, headers: response.headers, json: (text ? JSON.parse(text) : {}) as T };
  }

  const postForm = (path: string, fields: Record<string, string>) =>
    fetch(`${base}${path}`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields).toString(),
      redirect: "manual",
    });

  /** The grant page's form for a shop: answers the redirect's URL (code, hmac, host, shop, state, timestamp). */
  async function install(shop = SHOP, state = "nonce-1", scope = SCOPES) {
    const response = await postForm(`/shops/${shop}/admin/oauth/authorize`, {
      client_id: CLIENT_ID,
      redirect_uri: REDIRECT_URI,
      scope,
      state,
      decision: "install",
    });
    if (response.status !== 303) throw new Error(`install answered ${response.status}`);
    return new URL(response.headers.get("location")!);
  }

  async function accessToken(shop: string, body: Record<string, unknown>) {
    return answer<{ access_token: string; scope: string; error?: string }>(
      await fetch(`${base}/shops/${shop}/admin/oauth/access_token`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(body),
      }),
    );
  }

  async function connect(shop = SHOP, scope = SCOPES) {
    const code = (await install(shop, "nonce-1", scope)).searchParams.get("code")!;
    const answered = await accessToken(shop, { client_id: CLIENT_ID, client_secret: CLIENT_SECRET, code });
    if (answered.status !== 200) throw new Error(`access_token failed: ${JSON.stringify(answered.json)}`);
    return answered.json.access_token;
  }

  async function admin<T = Record<string, unknown>>(
    path: string,
    token: string | null,
    init: { method?: string; body?: unknown; shop?: string } = {},
  ) {
    const headers = new Headers();
    if (token !== null) headers.set("X-Shopify-Access-Token", token);
    if (init.body !== undefined) headers.set("Content-Type", "application/json");
    const body = init.body === undefined ? undefined : JSON.stringify(init.body);
    return answer<T>(
      await fetch(`${base}/shops/${init.shop ?? SHOP}/admin/api/${API_VERSION}${path}`, {
        method: init.method ?? (body ? "POST" : "GET"),
        headers,
        body,
      }),
    );
  }

  /** Subscribes the receiver to topics with a token. */
  async function subscribe(token: string, topics: string[]) {
    for (const topic of topics) {
      const created = await admin("/webhooks.json", token, { body: { webhook: { topic, address: receiver.url, format: "json" } } });
      if (created.status !== 201) throw new Error(`webhook ${topic}: ${JSON.stringify(created.json)}`);
    }
  }

  async function control<T = Record<string, unknown>>(path: string, init: { method?: string; body?: unknown } = {}) {
    const body = init.body === undefined ? undefined : JSON.stringify(init.body);
    return answer<T>(
      await fetch(`${base}/control${path}`, {
        method: init.method ?? (body ? "POST" : "GET"),
        headers: body ? { "Content-Type": "application/json" } : {},
        body,
      }),
    );
  }

  return {
    sandbox,
    receiver,
    origin,
    base,
    postForm,
    install,
    accessToken,
    connect,
    admin,
    subscribe,
    control,
    async close() {
      await sandbox.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await receiver.close();
    },
  };
}

export type ShopifyHarness = Awaited<ReturnType<typeof startShopify>>;
