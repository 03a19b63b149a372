import { randomBytes } from "node:crypto";
import { request as playwrightRequest } from "@playwright/test";
import { test, expect } from "./fixtures";
import { connectedBusiness } from "./inbox-helpers";

// A product's picture uploaded with its form (decision 141), with JavaScript on and off: a file
// that is not a picture is refused at its field; a PNG is kept, shown on the product's page, given
// to Meta's catalog and served at its public address to a client without any session.

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(64)]);

test("a product's picture is uploaded, refused when it is not one, and served publicly for Meta", async ({ page, request, baseURL }) => {
  await connectedBusiness(page, request);
  const product = `Kiondo ${randomBytes(2).toString("hex")}`;

  await page.goto("/shop/products/new");
  await page.getByLabel("Name").fill(product);
  await page.getByLabel("Price (KES)").fill("2,400");
  await page.getByLabel("SKU", { exact: false }).fill(`KIONDO-${randomBytes(2).toString("hex")}`);
  await page
    .getByLabel("Picture")
    .setInputFiles({ name: "kiondo.jpg", mimeType: "image/jpeg", buffer: Buffer.from("not a picture at all") });
  await page.getByRole("button", { name: "Save the product" }).click();
  await expect(page.getByText("This file is not a JPEG or PNG picture.")).toBeVisible();

  // The typed fields are kept after the refusal; the file is chosen again.
  await page.getByLabel("Name").fill(product);
  await page.getByLabel("Price (KES)").fill("2,400");
  await page.getByLabel("Picture").setInputFiles({ name: "kiondo.png", mimeType: "image/png", buffer: PNG });
  await page.getByRole("button", { name: "Save the product" }).click();
  await expect(page).toHaveURL(/\/shop\/products$/);
  await page.getByRole("link", { name: `Edit ${product}` }).click();
  const picture = page.getByRole("img", { name: "The picture Jumbe keeps for this product" });
  await expect(picture).toBeVisible();
  const address = await picture.getAttribute("src");
  expect(address).toMatch(/\/catalog-images\/[A-Za-z0-9_-]{43}\.png$/);

  // As Meta fetches it: no cookie, no session.
  const stranger = await playwrightRequest.newContext({ baseURL });
  const served = await stranger.get(new URL(address!).pathname);
  expect(served.status()).toBe(200);
  expect(served.headers()["content-type"]).toBe("image/png");
  expect(Buffer.from(await served.body()).equals(PNG)).toBe(true);
  await stranger.dispose();
});
