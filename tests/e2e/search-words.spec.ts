import type { Locator, Page } from "@playwright/test";
import { test, expect } from "./fixtures";
import { BASE_URL, signIn, signUpAndVerifyViaApi } from "./helpers";

// Issue 74: the search found pages by their English names only, and only on Enter. A page is found by
// its name in any of the three languages (English always) and named in the page's language; with
// JavaScript the box lists what it finds as one types, without it Enter shows the same on /search.

const CASES = [
  // A French name typed on a Swahili page, a Swahili name on a French one (without its accents), an English page found by its French name.
  { lng: "sw", typed: "Modèles", found: "Violezo", pages: "Kurasa", to: /\/templates$/ },
  { lng: "fr", typed: "takwimu", found: "Statistiques avancées", pages: "Pages", to: /\/analytics$/ },
  { lng: "en", typed: "facturation", found: "Billing & Subscription", pages: "Pages", to: /\/billing$/ },
] as const;

async function signedInIn(page: Page, request: Parameters<typeof signUpAndVerifyViaApi>[0], lng: string, to: string) {
  const user = await signUpAndVerifyViaApi(request);
  await signIn(page, user.email, user.password, { to });
  // The user menu's language switcher: kept on the account (which wins over the cookie), then the page again.
  const chosen = await page.request.post("/language", {
    form: { locale: lng, redirectTo: to },
    headers: { Origin: BASE_URL },
    maxRedirects: 0,
  });
  expect(chosen.status()).toBe(302);
  await page.goto(to);
  await expect(page.locator("html")).toHaveAttribute("lang", lng);
}

/**
 * Types into a box that suggests, once its script has wired it (on a document at load; on a hydrated
 * page when the box is first focused, which needs React there first), and expects the first suggestion.
 */
async function expectSuggested(page: Page, form: Locator, box: Locator, typed: string, found: string) {
  await expect(async () => {
    await box.blur();
    await box.focus();
    await expect(form).toHaveAttribute("data-enhanced", "true", { timeout: 1_000 });
  }).toPass();
  await box.pressSequentially(typed);
  const list = form.getByTestId("search-suggestions");
  await expect(list.getByRole("link").first()).toContainText(found);
  // Nothing was submitted: the suggestions came as the words were typed.
  expect(new URL(page.url()).searchParams.has("q")).toBe(false);
  return list;
}

for (const { lng, typed, found, pages, to } of CASES) {
  test(`on /search in ${lng}, "${typed}" finds ${found}`, async ({ page, request, javaScriptEnabled }) => {
    await signedInIn(page, request, lng, "/search");
    const box = page.locator("#search-page-q");
    const form = page.locator("form", { has: box });
    if (javaScriptEnabled) {
      const list = await expectSuggested(page, form, box, typed, found);
      // The down arrow reaches the suggestion; Enter opens it.
      await box.press("ArrowDown");
      await expect(list.getByRole("link").first()).toBeFocused();
      await page.keyboard.press("Enter");
      await expect(page).toHaveURL(to);
      return;
    }
    // Without JavaScript nothing is suggested; Enter opens the results, the page named in the page's language.
    await expect(form.getByTestId("search-suggestions")).toBeHidden();
    await box.fill(typed);
    await box.press("Enter");
    await expect(page).toHaveURL(/\/search\?q=/);
    const link = page.getByRole("region", { name: pages }).getByRole("link").first();
    await expect(link).toHaveText(found);
    await link.click();
    await expect(page).toHaveURL(to);
  });
}

test("the top bar's box suggests on a page sent without React too, and Enter still searches", async ({
  page,
  request,
  javaScriptEnabled,
}) => {
  // /activity is a document (decision 066): its box is wired by the page's own script.
  await signedInIn(page, request, "fr", "/activity");
  const box = page.locator("#topbar-search");
  const form = page.locator("form", { has: box });
  if (javaScriptEnabled) {
    const list = await expectSuggested(page, form, box, "violezo", "Modèles");
    await expect(list.getByRole("link").first()).toHaveAttribute("href", "/templates");
    // Escape closes the list; the box keeps what was typed.
    await box.press("Escape");
    await expect(list).toBeHidden();
    await expect(box).toHaveValue("violezo");
  } else {
    await expect(form.getByTestId("search-suggestions")).toBeHidden();
    await box.fill("violezo");
  }
  await box.press("Enter");
  await expect(page).toHaveURL(/\/search\?q=violezo$/);
  await expect(page.getByRole("region", { name: "Pages" }).getByRole("link").first()).toHaveText("Modèles");
});
