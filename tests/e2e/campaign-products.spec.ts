import { randomBytes } from "node:crypto";
import type { Page } from "@playwright/test";
import { test, expect } from "./fixtures";
import { field } from "./helpers";
import { waitForTemplateStatus } from "./template-helpers";
import { connectedBusiness, sentMessage } from "./inbox-helpers";
import { number } from "./campaign-helpers";

// Campaigns that sell (issue 76, decision 146), with JavaScript on and off: a product synced to the
// Meta sandbox's catalog, a multi-product (MPM) template made in the editor and approved by the
// sandbox's reviewer (labelled in the template list), and a campaign whose Review step and page list
// the product with its SKU and price, and whose message the sandbox records with the product.

async function addProduct(page: Page, name: string, sku: string) {
  await page.goto("/shop/products/new");
  await page.getByLabel("Name").fill(name);
  await page.getByLabel("Price (KES)").fill("1,500");
  await page.getByLabel("SKU", { exact: false }).fill(sku);
  await page.getByLabel("Image address").fill(`https://duka.example.co.ke/${sku.toLowerCase()}.jpg`);
  await page.getByRole("button", { name: "Save the product" }).click();
  await expect(page).toHaveURL(/\/shop\/products$/);
  const row = page.getByRole("row").filter({ hasText: name });
  await expect(async () => {
    await page.reload();
    await expect(row).toContainText("In the catalog", { timeout: 1000 });
  }).toPass({ timeout: 30_000 });
}

test("a multi-product template made in the editor sends a campaign's products", async ({ page, request, javaScriptEnabled }) => {
  test.setTimeout(150_000);
  const { phoneNumberId } = await connectedBusiness(page, request);
  const tag = randomBytes(2).toString("hex");
  const product = `Kikoi ${tag}`;
  const other = `Kanga ${tag}`;
  await addProduct(page, product, `KIKOI-${tag}`);
  await addProduct(page, other, `KANGA-${tag}`);

  // The editor: a Marketing template with a text header and a View items button.
  const name = `new_arrivals_${tag}`;
  await page.goto("/templates/new");
  await field(page, "Template name").fill(name);
  await page.getByLabel("Type", { exact: true }).selectOption({ label: "Marketing (Marketing)" });
  await page.getByLabel("Language", { exact: true }).selectOption({ label: "English" });
  await page.getByLabel("Header (optional)").selectOption({ label: "Text" });
  await field(page, "Body").fill("Fresh from the coast this week, tap to see them.");
  await page.getByRole("button", { name: "View items (up to 30 products)" }).click();
  await field(page, "Header text").fill("New arrivals");
  await expect(page.getByRole("group", { name: /View items/ })).toBeVisible();
  await page.getByRole("button", { name: "Submit for approval" }).click();
  await expect(page).toHaveURL(/\/templates$/);
  await waitForTemplateStatus(page, name, "approved");
  // The template list labels it as a multi-product template.
  await page.goto(`/templates?q=${name}`);
  await expect(page.getByRole("row").filter({ hasText: name })).toContainText("Multi-product");

  // Someone who agreed to marketing messages.
  const phone = number();
  await page.goto("/messaging/contacts");
  await page.getByRole("link", { name: "Add contact" }).first().click();
  const dialog = page.getByRole("dialog", { name: "Add contact" });
  await field(dialog, "Name").fill("Amina Otieno");
  await field(dialog, "Phone").fill(phone);
  await dialog.getByLabel("Consent to marketing messages").selectOption("yes");
  await field(dialog, "Evidence").fill("Signed up at the Lamu shop");
  await dialog.getByRole("button", { name: "Add contact" }).click();
  await expect(page.getByRole("heading", { name: /Amina Otieno/ })).toBeVisible();

  // The campaign: the template's products from the shop, found by name or SKU (a GET of the whole
  // form: what was typed and ticked comes back, without JavaScript too).
  await page.goto("/messaging/campaigns/new");
  if (javaScriptEnabled) await expect(page.getByRole("button", { name: "Show its placeholders" })).toHaveCount(0);
  await field(page, "Campaign name").fill("Coast week");
  const option = page.locator('select[name="template"] option', { hasText: name });
  await page.getByLabel("Approved template").selectOption((await option.getAttribute("value"))!);
  if (!javaScriptEnabled) await page.getByRole("button", { name: "Show its placeholders" }).click();
  await field(page, "Phone numbers").fill(phone);
  const section = page.getByRole("group", { name: "Section 1" });
  const find = async (words: string) => {
    await page.getByLabel("Find a product by name or SKU").fill(words);
    await page.getByRole("button", { name: "Find", exact: true }).click();
    await expect(page).toHaveURL(/[?&]pq=/);
  };
  await find(`KANGA-${tag}`);
  await expect(section.getByRole("checkbox", { name: new RegExp(other) })).toBeVisible();
  await expect(section.getByRole("checkbox", { name: new RegExp(product) })).toHaveCount(0);
  await section.getByRole("checkbox", { name: new RegExp(other) }).check();
  await find(product);
  // The campaign's fields and the ticked product are kept; the one found is offered beside it.
  await expect(field(page, "Campaign name")).toHaveValue("Coast week");
  await expect(field(page, "Phone numbers")).toHaveValue(phone);
  await expect(section.getByRole("checkbox", { name: new RegExp(other) })).toBeChecked();
  await section.getByRole("checkbox", { name: new RegExp(product) }).check();
  await page.getByLabel("Thumbnail product").selectOption({ label: `${product} (KIKOI-${tag})` });
  await page.getByRole("button", { name: "Review" }).click();
  await expect(page.getByTestId("review-recipients")).toHaveText("1");
  // Review lists the products the message will show: name, SKU and price in KES.
  const reviewed = page.getByTestId("campaign-products");
  await expect(reviewed).toContainText(product);
  await expect(reviewed).toContainText(`KIKOI-${tag}`);
  await expect(reviewed).toContainText("1,500.00");
  await page.getByRole("button", { name: "Confirm and send to 1" }).click();
  await expect(page).toHaveURL(/\/messaging\/campaigns\/[0-9a-f-]{36}$/);
  await expect(page.getByTestId("campaign-products")).toContainText(`${product} (KIKOI-${tag})`);
  await expect(page.getByTestId("campaign-products")).toContainText(`${other} (KANGA-${tag})`);

  const sent = await sentMessage(request, phoneNumberId, `KIKOI-${tag}`);
  expect(JSON.stringify(sent.body)).toContain('"sub_type":"MPM"');
  expect(JSON.stringify(sent.body)).toContain(`KANGA-${tag}`);
});
