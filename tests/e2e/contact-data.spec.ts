import { readFile } from "node:fs/promises";
import { test, expect } from "./fixtures";
import { field, signIn, signUpAndVerifyViaApi } from "./helpers";

// Issue 39: "Download their data" on a contact's page (the Data Protection Act's right of access)
// gives the browser the JSON file, with JavaScript on and off (the two projects).

test("a contact's page downloads everything held about them as a JSON file", async ({ page, request }) => {
  const user = await signUpAndVerifyViaApi(request);
  await signIn(page, user.email, user.password, { to: "/messaging/contacts" });
  await expect(page).toHaveURL(/\/messaging\/contacts$/);

  await page.getByRole("link", { name: "Add contact" }).first().click();
  const dialog = page.getByRole("dialog", { name: "Add contact" });
  await field(dialog, "Name").fill("Achieng Odhiambo");
  await field(dialog, "Phone").fill("0712 555 010");
  await dialog.getByRole("button", { name: "Add contact" }).click();
  await expect(page.getByRole("heading", { name: /Achieng Odhiambo/ })).toBeVisible();
  const id = /\/messaging\/contacts\/([0-9a-f-]{36})/.exec(page.url())?.[1];
  expect(id).toBeTruthy();

  const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("link", { name: "Download their data" }).click()]);
  expect(download.suggestedFilename()).toBe(`contact-${id}.json`);
  const file = JSON.parse((await readFile((await download.path())!)).toString("utf8"));
  expect(file.profile).toMatchObject({ id, name: "Achieng Odhiambo", phone: "+254712555010" });
  expect(file.law).toContain("Data Protection Act 2019");

  // The page stays where it was, and the download is in the activity log.
  await expect(page.getByRole("heading", { name: /Achieng Odhiambo/ })).toBeVisible();
  await page.goto("/activity");
  await expect(page.getByText("Contact data downloaded").first()).toBeVisible();
});
