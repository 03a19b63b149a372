import { randomBytes, randomInt } from "node:crypto";
import type { APIRequestContext } from "@playwright/test";
import { test, expect } from "./fixtures";
import { readyBusiness } from "./campaign-helpers";
import { field } from "./helpers";

// Issue 45's Shopify connector in the browser, with JavaScript on and off (the two projects): connect
// a test shop through the Shopify sandbox's install page (its Admin API answering 429 once on the way),
// map "Order created" to an approved template, place an order in the sandbox (its control API) and see
// the customer receive the mapped template in the Meta sandbox; a shop whose Admin API refuses the token
// fails in words; disconnecting; a coming-soon card refused.

/** What the Meta sandbox accepted from the WABA's number, as text. */
async function sandboxSent(request: APIRequestContext, wabaId: string) {
  const state = (await (await request.get("/sandbox/meta/control/state")).json()) as { phoneNumbers: { id: string; wabaId: string }[] };
  const phone = state.phoneNumbers.find((p) => p.wabaId === wabaId);
  const answer = await request.get(`/sandbox/meta/control/messages?phoneNumberId=${phone?.id ?? ""}`);
  if (!answer.ok()) return "";
  return JSON.stringify(await answer.json());
}

test("a shop's order reaches its customer as the mapped template; a refused token fails in words", async ({ page, request }) => {
  test.setTimeout(180_000);
  const { template, wabaId } = await readyBusiness(page, request);
  const shop = `duka-e2e-${randomBytes(4).toString("hex")}.myshopify.com`;
  const installShop = async (domain: string) => {
    await page.goto("/integrations?dialog=connect-shopify");
    const dialog = page.getByRole("dialog", { name: "Connect Shopify" });
    await field(dialog, "Shop address").fill(domain);
    await dialog.getByRole("button", { name: "Continue to Shopify" }).click();
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Install Jumbe");
    await page.getByRole("button", { name: "Install app" }).click();
  };

  // A shop whose Admin API refuses the new token (the sandbox's magic-401 in its address): the
  // connect fails (502, the reason in the activity log) and nothing is connected.
  const refusing = `magic-401-${randomBytes(3).toString("hex")}.myshopify.com`;
  const origin = new URL(page.url()).origin;
  const started = await page.request.post("/integrations", {
    form: { intent: "connect", integration: "shopify", shop: refusing },
    headers: { origin },
    maxRedirects: 0,
  });
  expect(started.status()).toBe(302);
  const authorize = new URL(started.headers().location!);
  const installed = await page.request.post(authorize.pathname, {
    form: { ...Object.fromEntries(authorize.searchParams), decision: "install" },
    maxRedirects: 0,
  });
  expect(installed.status()).toBe(303);
  const back = new URL(installed.headers().location!);
  const refused = await page.request.get(`${back.pathname}${back.search}`, { maxRedirects: 0 });
  expect(refused.status()).toBe(502);
  // The activity log says why.
  await page.goto("/activity");
  await expect(page.getByRole("main")).toContainText("Shopify webhook list");
  await page.goto("/integrations");
  await expect(page.locator('article[data-integration="shopify"]')).toContainText("Available");

  // Connect: the shop's address in the dialog, Shopify's install page, back to Integrations. Shopify's
  // Admin API is busy once while Jumbe subscribes the webhooks (429): Jumbe waits and tries again.
  expect((await request.post("/sandbox/shopify/control/faults", { data: { fault: "429", times: 1 } })).ok()).toBe(true);
  await installShop(shop);
  await expect(page).toHaveURL(/\/integrations$/);
  await expect(page.getByText(`Shopify is connected: ${shop}.`)).toBeVisible();
  const card = page.locator('article[data-integration="shopify"]');
  await expect(card).toContainText("Connected");

  // Map "Order created" to the approved template: choosing it first, then what fills its variables.
  await card.getByRole("link", { name: "Message settings" }).click();
  await expect(page).toHaveURL(/\/integrations\/shopify$/);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Shopify messages");
  const orders = page.locator('section[data-event="order_created"]');
  // Each message's way to its SMS fallback on Settings → SMS (decision 159).
  await expect(orders.getByRole("link", { name: "set it in Settings → SMS" })).toHaveAttribute(
    "href",
    "/settings/sms#fallback-shopify_order_created",
  );
  await orders.getByLabel("Send this message").check();
  await orders.getByLabel("Template", { exact: true }).selectOption({ label: `${template} (en)` });
  await orders.getByRole("button", { name: "Save Order created" }).click();
  await expect(page.getByText("Order created saved.")).toBeVisible();
  await expect(orders.getByLabel("Variable {{1}}")).toHaveValue("customer_name");
  await orders.getByLabel("Variable {{2}}").selectOption({ label: "Order total (KES)" });
  await orders.getByRole("button", { name: "Save Order created" }).click();
  await expect(page.getByText("Order created saved.")).toBeVisible();
  await expect(orders.getByLabel("Variable {{2}}")).toHaveValue("order_total");
  await expect(orders).toContainText("On");

  // A customer orders in the shop (the sandbox's control API): the template reaches them.
  const phone = `07${randomInt(10, 99)}${randomInt(100000, 999999)}`.replace(/8$/, "7");
  const ordered = await request.post(`/sandbox/shopify/control/shops/${shop}/orders`, {
    data: {
      customer: { first_name: "Wanjiku", last_name: "Kamau", phone },
      line_items: [{ title: "Kikoy beach towel", quantity: 3, price: "1250.00" }],
    },
  });
  expect(ordered.status()).toBe(201);
  await expect.poll(() => sandboxSent(request, wabaId), { timeout: 30_000 }).toContain("KES 3,750.00");
  expect(await sandboxSent(request, wabaId)).toContain("Wanjiku Kamau");
  await expect(async () => {
    await page.reload();
    await expect(page.getByRole("region", { name: "Recent events" }).locator('li[data-status="sent"]')).toHaveCount(1, { timeout: 1000 });
  }).toPass({ timeout: 30_000 });

  // Disconnect: the webhooks removed at the shop, the token forgotten.
  await page.goto("/integrations");
  await page.getByRole("link", { name: "Disconnect Shopify" }).click();
  await page.getByRole("button", { name: "Disconnect" }).click();
  await expect(page.getByText("Shopify is disconnected and its access revoked.")).toBeVisible();
  await expect(page.locator('article[data-integration="shopify"]')).toContainText("Available");
  expect((await page.request.get("/integrations/shopify")).status()).toBe(404);
  const shops = (await (await request.get("/sandbox/shopify/control/shops")).json()) as {
    shops: { domain: string; subscriptions: unknown[] }[];
  };
  expect(shops.shops.find((s) => s.domain === shop)?.subscriptions).toEqual([]);

  // A coming-soon card: nothing to press, and the server refuses it.
  await expect(page.locator('article[data-integration="woocommerce"]').getByRole("link")).toHaveCount(0);
  const comingSoon = await page.request.post("/integrations", {
    form: { intent: "connect", integration: "woocommerce" },
    headers: { origin: new URL(page.url()).origin },
  });
  expect(comingSoon.status()).toBe(409);
});
