import path from "node:path";
import { randomBytes } from "node:crypto";
import { PGlite } from "@electric-sql/pglite";
import { test, expect } from "./fixtures";
import { DEMO, signIn } from "./helpers";
import { customerNumber } from "./inbox-helpers";
import { ownServer, type OwnServer } from "./own-server";

// Issue 76: a member sends a payment request from the inbox, the customer taps Pay (in the Meta
// sandbox's console, which posts the tap as WhatsApp would), approves on the M-Pesa sandbox's phone
// page, and the thread's card shows the receipt; with JavaScript on and off. The request goes to the
// demo Sacco's own till (seeded, and known to the sandbox: sandbox/mpesa/demo-tills.ts), a
// CustomerBuyGoodsOnline push. A server of its own, so the sandbox's phone shows only its prompts.

let server: OwnServer;
let phoneNumberId = "";

test.beforeAll(async () => {
  test.setTimeout(240_000);
  server = await ownServer("payment-requests");
  await server.prepare();
  const db = await PGlite.create(path.join(server.dataDir, "pglite"));
  try {
    const demo = await db.query<{ phone_number_id: string }>(
      `select n.phone_number_id from users u join whatsapp_phone_numbers n on n.organization_id = u.organization_id
       where u.email = $1 limit 1`,
      [DEMO.email],
    );
    phoneNumberId = demo.rows[0]!.phone_number_id;
  } finally {
    await db.close();
  }
  await server.start();
});

test.afterAll(async () => {
  await server?.dispose();
});

// The js and no-js projects run it with JavaScript on and off.
test("a payment request is paid from the customer's phone and the thread shows the receipt", async ({ browser, javaScriptEnabled }) => {
  test.slow();
  const context = await browser.newContext({ baseURL: server.base, javaScriptEnabled });
  const page = await context.newPage();
  const request = context.request;
  const from = customerNumber();
  const name = `Achieng ${randomBytes(2).toString("hex")}`;
  const wrote = await request.post(`${server.base}/sandbox/meta/control/inbound`, {
    data: { phoneNumberId, from, name, text: "Nataka kulipa" },
  });
  expect(wrote.status(), await wrote.text()).toBe(200);
  let conversationId = "";
  await signIn(page, DEMO.email, DEMO.password, { base: server.base, to: `${server.base}/chat` });
  await expect
    .poll(
      async () => {
        await page.goto(`${server.base}/chat?q=${encodeURIComponent(name)}`);
        const href = await page
          .locator("a[data-conversation]")
          .filter({ hasText: name })
          .first()
          .getAttribute("href")
          .catch(() => null);
        conversationId = href?.match(/\/chat\/([0-9a-f-]{36})/)?.[1] ?? "";
        return conversationId;
      },
      { timeout: 30_000 },
    )
    .not.toBe("");
  await page.goto(`${server.base}/chat/${conversationId}`);
  await page.getByText("Request payment").click();
  await page.getByLabel("Amount (KES)").fill("1250");
  await page.getByLabel("What it is for").fill("Order 42");
  await page.getByLabel("Account reference (optional)").fill("ORDER42");
  await page.getByRole("button", { name: "Send payment request" }).click();
  await expect(page.getByTestId("payment-request-card").first()).toBeVisible({ timeout: 30_000 });
  await page.goto(`${server.base}/chat/${conversationId}`);
  const card = page.getByTestId("payment-request-card").first();
  await expect(card).toContainText("KES 1,250");
  await expect(card).toContainText("Waiting for payment");

  // The customer taps Pay on the request's message, in the Meta sandbox's console (a plain form, as WhatsApp posts the tap).
  const metaConsole = await context.newPage();
  const tapPay = metaConsole
    .locator("tr", { hasText: `+${from}` })
    .filter({ hasText: "asks you to pay" })
    .getByRole("button", { name: "Tap “Pay with M-Pesa”" });
  await expect
    .poll(
      async () => {
        await metaConsole.goto(`${server.base}/sandbox/meta`);
        return tapPay.count();
      },
      { timeout: 30_000 },
    )
    .toBe(1);
  await tapPay.click();
  await expect(metaConsole.getByText(/Tapped "Pay with M-Pesa"/)).toBeVisible();

  // The prompt on the customer's phone: the M-Pesa sandbox's phone page, the PIN entered.
  const phone = await context.newPage();
  await expect
    .poll(
      async () => {
        await phone.goto(`${server.base}/sandbox/mpesa/phone?phone=${from}`);
        return phone.getByLabel(/PIN/).count();
      },
      { timeout: 30_000 },
    )
    .toBeGreaterThan(0);
  await phone.getByLabel(/PIN/).first().fill("1234");
  await phone
    .getByRole("button", { name: /pay|send|ok/i })
    .first()
    .click();

  await expect
    .poll(
      async () => {
        await page.goto(`${server.base}/chat/${conversationId}`);
        return (await page.getByTestId("payment-request-card").first().textContent()) ?? "";
      },
      { timeout: 30_000 },
    )
    .toMatch(/Paid.*receipt [A-Z0-9]{10}/);
  await expect(page.getByTestId("thread")).toContainText("Payment received: KES 1,250 for Order 42", { timeout: 30_000 });
  await context.close();
});

test("a member cancels an open request from its card, and the customer is told not to pay", async ({ browser, javaScriptEnabled }) => {
  test.slow();
  const context = await browser.newContext({ baseURL: server.base, javaScriptEnabled });
  const page = await context.newPage();
  const from = customerNumber();
  const name = `Wanjiru ${randomBytes(2).toString("hex")}`;
  const wrote = await context.request.post(`${server.base}/sandbox/meta/control/inbound`, {
    data: { phoneNumberId, from, name, text: "Bei ya viatu?" },
  });
  expect(wrote.status(), await wrote.text()).toBe(200);
  await signIn(page, DEMO.email, DEMO.password, { base: server.base, to: `${server.base}/chat` });
  let conversationId = "";
  await expect
    .poll(
      async () => {
        await page.goto(`${server.base}/chat?q=${encodeURIComponent(name)}`);
        const href = await page
          .locator("a[data-conversation]")
          .filter({ hasText: name })
          .first()
          .getAttribute("href")
          .catch(() => null);
        conversationId = href?.match(/\/chat\/([0-9a-f-]{36})/)?.[1] ?? "";
        return conversationId;
      },
      { timeout: 30_000 },
    )
    .not.toBe("");
  await page.goto(`${server.base}/chat/${conversationId}`);
  await page.getByText("Request payment").click();
  await page.getByLabel("Amount (KES)").fill("800");
  await page.getByLabel("What it is for").fill("School shoes");
  await page.getByRole("button", { name: "Send payment request" }).click();
  const card = page.getByTestId("payment-request-card").first();
  await expect(card).toContainText("Waiting for payment", { timeout: 30_000 });
  await card.getByRole("button", { name: "Cancel request" }).click();
  await expect(page.getByText("Payment request cancelled.").first()).toBeVisible({ timeout: 30_000 });
  await page.goto(`${server.base}/chat/${conversationId}`);
  await expect(page.getByTestId("payment-request-card").first()).toContainText("Cancelled");
  await expect(page.getByTestId("payment-request-card").first().getByRole("button", { name: "Cancel request" })).toHaveCount(0);
  await expect(page.getByTestId("thread")).toContainText("The request to pay KES 800 for School shoes has been cancelled.", {
    timeout: 30_000,
  });
  await context.close();
});

// Issue 76 (decision 139): "Request payment" on a contact's page, and the Automations page's "When a
// cart arrives" switch asking for an order's total by itself; with JavaScript on and off.
test("a contact's page asks for payment, and a cart's total is asked for by the automation", async ({ browser, javaScriptEnabled }) => {
  test.slow();
  const context = await browser.newContext({ baseURL: server.base, javaScriptEnabled });
  const page = await context.newPage();
  const request = context.request;
  const from = customerNumber();
  const name = `Wanjiru ${randomBytes(2).toString("hex")}`;
  const wrote = await request.post(`${server.base}/sandbox/meta/control/inbound`, {
    data: { phoneNumberId, from, name, text: "Habari, nitalipa" },
  });
  expect(wrote.status(), await wrote.text()).toBe(200);
  await signIn(page, DEMO.email, DEMO.password, { base: server.base, to: `${server.base}/messaging/contacts` });
  let contactHref = "";
  await expect
    .poll(
      async () => {
        await page.goto(`${server.base}/messaging/contacts?q=${encodeURIComponent(name)}`);
        contactHref =
          (await page
            .locator('a[href^="/messaging/contacts/"]')
            .filter({ hasText: name })
            .first()
            .getAttribute("href")
            .catch(() => null)) ?? "";
        return contactHref;
      },
      { timeout: 30_000 },
    )
    .toMatch(/\/messaging\/contacts\/[0-9a-f-]{36}/);

  // The contact's page: a wrong amount is refused at its field, then the request goes.
  await page.goto(`${server.base}${contactHref}`);
  const card = page.locator("#contact-payment");
  await card.locator("summary").click();
  await card.getByLabel("Amount (KES)").fill("0");
  await card.getByLabel("What it is for").fill("Ada ya mwaka");
  await card.getByRole("button", { name: "Send payment request" }).click();
  await expect(page.locator("#contact-payment")).toContainText("shillings");
  await page.locator("#contact-payment").getByLabel("Amount (KES)").fill("750");
  await page.locator("#contact-payment").getByRole("button", { name: "Send payment request" }).click();
  await expect(page.getByRole("status")).toContainText(/sent/i, { timeout: 30_000 });

  // The automation on (each project finds it as the other left it).
  await page.goto(`${server.base}/automations`);
  const automation = page.locator("#order-payment");
  if (await automation.getByRole("button", { name: "Turn on" }).count()) await automation.getByRole("button", { name: "Turn on" }).click();
  await expect(page.locator("#order-payment")).toContainText("On: each new order's total is asked for by M-Pesa.");

  // The contact's request is in their thread. (The demo's assistant handed that conversation to a
  // person, so the order automation keeps quiet there: a bot never speaks while a person holds it.)
  await page.goto(`${server.base}/chat?q=${encodeURIComponent(name)}`);
  await page.goto(`${server.base}${await page.locator("a[data-conversation]").filter({ hasText: name }).first().getAttribute("href")}`);
  await expect(page.getByTestId("payment-request-card").filter({ hasText: "KES 750" })).toHaveCount(1);

  // Another customer's first message is a cart: its total is asked for in the thread without anyone clicking.
  const buyer = customerNumber();
  const buyerName = `Kamau ${randomBytes(2).toString("hex")}`;
  const ordered = await request.post(`${server.base}/sandbox/meta/control/inbound`, {
    data: {
      phoneNumberId,
      from: buyer,
      name: buyerName,
      type: "order",
      order: { catalogId: "demo-catalog", text: "", items: [{ retailerId: "UNKNOWN-1", quantity: 2, itemPrice: 450, currency: "KES" }] },
    },
  });
  expect(ordered.status(), await ordered.text()).toBe(200);
  await expect
    .poll(
      async () => {
        await page.goto(`${server.base}/chat?q=${buyer}`);
        const link = page.locator("a[data-conversation]").first();
        const href = (await link.count()) ? await link.getAttribute("href") : null;
        if (!href) return [];
        await page.goto(`${server.base}${href}`);
        return page.getByTestId("payment-request-card").allTextContents();
      },
      { timeout: 60_000 },
    )
    .toEqual([expect.stringContaining("KES 900")]);
  await context.close();
});
