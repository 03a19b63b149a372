import { test, expect } from "./fixtures";
import { DEMO, signIn, signUpAndVerifyViaApi } from "./helpers";
import { seriousViolations } from "./axe";
import { freePort, ownServer } from "./own-server";

// Issue 45's catalogue in the browser, with JavaScript on and off: the category filter, the connect
// dialog (an address of its own), a coming-soon integration refused by the page and by the server,
// and a REST hook subscribed through the public API that the REST hooks card then shows, until it is
// disconnected. A server of its own, so REST hooks may target loopback (WEBHOOK_ALLOW_LOOPBACK); the
// target is a closed port on 127.0.0.1, so the delivery is tried and refused.

test("the Integrations page filters, opens the connect dialog, refuses a coming-soon integration and shows a REST hook", async ({
  page,
}) => {
  test.setTimeout(180_000);
  const server = await ownServer("integrations");
  try {
    await server.start({ WEBHOOK_ALLOW_LOOPBACK: "1" });
    await signIn(page, DEMO.email, DEMO.password, { base: server.base, to: "/integrations" });
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Integrations");
    const cards = page.getByRole("list", { name: "Integrations" }).getByRole("article");
    await expect(cards).toHaveCount(10);

    // The category filter: links, so it works without JavaScript.
    await page.getByRole("navigation", { name: "Categories" }).getByRole("link", { name: "CRM" }).click();
    await expect(page).toHaveURL(/\/integrations\?category=CRM$/);
    await expect(cards.getByRole("heading")).toHaveText(["HubSpot", "Salesforce", "Zoho CRM"]);

    // The demo's HubSpot is connected (its seeded portal): its card says so; its dialog, addressed by
    // the URL, offers to connect again (HubSpot's install page: integrations-hubspot.spec.ts).
    const hubspot = cards.filter({ has: page.getByRole("heading", { name: "HubSpot" }) });
    await expect(hubspot).toContainText("nyota-sacco.hubspot.test (Hub ID 14500009)");
    await page.getByRole("link", { name: "Details of HubSpot" }).click();
    await expect(page).toHaveURL(/category=CRM&dialog=connect-hubspot$/);
    const dialog = page.getByRole("dialog", { name: "Connect HubSpot" });
    await expect(dialog).toBeVisible();
    await expect(dialog).toContainText("Keep WhatsApp contacts and conversations in your HubSpot CRM.");
    await expect(dialog.getByRole("button", { name: "Connect HubSpot again" })).toBeVisible();
    await dialog.getByRole("link", { name: "Close" }).click();
    await expect(page.getByRole("dialog")).toHaveCount(0);
    await expect(page).toHaveURL(/\/integrations\?category=CRM$/);

    // Coming soon: no button on its card, its dialog says so, and the server refuses a post for it.
    const salesforce = cards.filter({ has: page.getByRole("heading", { name: "Salesforce" }) });
    await expect(salesforce).toContainText("Coming soon");
    await expect(salesforce.getByRole("link")).toHaveCount(0);
    await page.goto(`${server.base}/integrations?dialog=connect-salesforce`);
    await expect(page.getByRole("dialog", { name: "Connect Salesforce" })).toContainText(
      "Salesforce is coming soon: it cannot be connected yet.",
    );
    await expect(page.getByRole("dialog").getByRole("button")).toHaveCount(0);
    const refused = await page.request.post(`${server.base}/integrations`, {
      form: { intent: "connect", integration: "salesforce" },
      headers: { origin: server.base },
    });
    expect(refused.status()).toBe(409);

    // A REST hook, subscribed through the API with the organisation's key (as Zapier does).
    const key = ((await (await page.request.get(`${server.base}/api/developer/api-key`)).json()) as { key: string }).key;
    const api = (method: string, path: string, body: unknown) =>
      page.request.fetch(`${server.base}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        data: JSON.stringify(body),
      });
    const closed = await freePort();
    const subscribed = await api("POST", "/api/v1/hooks", { targetUrl: `http://127.0.0.1:${closed}/zap`, event: "contact.created" });
    expect(subscribed.status()).toBe(201);
    expect(((await subscribed.json()) as { secret: string }).secret).toMatch(/^whsec_/);
    // A new contact is an event for it: delivered by webhooks out, refused by the closed port.
    expect((await api("POST", "/api/v1/contacts", { name: "Achieng Odhiambo", phone: "0711 222 333" })).ok()).toBe(true);

    await page.goto(`${server.base}/integrations?category=Development`);
    const hooks = cards.filter({ has: page.getByRole("heading", { name: "REST hooks" }) });
    await expect(hooks).toContainText("Connected");
    await expect(hooks.getByRole("definition").first()).toHaveText("1");
    await expect(async () => {
      await page.reload();
      await expect(hooks).toContainText("(HTTP no answer)", { timeout: 1000 });
    }).toPass({ timeout: 30_000 });
    await expect(hooks.getByRole("link", { name: "API key on the Developers page" })).toHaveAttribute("href", "/developers");

    // Disconnecting asks first, then removes the subscriptions.
    await hooks.getByRole("link", { name: "Disconnect REST hooks" }).click();
    await expect(page.getByRole("alertdialog", { name: "Disconnect REST hooks?" })).toBeVisible();
    await page.getByRole("alertdialog").getByRole("button", { name: "Disconnect" }).click();
    await expect(page.getByRole("status").filter({ hasText: "REST hooks removed: 1." })).toBeVisible();
    await expect(cards.filter({ has: page.getByRole("heading", { name: "REST hooks" }) })).toContainText("Available");
    const listed = await page.request.get(`${server.base}/api/v1/hooks`, { headers: { authorization: `Bearer ${key}` } });
    expect(await listed.json()).toEqual({ data: [], hasMore: false });
  } finally {
    await page.goto("about:blank");
    await server.dispose();
  }
});

test("the Integrations page and its dialogs have no serious accessibility violations", async ({ page, request, javaScriptEnabled }) => {
  test.skip(!javaScriptEnabled, "axe runs in the page");
  const user = await signUpAndVerifyViaApi(request, { businessName: "Mwangaza Solar Ltd" });
  await signIn(page, user.email, user.password);
  for (const path of [
    "/integrations",
    "/integrations?category=E-commerce&dialog=connect-shopify",
    "/integrations?dialog=connect-rest-hooks",
    "/integrations?dialog=connect-zendesk",
  ])
    expect(await seriousViolations(page, path), path).toEqual([]);
});
