import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, expect } from "vitest";
import { handleShopifyWebhook, SHOPIFY_WEBHOOK_PATH } from "~/.server/adapters/webhooks-in/shopify";
import { startShopify, CLIENT_ID, CLIENT_SECRET, type ShopifyHarness } from "@jumbe/sandbox/shopify/test-support";
import * as integrationsPage from "~/routes/app/integrations/index";
import * as callbackRoute from "~/routes/app/integrations/callback";
import { formRequest, getRequest, run } from "./http";

/**
 * The Shopify sandbox for a test file (decisions 108 and 142): the sandbox shop on a free port, Jumbe's
 * Shopify webhook receiver on another (APP_URL), the Shopify settings pointed at the sandbox before
 * each test (through `setEnv`, which adds the file's own: the Meta sandbox's or the payments'), and a
 * new shop connected as its owner would: the integrations page's connect, Shopify's install page and
 * the callback. Each call of `connect` installs a shop of its own (the sandbox keeps one install per shop).
 */
export function shopifyHarnessForFile(options: { shopPrefix: string; setEnv: (vars: Record<string, string>) => void }) {
  let shopify: ShopifyHarness | undefined;
  let app: Server | undefined;
  let appOrigin = "";
  let shops = 0;

  beforeAll(async () => {
    shopify = await startShopify({ webhookAttempts: 2 });
    app = createServer((req, res) => {
      if (req.url === SHOPIFY_WEBHOOK_PATH) return void handleShopifyWebhook(req, res);
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => app!.listen(0, "127.0.0.1", resolve));
    appOrigin = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await shopify?.close();
    app?.closeAllConnections();
    await new Promise((resolve) => app?.close(resolve));
  });
  beforeEach(() => {
    const base = started().base;
    options.setEnv({
      APP_URL: appOrigin,
      SHOPIFY_CLIENT_ID: CLIENT_ID,
      SHOPIFY_CLIENT_SECRET: CLIENT_SECRET,
      SHOPIFY_AUTH_URL: `${base}/shops/{shop}`,
      SHOPIFY_API_URL: `${base}/shops/{shop}`,
      SHOPIFY_TIMEOUT_MS: "3000",
    });
  });

  function started() {
    if (!shopify) throw new Error("shopifyHarnessForFile: read the sandbox inside a test or hook");
    return shopify;
  }
  const newShop = () => `${options.shopPrefix}-${process.pid}-${++shops}.myshopify.com`;

  /** A new shop connected to the member's organisation (their session's cookie), as the owner would; its domain. */
  async function connect(cookie: string, shop = newShop()) {
    const begun = await run(
      integrationsPage.action,
      formRequest("/integrations", { intent: "connect", integration: "shopify", shop }, { cookie }),
    );
    const authorize = new URL(begun.location!);
    expect(authorize.searchParams.get("scope")).toContain("read_products");
    expect(authorize.searchParams.get("scope")).toContain("write_orders");
    const answered = await started().postForm(`/shops/${shop}/admin/oauth/authorize`, {
      client_id: authorize.searchParams.get("client_id")!,
      redirect_uri: authorize.searchParams.get("redirect_uri")!,
      scope: authorize.searchParams.get("scope")!,
      state: authorize.searchParams.get("state")!,
      decision: "install",
    });
    const back = new URL(answered.headers.get("location")!);
    const done = await run(callbackRoute.loader, getRequest(`/integrations/shopify/callback?${back.searchParams}`, { cookie }), {
      params: { provider: "shopify" },
    });
    expect(done.status, JSON.stringify(done.data)).toBe(302);
    return shop;
  }

  return {
    get shopify(): ShopifyHarness {
      return started();
    },
    /** Jumbe's address as the sandbox shop calls it (APP_URL). */
    get appOrigin() {
      return appOrigin;
    },
    newShop,
    connect,
  };
}
