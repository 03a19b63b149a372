import { test, expect } from "./fixtures";
import { field, signIn, signUpAndVerifyViaApi } from "./helpers";

// Issue 13: the contact fields and segments pages, with JavaScript on and off (the two projects):
// each row's remove button (the UI kit's removeRowColumn) posts its own form and the row goes.

test("contact fields and segments: add one, then remove it with the row's own button", async ({ page, request }) => {
  const user = await signUpAndVerifyViaApi(request);
  await signIn(page, user.email, user.password, { to: "/messaging/contacts/fields" });
  await expect(page).toHaveURL(/\/messaging\/contacts\/fields$/);
  await expect(page.getByText("No custom fields yet.")).toBeVisible();

  await field(page, "Label").fill("County");
  await field(page, "Key").fill("county");
  await page.getByRole("button", { name: "Add field" }).click();
  await expect(page.getByRole("status").filter({ hasText: 'Field "County" added.' })).toBeVisible();
  await expect(page.getByRole("row").filter({ hasText: "county" })).toBeVisible();
  await page.getByRole("button", { name: "Remove field County" }).click();
  await expect(page.getByText("No custom fields yet.")).toBeVisible();
  await expect(page.getByRole("button", { name: "Remove field County" })).toHaveCount(0);

  // A filter from the Contacts tab, saved as a segment, then deleted from its row.
  await page.goto("/messaging/contacts/segments?seen=30");
  await field(page, "Segment name").fill("Seen this month");
  await page.getByRole("button", { name: "Save segment" }).click();
  await expect(page).toHaveURL(/\/messaging\/contacts\/segments$/);
  await expect(page.getByRole("link", { name: "Seen this month" })).toBeVisible();
  await page.getByRole("button", { name: "Delete segment Seen this month" }).click();
  await expect(page.getByText("No segments yet.")).toBeVisible();
  await expect(page.getByRole("link", { name: "Seen this month" })).toHaveCount(0);
});
