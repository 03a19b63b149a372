import path from "node:path";
import { randomBytes } from "node:crypto";
import { PGlite } from "@electric-sql/pglite";
import { test, expect } from "./fixtures";
import { DEMO, signIn } from "./helpers";
import { customerNumber } from "./inbox-helpers";
import { ownServer, type OwnServer } from "./own-server";

// Issue 77, decision 156: with "Send conversions to Meta" on (Settings → Ads), a customer who writes
// from a sandbox ad pays a payment request on the M-Pesa sandbox's phone, the Meta sandbox's console
// lists the Purchase with the ad's click id, its value and KES, and the inbox shows it sent. JavaScript
// on and off. A server of its own, so the sandboxes show only this spec's customers.

let server: OwnServer;
let phoneNumberId = "";

test.beforeAll(async () => {
  test.setTimeout(240_000);
  server = await ownServer("ad-conversions");
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

test("a payment in a conversation from an ad is sent to Meta as a Purchase with the ad's click id", async ({
  browser,
  javaScriptEnabled,
}) => {
  test.slow();
  const context = await browser.newContext({ baseURL: server.base, javaScriptEnabled });
  const page = await context.newPage();
  const request = context.request;
  await signIn(page, DEMO.email, DEMO.password, { base: server.base, to: `${server.base}/settings/ads` });
  await page.goto(`${server.base}/settings/ads`);
  const turnOn = page.getByRole("button", { name: "Send conversions to Meta" });
  if (await turnOn.count()) await turnOn.click();
  await expect(page.getByTestId("conversions-state")).toHaveText("Sending conversions to Meta is on.");

  const from = customerNumber();
  const name = `Achieng ${randomBytes(2).toString("hex")}`;
  const ctwaClid = `ARAkLkA8rmlFeiCktEJQ-${randomBytes(6).toString("hex")}`;
  // An ad of this test's own (both projects share the server): its analytics are this payment's alone.
  const adId = `1202263058${String(randomBytes(4).readUInt32BE()).padStart(10, "0")}`;
  const wrote = await request.post(`${server.base}/sandbox/meta/control/inbound`, {
    data: {
      phoneNumberId,
      from,
      name,
      text: "Nataka tanki",
      ad: { sourceId: adId, headline: "Tanki la lita 1000", body: "Bei ya leo", ctwaClid },
    },
  });
  expect(wrote.status(), await wrote.text()).toBe(200);
  let conversationId = "";
  await expect
    .poll(
      async () => {
        await page.goto(`${server.base}/chat?q=${encodeURIComponent(name)}`);
        // Read what this load of the page shows, without waiting on it: without JavaScript the list
        // never changes after it loads, and waiting for a link would take the poll's whole time.
        const link = page.locator("a[data-conversation]").filter({ hasText: name }).first();
        const href = (await link.count()) ? await link.getAttribute("href") : null;
        conversationId = href?.match(/\/chat\/([0-9a-f-]{36})/)?.[1] ?? "";
        return conversationId;
      },
      { timeout: 60_000 },
    )
    .not.toBe("");
  await page.goto(`${server.base}/chat/${conversationId}`);
  await expect(page.locator("#inbox-header").getByText("From ad: Tanki la lita 1000")).toBeVisible();
  await page.getByText("Request payment").click();
  await page.getByLabel("Amount (KES)").fill("1250");
  await page.getByLabel("What it is for").fill("Tanki");
  await page.getByRole("button", { name: "Send payment request" }).click();
  await expect(page.getByTestId("payment-request-card").first()).toBeVisible({ timeout: 30_000 });

  // The customer taps Pay in the Meta sandbox's console and approves on the M-Pesa sandbox's phone.
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

  // Meta (the sandbox) received the Purchase: the ad's click id, KES 1,250.
  const row = metaConsole.locator("tr", { hasText: ctwaClid });
  await expect
    .poll(
      async () => {
        await metaConsole.goto(`${server.base}/sandbox/meta/console/conversions`);
        return row.count();
      },
      { timeout: 60_000 },
    )
    .toBe(1);
  await expect(row).toContainText("Purchase");
  await expect(row.locator("td").nth(2)).toHaveText("1250");
  await expect(row.locator("td").nth(3)).toHaveText("KES");

  // The inbox shows it sent.
  await expect
    .poll(
      async () => {
        await page.goto(`${server.base}/chat/${conversationId}`);
        return (
          (await page
            .getByTestId("ad-conversions")
            .textContent()
            .catch(() => null)) ?? ""
        );
      },
      { timeout: 30_000 },
    )
    .toContain("Purchase KES 1,250.00 · sent to Meta");

  // Analytics → Ads: the ad's conversation, its payment and the shillings it brought.
  await page.goto(`${server.base}/analytics/ads`);
  const adRow = page.getByTestId("analytics-ads").locator("tr", { hasText: adId });
  await expect(adRow).toContainText("Tanki la lita 1000");
  await expect(adRow).toContainText(/KES\s?1,250/);
  await context.close();
});
