import { randomBytes } from "node:crypto";
import { test, expect } from "./fixtures";
import { readyBusiness } from "./campaign-helpers";
import { field } from "./helpers";

// Issue 76 (decisions 142, 147): the Shopify page's two forms in the browser, with JavaScript on and off
// (the two projects): asking for M-Pesa on pending orders turned on, and the shop's products imported
// as a queued job (the toast says it started, the card shows its result once done); then the page at
// 360 px in Swahili and French without sideways scrolling.

test("asks for M-Pesa on pending orders and imports the shop's products as a job; fits 360 px in sw and fr", async ({ page, request }) => {
  test.setTimeout(180_000);
  await readyBusiness(page, request);
  const tag = randomBytes(4).toString("hex");
  const shop = `duka-set-${tag}.myshopify.com`;
  await page.goto("/integrations?dialog=connect-shopify");
  const dialog = page.getByRole("dialog", { name: "Connect Shopify" });
  await field(dialog, "Shop address").fill(shop);
  await dialog.getByRole("button", { name: "Continue to Shopify" }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Install Jumbe");
  await page.getByRole("button", { name: "Install app" }).click();
  await expect(page.getByText(`Shopify is connected: ${shop}.`)).toBeVisible();
  const sku = `E2E-${tag}`.toUpperCase();
  const seeded = await request.post(`/sandbox/shopify/control/shops/${shop}/products`, {
    data: { products: [{ title: "Kikoi ya pwani", sku, price: 1500 }] },
  });
  expect(seeded.ok()).toBe(true);

  await page.goto("/integrations/shopify");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Shopify messages");
  // Nothing to reconnect: a shop connected now granted every scope.
  await expect(page.locator("[data-missing-scopes]")).toHaveCount(0);

  const pay = page.locator("section[data-ask-payment]");
  await pay.getByLabel("Ask for payment by M-Pesa").check();
  await pay.getByRole("button", { name: "Save payment by M-Pesa" }).click();
  await expect(page.getByText("Pending orders will ask for payment by M-Pesa.")).toBeVisible();
  await expect(page.locator('section[data-ask-payment="on"]')).toBeVisible();

  const products = page.locator("section[data-import]");
  await products.getByRole("button", { name: "Import products from Shopify" }).click();
  await expect(page.getByText("The import has started. Its result shows on this page when it is done.")).toBeVisible();
  await expect(async () => {
    await page.reload();
    await expect(page.locator('section[data-import="done"]')).toContainText("Products from Shopify: 1 new, 0 updated, 0 removed.", {
      timeout: 1000,
    });
  }).toPass({ timeout: 30_000 });
  await page.goto("/shop/products");
  await expect(page.getByRole("main")).toContainText("Kikoi ya pwani");

  await page.setViewportSize({ width: 360, height: 780 });
  const titles = { sw: "Ujumbe wa Shopify", fr: "Messages Shopify" } as const;
  for (const [locale, title] of Object.entries(titles)) {
    const chosen = await page.request.post("/language", {
      form: { locale, redirectTo: "/integrations/shopify" },
      headers: { Origin: new URL(page.url()).origin },
      maxRedirects: 0,
    });
    expect(chosen.status(), locale).toBe(302);
    await page.goto("/integrations/shopify");
    await expect(page.getByRole("heading", { level: 1, name: title })).toBeVisible();
    await expect(page.locator('section[data-import="done"]')).toBeVisible();
    expect(
      await page.evaluate(() => document.scrollingElement!.scrollWidth),
      `${locale}: /integrations/shopify at 360 px`,
    ).toBeLessThanOrEqual(360);
  }
});
