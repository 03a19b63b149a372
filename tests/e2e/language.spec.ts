import { test, expect } from "./fixtures";
import { signIn, signUpAndVerifyViaApi, userMenu } from "./helpers";

// Issue 43, decision 071: a person chooses the language with the switcher in the public footer or the
// user menu; a plain form, so the same with JavaScript on and off.

const langOf = (page: import("@playwright/test").Page) => page.locator("html").getAttribute("lang");

test("the public footer's switcher writes the site in Swahili, then French, and the choice stays", async ({ page }) => {
  await page.goto("/");
  expect(await langOf(page)).toBe("en");
  const footer = page.getByRole("contentinfo");
  await footer.getByLabel("Display language").selectOption("sw");
  await footer.getByRole("button", { name: "Change" }).click();
  await expect(page).toHaveURL(/\/$/);
  expect(await langOf(page)).toBe("sw");
  await expect(footer.getByLabel("Lugha ya kuonyesha")).toHaveValue("sw");
  // Another page keeps it: the cookie, not the address, carries the choice.
  await page.goto("/login");
  expect(await langOf(page)).toBe("sw");
  await page.goto("/");
  await footer.getByLabel("Lugha ya kuonyesha").selectOption("fr");
  await footer.getByRole("button", { name: "Badilisha" }).click();
  await expect(page).toHaveURL(/\/$/);
  expect(await langOf(page)).toBe("fr");
  await expect(footer.getByLabel("Langue d'affichage")).toHaveValue("fr");
});

test("a member chooses French from the user menu and stays on the page", async ({ page, request }) => {
  const user = await signUpAndVerifyViaApi(request);
  await signIn(page, user.email, user.password, { to: "/dashboard" });
  expect(await langOf(page)).toBe("en");
  await userMenu(page).click();
  const menu = page.locator("details[open]").filter({ has: page.getByLabel("Display language") });
  await menu.getByLabel("Display language").selectOption("fr");
  await menu.getByRole("button", { name: "Change" }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
  expect(await langOf(page)).toBe("fr");
});
