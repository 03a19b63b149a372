import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { test, expect } from "./fixtures";
import { DEMO, field, signIn, signUpAndVerifyViaApi } from "./helpers";

// Issue 16: the organisation's saved answers at /chat/quick-replies (owners and admins). Every step
// is a form that works with and without JavaScript.

const answers = (page: Page) => page.getByRole("table", { name: "Saved answers" });

/** axe's serious and critical findings on the page as it is (axe runs as a script: with scripts on only; the markup is the same without). */
async function seriousViolations(page: Page, javaScriptEnabled: boolean) {
  if (!javaScriptEnabled) return [];
  const { violations } = await new AxeBuilder({ page }).analyze();
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

test("an owner adds, edits and deletes a saved answer; bad input is refused at the field", async ({ page, request, javaScriptEnabled }) => {
  const owner = await signUpAndVerifyViaApi(request);
  await signIn(page, owner.email, owner.password, { to: "/chat/quick-replies" });
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Saved answers");
  await expect(page.getByRole("link", { name: "Back to Chat" })).toHaveAttribute("href", "/chat");
  // The empty state says what saved answers are.
  await expect(answers(page)).toContainText("No saved answers yet. A saved answer is a reply your team sends often");
  expect(await seriousViolations(page, javaScriptEnabled)).toEqual([]);

  // Nothing typed, then a shortcut with a space: each refused in words, nothing stored.
  await page.getByRole("button", { name: "Add saved answer" }).click();
  await expect(page.getByText("Give the shortcut typed after /, e.g. hours.")).toBeVisible();
  await expect(page.getByText("Write the answer the shortcut inserts.")).toBeVisible();
  await field(page, "Shortcut").fill("opening hours");
  await field(page, "Answer").fill("We are open Monday to Friday, 8 am to 5 pm.");
  await page.getByRole("button", { name: "Add saved answer" }).click();
  await expect(page.getByText("A shortcut is letters, digits, - and _ only (no spaces), e.g. opening-hours.")).toBeVisible();
  await expect(answers(page)).toContainText("No saved answers yet.");

  await field(page, "Shortcut").fill("hours");
  await page.getByRole("button", { name: "Add saved answer" }).click();
  await expect(page.getByText("Saved answer /hours added.")).toBeVisible();
  await expect(answers(page).getByRole("row").filter({ hasText: "/hours" })).toContainText("We are open Monday to Friday, 8 am to 5 pm.");

  // The same shortcut in capitals is the same shortcut: refused at the field, the text kept.
  await field(page, "Shortcut").fill("HOURS");
  await field(page, "Answer").fill("Another text.");
  await page.getByRole("button", { name: "Add saved answer" }).click();
  await expect(page.getByText("A saved answer with this shortcut exists.")).toBeVisible();
  await expect(field(page, "Answer")).toHaveValue("Another text.");
  await expect(answers(page).getByRole("row")).toHaveCount(2);

  // Edit.
  await page.getByRole("link", { name: "Edit /hours" }).click();
  await expect(page.getByRole("heading", { name: "Edit /hours" })).toBeVisible();
  const edit = page.locator("form").filter({ has: page.getByRole("button", { name: "Save changes" }) });
  await expect(field(edit, "Shortcut")).toHaveValue("hours");
  await field(edit, "Answer").fill("");
  await edit.getByRole("button", { name: "Save changes" }).click();
  await expect(edit.getByText("Write the answer the shortcut inserts.")).toBeVisible();
  await field(edit, "Shortcut").fill("saa");
  await field(edit, "Answer").fill("Tuko wazi Jumatatu hadi Ijumaa, saa mbili asubuhi hadi saa kumi na moja jioni.");
  await edit.getByRole("button", { name: "Save changes" }).click();
  await expect(page.getByText("/saa saved.")).toBeVisible();
  await expect(page).toHaveURL(/\/chat\/quick-replies$/);
  await expect(answers(page)).toContainText("/saa");
  await expect(answers(page)).toContainText("Tuko wazi Jumatatu hadi Ijumaa");
  await expect(answers(page)).not.toContainText("/hours");

  // Delete, after an "are you sure?" that Cancel leaves untouched.
  await page.getByRole("link", { name: "Delete /saa" }).click();
  const confirm = page.getByRole("alertdialog", { name: "Delete /saa?" });
  await expect(confirm).toBeVisible();
  expect(await seriousViolations(page, javaScriptEnabled)).toEqual([]);
  await confirm.getByRole("link", { name: "Cancel" }).click();
  await expect(page.getByRole("alertdialog")).toHaveCount(0);
  await expect(answers(page)).toContainText("/saa");
  await page.getByRole("link", { name: "Delete /saa" }).click();
  await page.getByRole("alertdialog", { name: "Delete /saa?" }).getByRole("button", { name: "Delete saved answer" }).click();
  await expect(page.getByText("Saved answer /saa deleted.")).toBeVisible();
  await expect(answers(page)).toContainText("No saved answers yet.");
});

test("the demo Sacco's saved answers are listed by shortcut", async ({ page, javaScriptEnabled }) => {
  await signIn(page, DEMO.email, DEMO.password, { to: "/chat/quick-replies" });
  await expect(page).toHaveURL(/\/chat\/quick-replies$/);
  // A waiting assertion: the table may still be drawing when the URL has changed.
  await expect(answers(page).locator("tbody tr td:first-child")).toHaveText([
    "/delivery",
    "/escalate",
    "/habari",
    "/hours",
    "/location",
    "/mpesa",
    "/refund",
    "/thanks",
  ]);
  await expect(answers(page).getByRole("row").filter({ hasText: "/mpesa" })).toContainText("business number 522522");
  expect(await seriousViolations(page, javaScriptEnabled)).toEqual([]);
});
