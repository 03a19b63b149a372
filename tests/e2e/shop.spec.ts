import type { Page } from "@playwright/test";
import { randomBytes, randomInt } from "node:crypto";
import { test, expect } from "./fixtures";
import { field } from "./helpers";
import { BASE_URL } from "./helpers";
import {
  connectedBusiness,
  customerNumber,
  customerWrites,
  expectSoon,
  openConversation,
  sandboxMessages,
  sentMessage,
  textOf,
  thread,
} from "./inbox-helpers";

// The shop (issue 76, decision 138), with JavaScript on and off: a product added and synced to the
// Meta sandbox's catalog, sent in a product list from the inbox, ordered from the sandbox's cart
// page as the customer, shown in the thread as a cart with its total and listed on /shop/orders;
// then the agent asks for the cart's total by M-Pesa on the business's own till, the customer pays
// on the M-Pesa sandbox's phone, and the cart and the order say paid.

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
  // The picker finds a product by name (a GET that keeps what was ticked and typed), then it is ticked.
  await form.getByLabel("Heading (product list)").fill("Mpya wiki hii");
  await form.getByLabel("Find a product by name or SKU").fill(product);
  await form.getByRole("button", { name: "Find", exact: true }).click();
  await expect(page).toHaveURL(/[?&]pq=/);
  await expect(form.getByRole("checkbox")).toHaveCount(1);
  await expect(form.getByLabel("Heading (product list)")).toHaveValue("Mpya wiki hii");
  await form.getByRole("checkbox", { name: new RegExp(product) }).check();
  await form.getByLabel("Text with the products").fill("Chagua unachopenda");
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

  // The business's own till, known to the M-Pesa sandbox with its own Daraja app.
  const suffix = String(randomInt(10_000, 99_999));
  const till = {
    label: "Duka till",
    kind: "till",
    shortcode: `73${suffix}`,
    tillNumber: `53${suffix}`,
    consumerKey: `e2e-shop-key-${suffix}`,
    consumerSecret: `e2e-shop-secret-${suffix}`,
    passkey: `e2e-shop-passkey-${suffix}-0000000000`,
  };
  expect((await request.post("/sandbox/mpesa/control/shortcodes", { data: till })).status()).toBe(201);
  await page.goto("/settings/payments");
  await field(page, "Name").fill(till.label);
  await field(page, "Type").selectOption("till");
  await field(page, "Paybill or store number").fill(till.shortcode);
  await field(page, "Till number").fill(till.tillNumber);
  await field(page, "Environment").selectOption("sandbox");
  await field(page, "Consumer key").fill(till.consumerKey);
  await field(page, "Consumer secret").fill(till.consumerSecret);
  await field(page, "Passkey").fill(till.passkey);
  await page.getByRole("button", { name: "Connect" }).click();
  await expect(page.getByText("Duka till is connected.", { exact: false })).toBeVisible();

  // The agent turns the cart into a payment request for its total.
  await page.goto(`/chat/${conversationId}`);
  await thread(page).locator("[data-cart]").getByRole("button", { name: "Ask for KES 3,000.00 by M-Pesa" }).click();
  await expect(thread(page).locator('[data-cart-status="awaiting_payment"]')).toBeVisible({ timeout: 30_000 });

  // The customer taps Pay on the request's message (as WhatsApp posts a tap) and approves the prompt.
  let tap: { wamid: string; id: string } | undefined;
  await expect
    .poll(
      async () => {
        const sent = (await (await request.get(`/sandbox/meta/control/messages?phoneNumberId=${phoneNumberId}`)).json()) as {
          messages: { wamid: string; to: string; body: { interactive?: { action?: { buttons?: { reply: { id: string } }[] } } } }[];
        };
        const asked = sent.messages.find((m) => m.to.replace(/^\+/, "") === from && m.body.interactive?.action?.buttons);
        tap = asked ? { wamid: asked.wamid, id: asked.body.interactive!.action!.buttons![0]!.reply.id } : undefined;
        return !!tap;
      },
      { timeout: 30_000 },
    )
    .toBe(true);
  const tapped = await request.post("/sandbox/meta/control/inbound", {
    data: { phoneNumberId, from, name, type: "button_reply", contextId: tap!.wamid, replyId: tap!.id, title: "Pay with M-Pesa" },
  });
  expect(tapped.status(), await tapped.text()).toBe(200);
  await expect
    .poll(
      async () => {
        await page.goto(`/sandbox/mpesa/phone?phone=${from}`);
        return page.getByLabel(/PIN/).count();
      },
      { timeout: 30_000 },
    )
    .toBeGreaterThan(0);
  await page.getByLabel(/PIN/).first().fill("1234");
  await page
    .getByRole("button", { name: /pay|send|ok/i })
    .first()
    .click();

  await expect
    .poll(
      async () => {
        await page.goto(`/chat/${conversationId}`);
        return thread(page).locator('[data-cart-status="paid"]').count();
      },
      { timeout: 30_000 },
    )
    .toBe(1);
  await page.goto("/shop/orders");
  await expect(page.getByRole("row").filter({ hasText: name })).toContainText("Paid");
});

/** The signed-in member's language, chosen as the user menu's switcher chooses it (kept on the account). */
async function speak(page: Page, locale: "en" | "sw" | "fr") {
  const chosen = await page.request.post("/language", {
    form: { locale, redirectTo: "/" },
    headers: { Origin: BASE_URL },
    maxRedirects: 0,
  });
  expect(chosen.status()).toBe(302);
}

/** The page at 360 px does not scroll sideways. */
async function fits360(page: Page, what: string) {
  expect(await page.evaluate(() => document.scrollingElement!.scrollWidth), what).toBeLessThanOrEqual(360);
}

// Decision 143: a flow's products step built in French and a keyword rule's "Send products" in
// Swahili, on a 360 px screen (with JavaScript on and off: the forms are plain posts), and what each
// sends when the customer writes its keyword.
test("a flow's products step and a rule's Send products, built at 360 px in French and Swahili, send the products", async ({
  page,
  request,
}) => {
  test.setTimeout(180_000);
  const { phoneNumberId } = await connectedBusiness(page, request);
  const product = `Kanga ${randomBytes(2).toString("hex")}`;
  await page.goto("/shop/products/new");
  await page.getByLabel("Name").fill(product);
  await page.getByLabel("Price (KES)").fill("800");
  await page.getByLabel("SKU", { exact: false }).fill("KANGA-1");
  await page.getByLabel("Image address").fill("https://duka.example.co.ke/kanga.jpg");
  await page.getByRole("button", { name: "Save the product" }).click();
  const productRow = page.getByRole("row").filter({ hasText: product });
  await expect(async () => {
    await page.reload();
    await expect(productRow).toContainText("In the catalog", { timeout: 1000 });
  }).toPass({ timeout: 30_000 });

  await page.setViewportSize({ width: 360, height: 800 });
  await speak(page, "fr");
  await page.goto("/automations/flows/new");
  await page.locator('input[name="name"]').fill("Duka la Kanga");
  await page.locator('button[name="intent"][value="create"]').click();
  await page.locator('select[name="add"]').selectOption("products");
  await page.locator('form:has(select[name="add"]) button[type="submit"]').click();
  const step = page.locator("#step-form");
  await expect(step.getByText("Quoi envoyer")).toBeVisible();
  await fits360(page, "the products step's form in French");
  await step.getByRole("checkbox", { name: new RegExp(product) }).check();
  await step.locator('input[name="header"]').fill("Mpya wiki hii");
  await step.locator('textarea[name="text"]').fill("Chagua, {{contact.name}}");
  await step.locator('button[name="intent"][value="save-step"]').click();
  await expect(page.getByRole("status").filter({ hasText: "Étape enregistrée." })).toBeVisible();
  await expect(page.locator("#steps").locator("..")).toContainText("produits cochés : 1");
  await fits360(page, "the builder in French");
  await page.locator('button[name="intent"][value="publish"]').click();
  await expect(page.locator('button[name="intent"][value="disable"]')).toBeVisible();
  const flowUrl = page.url();

  await speak(page, "sw");
  await page.goto("/automations/new");
  await expect(page.getByText("Tuma bidhaa").first()).toBeVisible();
  await page.locator('input[name="name"]').fill("Bei ya kanga");
  await page.locator('input[name="matchType"][value="exact"]').check();
  await page.locator('textarea[name="keywords"]').fill("kanga");
  await page.locator('input[name="productKind"][value="product"]').check();
  await page.getByRole("checkbox", { name: new RegExp(product) }).check();
  await page.locator('textarea[name="productBody"]').fill("Hii hapa");
  await fits360(page, "the rule's form in Swahili");
  await page.locator('button[name="intent"][value="save"]').click();
  await expect(page.getByRole("status").filter({ hasText: "Kanuni “Bei ya kanga” imeongezwa." })).toBeVisible();
  await expect(page.getByText("Inatuma bidhaa (1)")).toBeVisible();

  await page.goto("/automations/new");
  await page.locator('input[name="name"]').fill("Duka");
  await page.locator('input[name="matchType"][value="exact"]').check();
  await page.locator('textarea[name="keywords"]').fill("duka");
  await page.locator('select[name="flowId"]').selectOption({ label: "Duka la Kanga" });
  await page.locator('button[name="intent"][value="save"]').click();
  await expect(page.getByRole("status").filter({ hasText: "Kanuni “Duka” imeongezwa." })).toBeVisible();
  expect(flowUrl).toMatch(/\/automations\/flows\//);

  const from = customerNumber();
  await customerWrites(request, { phoneNumberId, from, name: "Zawadi Achieng", text: "kanga" });
  const one = await sentMessage(request, phoneNumberId, '"type":"product"');
  expect(textOf(one)).toContain("KANGA-1");
  await customerWrites(request, { phoneNumberId, from, name: "Zawadi Achieng", text: "duka" });
  const list = await sentMessage(request, phoneNumberId, '"type":"product_list"');
  expect(textOf(list)).toContain("Mpya wiki hii");
  expect(textOf(list)).toContain("Chagua, Zawadi Achieng");
  expect((await sandboxMessages(request, phoneNumberId)).filter((m) => textOf(m).includes("KANGA-1"))).toHaveLength(2);
});
