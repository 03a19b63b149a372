import { randomBytes } from "node:crypto";
import { test, expect } from "./fixtures";
import { connectedBusiness, customerNumber, customerWrites, expectSoon, openConversation, sentMessage, thread } from "./inbox-helpers";

// The shop (issue 76, decision 138), with JavaScript on and off: a product added and synced to the
// Meta sandbox's catalog, sent in a product list from the inbox, ordered from the sandbox's cart
// page as the customer, shown in the thread as a cart with its total and listed on /shop/orders.

test("a product goes to the catalog, out in a list, and comes back as an order", async ({ page, request, javaScriptEnabled }) => {
  const { phoneNumberId } = await connectedBusiness(page, request);
  const product = `Kikoi ${randomBytes(2).toString("hex")}`;

  await page.goto("/shop/products/new");
  await page.getByLabel("Name").fill(product);
  await page.getByLabel("Price (KES)").fill("1,500");
  await page.getByLabel("SKU", { exact: false }).fill("KIKOI-1");
  await page.getByLabel("Image address").fill("https://duka.example.co.ke/kikoi.jpg");
  await page.getByRole("button", { name: "Save the product" }).click();
  await expect(page).toHaveURL(/\/shop\/products$/);
  const productRow = page.getByRole("row").filter({ hasText: product });
  await expect(productRow).toContainText("KES 1,500.00");
  // The sync job pushes it to the sandbox's catalog; the page says so once it has.
  await expect(async () => {
    await page.reload();
    await expect(productRow).toContainText("In the catalog", { timeout: 1000 });
  }).toPass({ timeout: 30_000 });

  const from = customerNumber();
  const name = `Amina ${randomBytes(2).toString("hex")}`;
  await customerWrites(request, { phoneNumberId, from, name, text: "Mna vikoi?" });
  const conversationId = await openConversation(page, javaScriptEnabled, name);
  await page.getByText("Send products", { exact: true }).click();
  const form = page.getByRole("form", { name: "Send products" });
  await form.getByRole("checkbox", { name: new RegExp(product) }).check();
  await form.getByLabel("Heading (product list)").fill("Mpya wiki hii");
  await form.getByLabel("Message").fill("Chagua unachopenda");
  await form.getByRole("button", { name: "Send", exact: true }).click();
  await sentMessage(request, phoneNumberId, "product_list");

  // The customer fills the cart on the sandbox's page and sends it: Meta's order webhook.
  await page.goto("/sandbox/meta/console/shop");
  const card = page.getByRole("region", { name: `Product message to +${from}` }).first();
  await card.getByLabel(`Quantity of ${product}`).fill("2");
  await card.getByLabel("Customer's WhatsApp name").fill(name);
  await card.getByRole("button", { name: "Send order" }).click();
  await expect(page.getByRole("status")).toContainText("Sent the order");

  await page.goto(`/chat/${conversationId}`);
  await expectSoon(page, javaScriptEnabled, async () => {
    const cart = thread(page).locator("[data-cart]");
    await expect(cart).toContainText(`2 × ${product}`, { timeout: javaScriptEnabled ? 30_000 : 1000 });
    await expect(cart).toContainText("KES 3,000.00");
  });

  await page.goto("/shop/orders");
  const orderRow = page.getByRole("row").filter({ hasText: name });
  await expect(orderRow).toContainText(`2 × ${product}`);
  await expect(orderRow).toContainText("KES 3,000.00");
  await expect(orderRow).toContainText("Received");
});
