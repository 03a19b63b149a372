import { randomBytes, randomInt } from "node:crypto";
import { test, expect } from "./fixtures";
import { field, signIn, signUpAndVerifyViaApi } from "./helpers";
import { connectWhatsApp } from "./template-helpers";

// Issue 74, "Integrations a shop can trust", in the browser with JavaScript on and off (the two
// projects): a new business's HubSpot and Google consent pages offer its own test accounts only (the
// demo's and other tenants' never), erasing a contact removes the copy Jumbe put in HubSpot, saying
// so before and after, and Shopify's settings refuse a template a store event cannot fill, in words.

test("consent pages offer a business its own accounts; erasing a contact reaches HubSpot and says so", async ({ page, request }) => {
  test.setTimeout(240_000);
  const user = await signUpAndVerifyViaApi(request);
  await signIn(page, user.email, user.password, { to: "/messaging/contacts" });

  // A contact to erase later.
  await page.getByRole("link", { name: "Add contact" }).first().click();
  const dialog = page.getByRole("dialog", { name: "Add contact" });
  await field(dialog, "Name").fill("Halima Said");
  await field(dialog, "Phone").fill(`0712 ${randomInt(100_000, 999_999)}`);
  await dialog.getByRole("button", { name: "Add contact" }).click();
  await expect(page.getByRole("heading", { name: /Halima Said/ })).toBeVisible();
  const contactUrl = page.url();
  const contactId = /\/messaging\/contacts\/([0-9a-f-]{36})/.exec(contactUrl)![1]!;

  // Google's consent page: not the demo's account; a fresh one of the business's own offered.
  await page.goto("/integrations?dialog=connect-google-sheets");
  await page.getByRole("dialog", { name: "Connect Google Sheets" }).getByRole("button", { name: "Continue to Google Sheets" }).click();
  await expect(page.getByRole("heading", { name: "Choose an account" })).toBeVisible();
  await expect(page.getByRole("main")).not.toContainText("data@nyotasacco.co.ke");
  await expect(page.getByRole("radio", { name: /Use another account/ })).toBeVisible();

  // HubSpot's install page: not the demo's portal; the business makes a portal of its own.
  await page.goto("/integrations?dialog=connect-hubspot");
  await page.getByRole("dialog", { name: "Connect HubSpot" }).getByRole("button", { name: "Continue to HubSpot" }).click();
  await expect(page.getByRole("heading", { name: "Choose an account" })).toBeVisible();
  await expect(page.getByRole("main")).not.toContainText("Nyota Sacco CRM");
  await page.getByRole("radio", { name: /Create a new test account/ }).check();
  await page.getByRole("button", { name: "Connect app" }).click();
  await expect(page).toHaveURL(/\/integrations$/);
  const connected = page.getByRole("status").filter({ hasText: /HubSpot is connected: portal-\d+\.hubspot\.test/ });
  await expect(connected).toBeVisible();
  const hubId = /Hub ID (\d+)/.exec((await connected.textContent()) ?? "")![1]!;

  // The contact reaches the portal (the sync runs every half minute; Sync now starts one).
  await page.goto("/integrations/hubspot");
  await page.getByRole("button", { name: "Sync now" }).click();
  const inHubspot = async () =>
    (
      (await (await request.get(`/sandbox/hubspot/control/portals/${hubId}/contacts`)).json()) as {
        contacts: { properties: Record<string, string | null> }[];
      }
    ).contacts.filter((c) => c.properties.jumbe_contact_id === contactId);
  await expect(async () => expect(await inHubspot()).toHaveLength(1)).toPass({ timeout: 150_000 });

  // Erase: the confirmation names HubSpot and what happens there; the toast says it is under way.
  await page.goto(contactUrl);
  await page.getByRole("link", { name: "Erase", exact: true }).click();
  const confirm = page.getByRole("alertdialog");
  await expect(confirm).toContainText(
    `HubSpot, portal-${hubId}.hubspot.test (Hub ID ${hubId}): the contact and the WhatsApp messages Jumbe logged there are deleted.`,
  );
  await confirm.getByRole("button", { name: "Yes, erase everything" }).click();
  await expect(page).toHaveURL(/\/messaging\/contacts$/);
  await expect(page.getByRole("status").filter({ hasText: "Jumbe is removing their copies in HubSpot" })).toBeVisible();

  // Gone from HubSpot, and the activity log says so.
  await expect(async () => expect(await inHubspot()).toHaveLength(0)).toPass({ timeout: 60_000 });
  await page.goto("/activity");
  await expect(page.getByText("Erasure sent to connected tools").first()).toBeVisible();
});

test("Shopify's settings refuse a template with an image header and a link variable, in words", async ({ page, request }) => {
  test.setTimeout(150_000);
  const user = await signUpAndVerifyViaApi(request);
  await signIn(page, user.email, user.password);
  const tag = randomBytes(3).toString("hex");
  const wabaId = await connectWhatsApp(page, `Kitenge Corner ${tag}`);
  const name = `order_photo_${tag}`;
  // Made in Meta's Business Manager (approved there), brought in by Sync from Meta.
  const made = await request.post("/sandbox/meta/control/templates", {
    data: {
      wabaId,
      name,
      language: "en",
      category: "UTILITY",
      components: [
        { type: "HEADER", format: "IMAGE", example: { header_handle: ["4::aW1hZ2UvanBlZw==:poster"] } },
        { type: "BODY", text: "Asante {{1}}! Order {{2}} is in.", example: { body_text: [["Amina", "#1001"]] } },
        { type: "BUTTONS", buttons: [{ type: "URL", text: "Track", url: "https://duka.example/track/{{1}}", example: ["1001"] }] },
      ],
    },
  });
  expect(made.status(), await made.text()).toBe(201);
  await page.goto("/templates");
  await page.getByRole("button", { name: "Sync from Meta" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Synced from Meta: 1 imported" })).toBeVisible();

  const shop = `kitenge-${tag}.myshopify.com`;
  await page.goto("/integrations?dialog=connect-shopify");
  const dialog = page.getByRole("dialog", { name: "Connect Shopify" });
  await field(dialog, "Shop address").fill(shop);
  await dialog.getByRole("button", { name: "Continue to Shopify" }).click();
  await page.getByRole("button", { name: "Install app" }).click();
  await expect(page.getByText(`Shopify is connected: ${shop}.`)).toBeVisible();

  await page.goto("/integrations/shopify");
  const orders = page.locator('section[data-event="order_created"]');
  await orders.getByLabel("Send this message").check();
  await orders.getByLabel("Template", { exact: true }).selectOption({ label: `${name} (en): cannot be used here` });
  await orders.getByRole("button", { name: "Save Order created" }).click();
  await expect(
    page.getByText("This template starts with an image, video or document header, and a store event has no file to put there.").first(),
  ).toBeVisible();
  await page.goto("/integrations/shopify");
  await expect(page.locator('section[data-event="order_created"]')).toContainText("Off");

  // An order with nothing mapped: skipped, and the row says why.
  const ordered = await request.post(`/sandbox/shopify/control/shops/${shop}/orders`, {
    data: {
      customer: { first_name: "Amina", phone: `0712${randomInt(100_000, 999_999)}` },
      line_items: [{ title: "Kanga", quantity: 1, price: "800.00" }],
    },
  });
  expect(ordered.status()).toBe(201);
  await expect(async () => {
    await page.reload();
    await expect(page.getByRole("region", { name: "Recent events" })).toContainText("no template chosen for this event", { timeout: 1000 });
  }).toPass({ timeout: 30_000 });
});
