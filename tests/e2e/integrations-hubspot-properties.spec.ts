import { test, expect } from "./fixtures";
import { DEMO, signIn } from "./helpers";
import { ownServer } from "./own-server";

// Issue 73, decision 107: a HubSpot connection without the permission to create properties (as one
// made before Jumbe asked for it): the settings page lists the missing properties and what to do, in
// English, Swahili and French, at a phone's width.

const HUB = 14500002;
const OLD_SCOPES = "oauth crm.objects.contacts.read crm.objects.contacts.write crm.lists.read";

test.use({ viewport: { width: 360, height: 740 } });

test("a portal that refused Jumbe's properties: the settings page says which are missing and what to do (en, sw, fr, 360 px)", async ({
  page,
}) => {
  test.setTimeout(300_000);
  const server = await ownServer("hubspot-properties");
  try {
    await server.start();
    await signIn(page, DEMO.email, DEMO.password, { base: server.base, to: "/integrations?category=CRM" });
    const card = page.getByRole("article").filter({ has: page.getByRole("heading", { name: "HubSpot" }) });
    await card.getByRole("link", { name: "Disconnect HubSpot" }).click();
    await page.getByRole("alertdialog").getByRole("button", { name: "Disconnect" }).click();
    await expect(card).toContainText("Available");

    // Connect, with the consent's scopes those of an older install (no crm.schemas.contacts.write).
    await card.getByRole("link", { name: "Connect HubSpot" }).click();
    await page.getByRole("dialog", { name: "Connect HubSpot" }).getByRole("button", { name: "Continue to HubSpot" }).click();
    await expect(page.getByRole("heading", { name: "Choose an account" })).toBeVisible();
    await page.locator('input[name="scope"]').evaluate((input, scopes) => ((input as HTMLInputElement).value = scopes), OLD_SCOPES);
    await page.getByRole("radio", { name: /Pwani Tours CRM/ }).check();
    await page.getByRole("button", { name: "Connect app" }).click();
    await expect(page).toHaveURL(/\/integrations$/);

    // The first sync finds the properties missing: Sync now rather than the recurring sync (up to 30 s
    // away). The settings page is asked for over HTTP until it names them (no page rendered per try).
    await page.goto(`${server.base}/integrations/hubspot`);
    // While the recurring sync runs, Sync now says one is under way: asked again until one starts.
    await expect(async () => {
      await page.getByRole("button", { name: "Sync now" }).click();
      await expect(page.getByRole("status").filter({ hasText: "The sync has started" })).toBeVisible({ timeout: 2000 });
    }).toPass({ timeout: 60_000 });
    await expect
      .poll(async () => (await page.request.get(`${server.base}/integrations/hubspot`)).text(), { timeout: 120_000 })
      .toContain('data-testid="hubspot-missing-properties"');
    const notice = page.getByRole("alert").filter({ has: page.getByTestId("hubspot-missing-properties") });
    await page.goto(`${server.base}/integrations/hubspot`);
    await expect(notice).toBeVisible();
    await expect(notice).toContainText("HubSpot properties Jumbe needs are missing");
    await expect(notice).toContainText("jumbe_contact_id (contact property)");
    await expect(notice).toContainText("jumbe_whatsapp_opt_out (contact property)");
    await expect(notice).toContainText("jumbe_message_id (communication property)");
    await expect(notice).toContainText("connect it again, and approve the permission to manage contact properties");

    for (const [lng, words] of [
      ["sw", "Sifa za HubSpot ambazo Jumbe inahitaji hazipo"],
      ["fr", "Des propriétés HubSpot dont Jumbe a besoin manquent"],
      ["en", "HubSpot properties Jumbe needs are missing"],
    ] as const) {
      await page.goto(`${server.base}/integrations/hubspot?lng=${lng}`);
      await expect(notice).toContainText(words);
      await expect(notice).toContainText("jumbe_message_id");
      expect(await page.evaluate(() => document.documentElement.scrollWidth), lng).toBeLessThanOrEqual(360);
    }
    // Nothing was logged to HubSpot while the properties are missing.
    const logged = await page.request.get(`${server.base}/sandbox/hubspot/control/portals/${HUB}/communications`);
    expect(((await logged.json()) as { communications: unknown[] }).communications).toEqual([]);
  } finally {
    await page.goto("about:blank");
    await server.dispose();
  }
});
