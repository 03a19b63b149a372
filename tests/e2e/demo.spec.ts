import { randomBytes } from "node:crypto";
import type { Page } from "@playwright/test";
import { test, expect } from "./fixtures";
import { DEMO, openSignupDialog, signIn, signUpAndVerifyViaApi } from "./helpers";

// Issue 39, "a demo that makes sense on first sight", with scripts on and off: the seeded demo business
// is connected to the Meta sandbox's demo number, its templates are approved, and a customer who wrote
// a few minutes before the start is answered from /chat through the sandbox, without an error.

const thread = (page: Page) => page.getByTestId("thread");
const composer = (page: Page) => page.getByRole("form", { name: "Reply" });

test("the demo business is connected, its templates approved, and an open conversation is answered", async ({
  page,
  javaScriptEnabled,
}) => {
  await signIn(page, DEMO.email, DEMO.password);

  await page.goto("/whatsapp");
  await expect(page.getByTestId("signup-status")).toHaveText("Connected");
  const accounts = page.getByRole("region", { name: "Connected accounts" });
  await expect(accounts).toContainText("+254711000001");
  await expect(page.getByText("Not connected")).toHaveCount(0);

  // The four message templates and the payment template in three languages (decision 140).
  await page.goto("/templates");
  await expect(page.getByText("7 templates: 7 approved, 0 pending, 0 rejected, 0 drafts.")).toBeVisible();

  // Omondi Otieno wrote ten minutes before the demo started: his window is open.
  await page.goto("/chat");
  const omondi = page.getByRole("region", { name: "Conversations" }).locator("a[data-conversation]").filter({ hasText: "Omondi Otieno" });
  await omondi.click();
  await expect(page).toHaveURL(/\/chat\/[0-9a-f-]{36}$/);
  await expect(page.getByTestId("window-state")).toHaveText(/^Open, /);
  const reply = `Pole sana Omondi, afisa wa mikopo atakupigia sasa hivi (${randomBytes(2).toString("hex")}).`;
  await page.getByLabel("Message", { exact: true }).fill(reply);
  await composer(page).getByRole("button", { name: "Send", exact: true }).click();
  const bubble = thread(page).locator("li[data-message]").filter({ hasText: reply });
  await expect(bubble).toBeVisible();
  await expect(page.getByRole("alert")).toHaveCount(0);
  // The sandbox took it from the demo number and reports it delivered (then read): never failed.
  await expect(async () => {
    if (!javaScriptEnabled) await page.reload();
    await expect(bubble).toHaveAttribute("data-status", /^(delivered|read)$/, { timeout: 1000 });
  }).toPass({ timeout: 30_000 });
});

test("a new business's signup dialog offers a fresh number of its own, named as the business, and nobody else's", async ({
  page,
  request,
  javaScriptEnabled,
}) => {
  const user = await signUpAndVerifyViaApi(request);
  await signIn(page, user.email, user.password, { to: "/whatsapp" });
  const dialog = await openSignupDialog(page, javaScriptEnabled);
  await expect(dialog.getByLabel("Create a new test business")).toBeChecked();
  await expect(dialog.getByLabel("Business name")).toHaveValue(user.businessName);
  // Neither the demo's number nor any other business's is offered.
  await expect(dialog.locator('input[name="asset"]')).toHaveCount(1);
  await expect(dialog.getByText("+254 711 000 001")).toHaveCount(0);
  await expect(dialog.getByText("Nyota")).toHaveCount(0);
  await dialog.getByRole("button", { name: "Cancel" }).click();
});
