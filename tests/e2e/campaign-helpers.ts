import { randomBytes, randomInt } from "node:crypto";
import type { APIRequestContext, Page } from "@playwright/test";
import { expect } from "./fixtures";
import { BASE_URL, field, signIn, signUpAndVerifyViaApi } from "./helpers";
import { connectWhatsApp, waitForTemplateStatus } from "./template-helpers";

// The campaign browser tests' shared steps: a business ready to send, and the New Campaign form.

export const number = () => `07${randomInt(10, 99)} ${randomInt(100, 999)} ${randomInt(100, 999)}`;

/**
 * A connected number (its WABA's id) and an approved utility template with two placeholders, made
 * over HTTP: for tests whose subject comes after (campaigns, the inbox, integrations). The editor that
 * makes the same template with and without JavaScript is the subject of makeApprovedTemplate's callers.
 */
export async function readyBusiness(page: Page, request: APIRequestContext) {
  const user = await signUpAndVerifyViaApi(request);
  await signIn(page, user.email, user.password);
  const wabaId = await connectWhatsApp(page, `Maji Nakuru ${randomBytes(2).toString("hex")}`);
  const name = `water_notice_${randomBytes(3).toString("hex")}`;
  // What the editor posts for "Submit for approval" (app/lib/template-form.ts reads these fields).
  const form = new URLSearchParams({
    intent: "submit",
    name,
    category: "UTILITY",
    language: "en",
    headerFormat: "NONE",
    body: WATER_NOTICE,
  });
  for (const example of ["Amina", "Tuesday"]) form.append("bodyExamples", example);
  const saved = await page.request.post("/templates/new", {
    data: form.toString(),
    headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: BASE_URL },
    maxRedirects: 0,
  });
  expect(saved.status(), await saved.text()).toBe(302);
  expect(saved.headers()["location"]).toMatch(/\/templates$/);
  expect((await request.post("/sandbox/meta/control/templates/review", { data: { wabaId } })).ok()).toBe(true);
  await waitForTemplateStatus(page, name, "approved");
  return { user, template: name, wabaId };
}

const WATER_NOTICE = "Habari {{1}}, water will be off in your area on {{2}}. Store enough water.";

/**
 * Writes a utility template with two placeholders ("Habari {{1}}, water will be off in your area on
 * {{2}}…") in the editor and has the Meta sandbox's reviewer approve it now.
 */
export async function makeApprovedTemplate(
  page: Page,
  request: APIRequestContext,
  javaScriptEnabled: boolean,
  { name, wabaId }: { name: string; wabaId: string },
) {
  await page.goto("/templates/new");
  await field(page, "Template name").fill(name);
  await page.getByLabel("Type", { exact: true }).selectOption({ label: "Transactional (Utility)" });
  await page.getByLabel("Language", { exact: true }).selectOption({ label: "English" });
  await field(page, "Body").fill(WATER_NOTICE);
  if (!javaScriptEnabled) await page.getByRole("button", { name: "Update example fields" }).click();
  await field(page, "Example for {{1}}").fill("Amina");
  await field(page, "Example for {{2}}").fill("Tuesday");
  await page.getByRole("button", { name: "Submit for approval" }).click();
  await expect(page).toHaveURL(/\/templates$/);
  expect((await request.post("/sandbox/meta/control/templates/review", { data: { wabaId } })).ok()).toBe(true);
  await waitForTemplateStatus(page, name, "approved");
}

/** Fills the New Campaign (or Quick Broadcast) form up to Review. */
export async function fillCampaign(
  page: Page,
  javaScriptEnabled: boolean,
  values: {
    name?: string;
    template: string;
    phones: string[];
    schedule?: { date: string; time: string };
    file?: { name: string; text: string };
    /** The SMS fallback's own text (the card shows with SMS connected). */
    smsFallback?: string;
  },
) {
  // A page without React (decision 067): its script hides the no-script button when it takes over the
  // template's choice (redrawing its placeholders from the server); a choice made before would not show them.
  if (javaScriptEnabled) await expect(page.getByRole("button", { name: "Show its placeholders" })).toHaveCount(0);
  if (values.name !== undefined) await field(page, "Campaign name").fill(values.name);
  const option = page.locator('select[name="template"] option', { hasText: values.template });
  // With JavaScript the placeholders come in place, the page itself is not loaded again.
  if (javaScriptEnabled) await page.evaluate(() => ((window as unknown as { samePage?: boolean }).samePage = true));
  await page.getByLabel("Approved template").selectOption((await option.getAttribute("value"))!);
  if (!javaScriptEnabled) await page.getByRole("button", { name: "Show its placeholders" }).click();
  await expect(page.getByLabel("{{1}}")).toBeVisible();
  if (javaScriptEnabled) expect(await page.evaluate(() => (window as unknown as { samePage?: boolean }).samePage)).toBe(true);
  await page.getByLabel("{{1}}").selectOption({ label: "First name" });
  await page.locator('input[name="p1_fallback"]').fill("Mteja");
  await page.getByLabel("{{2}}").selectOption({ label: "A fixed value" });
  await page.locator('input[name="p2_value"]').fill("Tuesday");
  await field(page, "Phone numbers").fill(values.phones.join("\n"));
  if (values.schedule) {
    await page.getByLabel("Schedule").check();
    await field(page, "Date").fill(values.schedule.date);
    await field(page, "Time").fill(values.schedule.time);
  }
  if (values.file)
    await page
      .getByLabel("Or upload a list")
      .setInputFiles({ name: values.file.name, mimeType: "text/csv", buffer: Buffer.from(values.file.text) });
  if (values.smsFallback !== undefined) {
    await page.getByRole("radio", { name: "Send this SMS" }).check();
    await page.getByLabel("SMS text").fill(values.smsFallback);
  }
  await page.getByRole("button", { name: "Review" }).click();
}
