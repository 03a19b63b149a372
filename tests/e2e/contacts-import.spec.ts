import { readFile } from "node:fs/promises";
import { test, expect } from "./fixtures";
import { signIn, signUpAndVerifyViaApi } from "./helpers";

// Issue 13: a CSV import through the pages, with JavaScript on (the progress polls) and off (the
// status page refreshes itself): upload, map the columns, run to the end, download the rejected rows.

// Excel's CSV in a Kenyan locale: a byte order mark, semicolons, quoted cells; one bad number.
const CSV = [
  "\uFEFFJina;Simu;Tags;Mji",
  '"Wanjiku; Mary";0712 345 678;"vip,mteja";Nairobi',
  "Mũthoni 🌍;+254 722 000 000;;Mombasa",
  "Bad Number;12345;vip;Kisumu",
  "Wanjiku Again;254712345678;new;Nairobi",
  "",
].join("\r\n");

test("import a CSV: upload, map the columns, run to the end, download the rejected rows", async ({ page, request }) => {
  const user = await signUpAndVerifyViaApi(request);
  await signIn(page, user.email, user.password, { to: "/messaging/contacts/import" });
  await expect(page).toHaveURL(/\/messaging\/contacts\/import$/);
  await expect(page.getByRole("heading", { name: "Import contacts" })).toBeVisible();

  // A file that is not CSV is refused with the reason, and nothing is listed.
  await page.getByLabel("CSV file").setInputFiles({
    name: "contacts.xlsx",
    mimeType: "application/octet-stream",
    buffer: Buffer.from([0x50, 0x4b, 0x03, 0x04, 0, 0, 0, 0]),
  });
  await page.getByRole("button", { name: "Upload" }).click();
  await expect(page.getByLabel("CSV file")).toHaveAccessibleDescription(/Excel workbook/);
  await expect(page.getByText("No imports yet.")).toBeVisible();

  await page.getByLabel("CSV file").setInputFiles({ name: "wateja.csv", mimeType: "text/csv", buffer: Buffer.from(CSV, "utf8") });
  await page.getByRole("button", { name: "Upload" }).click();
  await expect(page).toHaveURL(/\/messaging\/contacts\/import\/[0-9a-f-]{36}$/);
  await expect(page.getByRole("heading", { name: "Import wateja.csv" })).toBeVisible();

  // The mapping is guessed from the headers (Jina, Simu, Tags); Mji is left out.
  await expect(page.getByLabel("Column “Jina”")).toHaveValue("name");
  await expect(page.getByLabel("Column “Simu”")).toHaveValue("phone");
  await expect(page.getByLabel("Column “Tags”")).toHaveValue("tags");
  await expect(page.getByLabel("Column “Mji”")).toHaveValue("");

  // Mapping nothing to the phone is refused with the reason.
  await page.getByLabel("Column “Simu”").selectOption("");
  await page.getByRole("button", { name: "Start import" }).click();
  await expect(page.getByRole("alert")).toContainText("Map one column to the phone number");

  await page.getByLabel("Column “Simu”").selectOption("phone");
  await page.getByLabel(/When a number is already a contact/).selectOption("update");
  await page.getByLabel("Where consent came from (optional)").fill("Signed forms at the Nairobi branch");
  await page.getByRole("button", { name: "Start import" }).click();

  // With JavaScript the page polls; without, it refreshes itself.
  await expect(page.getByRole("heading", { name: "Import finished" })).toBeVisible({ timeout: 30_000 });
  await expect(page.locator('[data-count="created"]')).toHaveText("2");
  await expect(page.locator('[data-count="updated"]')).toHaveText("1");
  await expect(page.locator('[data-count="skipped"]')).toHaveText("0");
  await expect(page.locator('[data-count="invalid"]')).toHaveText("1");
  await expect(page.getByRole("progressbar", { name: "File read" })).toHaveAttribute("aria-valuenow", String(Buffer.byteLength(CSV)));

  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("link", { name: /Download the rejected rows/ }).click(),
  ]);
  expect(download.suggestedFilename()).toBe("wateja-rejected.csv");
  const rejected = (await readFile((await download.path())!)).toString("utf8");
  expect(rejected.startsWith("\uFEFF")).toBe(true);
  const lines = rejected.slice(1).trim().split("\r\n");
  expect(lines).toHaveLength(2);
  expect(lines[0]).toBe('"Line","Jina","Simu","Tags","Mji","Reason"');
  expect(lines[1]).toMatch(/^"4","Bad Number","12345","vip","Kisumu",".*phone number.*"$/i);

  // The import is listed with its counts.
  await page.goto("/messaging/contacts/import");
  await expect(page.getByRole("link", { name: "wateja.csv" })).toBeVisible();
  await expect(page.getByRole("cell", { name: "2 / 1 / 0 / 1" })).toBeVisible();
});
