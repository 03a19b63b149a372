import type { Page } from "@playwright/test";
import { test, expect } from "./fixtures";
import { field, signIn, signUpAndVerifyViaApi } from "./helpers";

// Issue 13: the Message Center's Contacts tab, with JavaScript on and off (the two projects): add a
// contact with consent, edit it, filter and search, tag and delete in bulk with a confirmation.

const row = (page: Page, name: string) => page.getByRole("row").filter({ has: page.getByRole("link", { name, exact: true }) });

async function addContact(page: Page, values: { name: string; phone: string; tags?: string; consent?: "yes" | "no"; evidence?: string }) {
  await page.getByRole("link", { name: "Add contact" }).first().click();
  const dialog = page.getByRole("dialog", { name: "Add contact" });
  await expect(dialog).toBeVisible();
  await field(dialog, "Name").fill(values.name);
  await field(dialog, "Phone").fill(values.phone);
  if (values.tags) await field(dialog, "Tags").fill(values.tags);
  if (values.consent) await dialog.getByLabel("Consent to marketing messages").selectOption(values.consent);
  if (values.evidence) await field(dialog, "Evidence").fill(values.evidence);
  await dialog.getByRole("button", { name: "Add contact" }).click();
}

test("contacts: add, edit, filter, bulk-tag and delete", async ({ page, request }) => {
  const user = await signUpAndVerifyViaApi(request);
  await signIn(page, user.email, user.password, { to: "/messaging/contacts" });
  await expect(page).toHaveURL(/\/messaging\/contacts$/);
  const tabs = page.getByRole("navigation", { name: "Message Center" });
  for (const name of ["Campaigns", "Contacts", "Broadcast History"]) await expect(tabs.getByRole("link", { name })).toBeVisible();
  await expect(tabs.getByRole("link", { name: "Contacts" })).toHaveAttribute("aria-current", "page");
  await expect(page.getByText("No contacts yet.").first()).toBeVisible();

  // A consent answer without evidence, and a number that cannot be real, are refused with the reason.
  await addContact(page, { name: "Amina Otieno", phone: "0712", consent: "yes" });
  const dialog = page.getByRole("dialog", { name: "Add contact" });
  await expect(field(dialog, "Evidence")).toHaveAccessibleDescription(/Say how they agreed or refused/);
  await field(dialog, "Evidence").fill("Signed up at the Kisumu shop");
  await dialog.getByRole("button", { name: "Add contact" }).click();
  await expect(field(dialog, "Phone")).toHaveAccessibleDescription(/phone number/);

  await field(dialog, "Phone").fill("0712 345 678");
  await dialog.getByRole("button", { name: "Add contact" }).click();
  await expect(page.getByRole("heading", { name: /Amina Otieno/ })).toBeVisible();
  await expect(page.getByText("+254712345678").first()).toBeVisible();
  await expect(page.getByRole("heading", { name: /Amina Otieno/ }).getByText("Opted in")).toBeVisible();
  await expect(page.getByRole("list", { name: "Timeline" })).toContainText("Signed up at the Kisumu shop");

  // Edit: the name and the tags.
  await field(page, "Name").fill("Amina W. Otieno");
  await field(page, "Tags").fill("vip, kisumu");
  await page.getByRole("button", { name: "Save contact" }).click();
  await expect(page.getByRole("heading", { name: /Amina W\. Otieno/ })).toBeVisible();
  await expect(field(page, "Tags")).toHaveValue("vip, kisumu");

  // A second contact, the same number written another way, is refused; another number is added.
  await page.getByRole("link", { name: "Contacts", exact: true }).first().click();
  await addContact(page, { name: "Amina Again", phone: "+254 712 345 678" });
  await expect(field(page.getByRole("dialog", { name: "Add contact" }), "Phone")).toHaveAccessibleDescription(/already a contact/);
  await page.goto("/messaging/contacts");
  await addContact(page, { name: "Baraka Mwangi", phone: "0722 000 111" });
  await expect(page.getByRole("heading", { name: /Baraka Mwangi/ })).toBeVisible();
  await page.goto("/messaging/contacts");
  await expect(row(page, "Amina W. Otieno")).toContainText("vip");
  await expect(row(page, "Baraka Mwangi")).toContainText("Not asked");

  // Filters live in the URL.
  await page.locator(`select[name="tag"]`).selectOption("vip");
  await page.getByRole("button", { name: "Apply filters" }).click();
  await expect(page).toHaveURL(/tag=vip/);
  await expect(row(page, "Amina W. Otieno")).toBeVisible();
  await expect(row(page, "Baraka Mwangi")).toHaveCount(0);
  await page.goto("/messaging/contacts?q=254722000111");
  await expect(row(page, "Baraka Mwangi")).toBeVisible();
  await expect(row(page, "Amina W. Otieno")).toHaveCount(0);
  await page.goto("/messaging/contacts?optin=opted_in");
  await expect(row(page, "Amina W. Otieno")).toBeVisible();
  await expect(row(page, "Baraka Mwangi")).toHaveCount(0);

  // Bulk: tag the ticked row.
  await page.goto("/messaging/contacts");
  await page.getByRole("checkbox", { name: "Select Baraka Mwangi" }).check();
  const bulk = page.getByRole("form", { name: "Bulk actions" });
  await field(bulk, "Tags").fill("nairobi");
  await bulk.getByRole("button", { name: "Add tags" }).click();
  await expect(page.getByText("Tagged 1 contact (nairobi).")).toBeVisible();
  await expect(row(page, "Baraka Mwangi")).toContainText("nairobi");
  await expect(row(page, "Amina W. Otieno")).not.toContainText("nairobi");

  // Bulk: tag everything matching a filter.
  await page.goto("/messaging/contacts?q=otieno");
  await page.getByLabel("Apply to").selectOption("all");
  await field(page.getByRole("form", { name: "Bulk actions" }), "Tags").fill("loyal");
  await page.getByRole("button", { name: "Add tags" }).click();
  await expect(page.getByText("Tagged 1 contact (loyal).")).toBeVisible();
  await page.goto("/messaging/contacts?tag=loyal");
  await expect(row(page, "Amina W. Otieno")).toBeVisible();
  await expect(row(page, "Baraka Mwangi")).toHaveCount(0);

  // Bulk delete asks first; Cancel keeps the contact, Yes deletes it.
  await page.goto("/messaging/contacts");
  await page.getByRole("checkbox", { name: "Select Baraka Mwangi" }).check();
  await page.getByRole("form", { name: "Bulk actions" }).getByRole("button", { name: "Delete" }).click();
  const confirm = page.getByRole("dialog", { name: "Delete 1 contact?" });
  await expect(confirm).toBeVisible();
  await confirm.getByRole("button", { name: "Yes, delete" }).click();
  await expect(page.getByText("1 contact deleted.")).toBeVisible();
  await expect(row(page, "Baraka Mwangi")).toHaveCount(0);
  await expect(row(page, "Amina W. Otieno")).toBeVisible();
});

test("contacts: another business's contact is not found, and the other tabs say what is coming", async ({ page, request }) => {
  const user = await signUpAndVerifyViaApi(request);
  await signIn(page, user.email, user.password, { to: "/messaging" });
  await expect(page.getByRole("heading", { name: "No campaigns yet" })).toBeVisible();
  await page.getByRole("link", { name: "Broadcast History" }).click();
  await expect(page.getByRole("heading", { name: "No broadcasts yet" })).toBeVisible();
  const response = await page.goto("/messaging/contacts/6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f");
  expect(response?.status()).toBe(404);
});
