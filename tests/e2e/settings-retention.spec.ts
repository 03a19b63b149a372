import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { test, expect } from "./fixtures";
import { BASE_URL, field, invitedAgent, signIn, signUpAndVerifyViaApi } from "./helpers";

// Issue 78, Settings → Data retention: how long an organisation's message bodies, media and logs are
// kept, within the platform's limits (app/lib/retention-limits.ts), chosen by its owners and admins.
// A plain form, with and without JavaScript; at a small phone's width in each of the product's languages.

const tabs = (page: Page) => page.getByRole("navigation", { name: "Settings sections" });
const save = (page: Page) => page.getByRole("button", { name: "Save retention" }).click();

/** The three fields' values, as the page shows them. */
async function shown(page: Page) {
  return {
    messages: await field(page, "Message bodies (days)").inputValue(),
    media: await field(page, "Media customers sent (days)").inputValue(),
    logs: await field(page, "Logs (days)").inputValue(),
  };
}

/** The platform's defaults, as a new organisation has them. */
const DEFAULTS = { messages: "730", media: "90", logs: "90" };

test("an owner shortens how long messages and logs are kept: saved, confirmed, and there after a reload", async ({
  page,
  request,
  javaScriptEnabled,
}) => {
  const owner = await signUpAndVerifyViaApi(request);
  await signIn(page, owner.email, owner.password, { to: "/settings" });
  await tabs(page).getByRole("link", { name: "Data retention" }).click();
  await expect(page).toHaveURL(/\/settings\/retention$/);
  await expect(page.getByRole("heading", { name: "Data retention", level: 2 })).toBeVisible();
  expect(await shown(page)).toEqual(DEFAULTS);
  // Each field says its limits.
  await expect(page.getByText("From 30 to 365 days; 90 unless you choose.")).toBeVisible();
  if (javaScriptEnabled) {
    const { violations } = await new AxeBuilder({ page }).analyze();
    expect(violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id)).toEqual([]);
  }

  await field(page, "Message bodies (days)").fill("365");
  await field(page, "Logs (days)").fill("45");
  await save(page);
  await expect(page.getByText("Data retention saved.")).toBeVisible();
  await page.reload();
  expect(await shown(page)).toEqual({ messages: "365", media: "90", logs: "45" });

  // Saving the same values again changes nothing, and says so.
  await save(page);
  await expect(page.getByText("Nothing changed.")).toBeVisible();
});

test("a value outside the platform's limits is refused at its field, and nothing is saved", async ({ page, request }) => {
  const owner = await signUpAndVerifyViaApi(request);
  await signIn(page, owner.email, owner.password, { to: "/settings/retention" });

  // Logs are kept a year at most.
  await field(page, "Message bodies (days)").fill("365");
  await field(page, "Logs (days)").fill("400");
  await save(page);
  await expect(page.getByText("Enter a whole number of days from 30 to 365.")).toBeVisible();
  await expect(field(page, "Logs (days)")).toHaveAttribute("aria-invalid", "true");
  await expect(page.getByText("Data retention saved.")).toHaveCount(0);

  // Message bodies a month at least.
  await field(page, "Logs (days)").fill("45");
  await field(page, "Message bodies (days)").fill("10");
  await save(page);
  await expect(page.getByText("Enter a whole number of days from 30 to 2555.")).toBeVisible();
  await expect(field(page, "Message bodies (days)")).toHaveAttribute("aria-invalid", "true");

  // Media never outlive the bodies they came with.
  await field(page, "Message bodies (days)").fill("100");
  await field(page, "Media customers sent (days)").fill("200");
  await save(page);
  await expect(page.getByText("Media cannot be kept longer than message bodies.")).toBeVisible();
  await expect(field(page, "Media customers sent (days)")).toHaveAttribute("aria-invalid", "true");

  await page.goto("/settings/retention");
  expect(await shown(page)).toEqual(DEFAULTS);
});

test("an agent can neither open the retention settings nor post a change to them", async ({
  page,
  request,
  browser,
  javaScriptEnabled,
}) => {
  test.setTimeout(90_000);
  const owner = await signUpAndVerifyViaApi(request);
  await signIn(page, owner.email, owner.password);
  const { context, agent } = await invitedAgent(page, request, browser, javaScriptEnabled);
  try {
    await agent.goto("/settings/retention");
    await expect(agent).toHaveURL(/\/unauthorized$/);
    await expect(agent.getByRole("button", { name: "Save retention" })).toHaveCount(0);
    // The form's post, as a browser would send it with the agent's session: the layout's permission
    // check sends it to /unauthorized before the action runs (which would refuse it too: 403).
    const posted = await agent.request.post("/settings/retention", {
      form: { messageDays: "30", mediaDays: "30", logDays: "30" },
      headers: { Origin: BASE_URL },
      maxRedirects: 0,
    });
    expect(posted.status()).toBe(302);
    expect(posted.headers()["location"]).toBe("/unauthorized");
  } finally {
    await context.close();
  }
  await page.goto("/settings/retention");
  expect(await shown(page)).toEqual(DEFAULTS);
});

test("the page fits a 360 px phone in English, Swahili and French, with a field's error shown", async ({ page, request }) => {
  const owner = await signUpAndVerifyViaApi(request);
  await signIn(page, owner.email, owner.password);
  await page.setViewportSize({ width: 360, height: 740 });
  const words = {
    en: { title: "Data retention", save: "Save retention" },
    sw: { title: "Muda wa kuhifadhi data", save: "Hifadhi muda" },
    fr: { title: "Conservation des données", save: "Enregistrer la conservation" },
  } as const;
  for (const [locale, text] of Object.entries(words)) {
    const chosen = await page.request.post("/language", {
      form: { locale, redirectTo: "/settings/retention" },
      headers: { Origin: BASE_URL },
      maxRedirects: 0,
    });
    expect(chosen.status(), locale).toBe(302);
    await page.goto("/settings/retention");
    await expect(page.locator("html")).toHaveAttribute("lang", locale);
    await expect(page.getByRole("heading", { level: 2, name: text.title })).toBeVisible();
    expect(await page.evaluate(() => document.scrollingElement!.scrollWidth), `${locale}: the page at 360 px`).toBeLessThanOrEqual(360);
    // With a refusal's words under a field, too.
    await page.locator('input[name="logDays"]').fill("400");
    await page.getByRole("button", { name: text.save }).click();
    await expect(page.locator('input[name="logDays"]')).toHaveAttribute("aria-invalid", "true");
    expect(await page.evaluate(() => document.scrollingElement!.scrollWidth), `${locale}: a field's error at 360 px`).toBeLessThanOrEqual(
      360,
    );
  }
});
