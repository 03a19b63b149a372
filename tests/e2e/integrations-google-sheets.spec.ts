import type { APIRequestContext, Page } from "@playwright/test";
import { test, expect } from "./fixtures";
import { BASE_URL, signIn, signUpAndVerifyViaApi } from "./helpers";

// Issue 45, decision 085: Google Sheets in the browser, with JavaScript on and off, against the
// server's Google sandbox: connect through the sandbox's consent page, import contacts from a sheet
// (a bad row reported), export them and read the rows through the sandbox's control API, survive an
// expired token and a 429, and disconnect (the grant revoked at the sandbox). The config's two
// projects run it with JavaScript on and off, at once: each with its own test account of the
// sandbox (expiring and revoking are per account), and the 429 asked for by a magic sheet name
// rather than a queued fault (which the other run's next call could take).

const GOOGLE = `${BASE_URL}/sandbox/google`;
const ACCOUNTS = { js: "owner@dukabora.co.ke", "no-js": "admin@pwanitours.co.ke" } as Record<string, string>;

async function control<T>(request: APIRequestContext, path: string, body?: unknown): Promise<T> {
  const answer =
    body === undefined ? await request.get(`${GOOGLE}/control${path}`) : await request.post(`${GOOGLE}/control${path}`, { data: body });
  expect(answer.ok(), await answer.text()).toBe(true);
  return (await answer.json()) as T;
}

const sheetValues = async (request: APIRequestContext, id: string, range: string) =>
  (await control<{ values: unknown[][] }>(request, `/spreadsheets/${id}/values?range=${encodeURIComponent(range)}`)).values;

async function expectToast(page: Page, text: string | RegExp) {
  await expect(page.getByRole("status").or(page.getByRole("alert")).filter({ hasText: text }).first()).toBeVisible();
}

test("connects Google Sheets, imports and exports through the sandbox, survives an expired token and a 429, and disconnects", async ({
  page,
  request,
  javaScriptEnabled,
  consoleErrors,
}, testInfo) => {
  const OWNER = ACCOUNTS[testInfo.project.name] ?? ACCOUNTS.js!;
  test.setTimeout(180_000);
  const user = await signUpAndVerifyViaApi(page.request, { businessName: javaScriptEnabled ? "Karibu Bakery" : "Tumaini Pharmacy" });
  await signIn(page, user.email, user.password, { to: "/integrations?dialog=connect-google-sheets" });

  // Connect: our button, Google's (the sandbox's) consent page, back to the catalogue.
  await page.getByRole("dialog", { name: "Connect Google Sheets" }).getByRole("button", { name: "Continue to Google Sheets" }).click();
  await expect(page.getByRole("heading", { name: "Choose an account" })).toBeVisible();
  await expect(page.getByText("https://www.googleapis.com/auth/drive.file")).toBeVisible();
  await page.getByRole("radio", { name: new RegExp(OWNER) }).check();
  await page.getByRole("button", { name: "Allow" }).click();
  await expect(page).toHaveURL(/\/integrations$/);
  const card = page.locator('[data-integration="google-sheets"]');
  await expect(card).toContainText(OWNER);
  await card.getByRole("link", { name: "Export and import settings" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Google Sheets" })).toBeVisible();

  // Import: a sheet typed in the owner's Drive, with a bad row. drive.file: Jumbe may not open it until
  // it is chosen with the Picker (issue 73), and says so in words.
  const tag = javaScriptEnabled ? "on" : "off";
  const made = await control<{ spreadsheet: { spreadsheetId: string } }>(request, "/spreadsheets", {
    title: `Customers ${tag}`,
    owner: OWNER,
    sheets: ["Sheet1", "magic-429"],
    values: [
      ["Name", "Phone"],
      ["Njeri Wambui", "0712 000 101"],
      ["Bad Number", "12"],
      ["=1+1", "0712 000 102"],
    ],
  });
  const importForm = page.getByRole("region", { name: "Import contacts from a sheet" });
  const spreadsheetField = importForm.getByLabel("Spreadsheet", { exact: true });
  await spreadsheetField.fill(made.spreadsheet.spreadsheetId);
  await importForm.getByLabel("Range").fill("Sheet1!A:B");
  await importForm.getByRole("button", { name: "Import contacts" }).click();
  await expectToast(page, /Jumbe cannot open that spreadsheet: Google shows Jumbe only the spreadsheets it created/);
  consoleErrors.splice(0, consoleErrors.length, ...consoleErrors.filter((text) => !/status of 404/.test(text)));
  const picker = importForm.getByRole("button", { name: "Choose a spreadsheet from Google Drive" });
  let sheetId: string;
  let range: string;
  if (javaScriptEnabled) {
    // The Picker (the sandbox's stand-in) in a window: the file chosen there is given to Jumbe and
    // its id lands in the form.
    const opened = page.waitForEvent("popup");
    await picker.click();
    const popup = await opened;
    await popup.getByRole("radio", { name: new RegExp(`Customers ${tag}`) }).check();
    await popup.getByRole("button", { name: "Select" }).click();
    await expect(spreadsheetField).toHaveValue(made.spreadsheet.spreadsheetId);
    await expect(importForm.getByText(`Chosen: Customers ${tag}. Jumbe may now open it.`)).toBeVisible();
    sheetId = made.spreadsheet.spreadsheetId;
    range = "Sheet1!A:B";
  } else {
    // Without JavaScript no Picker: the page says so; Jumbe makes a new sheet and the rows are pasted in.
    await expect(picker).toBeHidden();
    // (Playwright's switch turns scripts off but not the parser's scripting flag, so <noscript> stays unrendered here.)
    expect(await page.content()).toContain(
      '<noscript><p class="text-sm text-amber-800">Choosing a spreadsheet from Google Drive needs JavaScript.',
    );
    await expect(importForm.getByTestId("sheets-picker-explain")).toContainText("A sheet made elsewhere must be chosen that way");
    await importForm.getByLabel("Name the new sheet").fill(`Customers ${tag} pasted`);
    await importForm.getByRole("button", { name: "Create a new sheet" }).click();
    await expectToast(page, `Sheet “Customers ${tag} pasted” created in your Google Drive.`);
    const listed = await control<{ spreadsheets: { spreadsheetId: string; title: string }[] }>(request, "/spreadsheets");
    sheetId = listed.spreadsheets.find((s) => s.title === `Customers ${tag} pasted`)!.spreadsheetId;
    expect(await sheetValues(request, sheetId, "Contacts")).toEqual([["Name", "Phone", "Tags", "Language", "Notes"]]);
    await control(request, `/spreadsheets/${sheetId}/append`, {
      range: "Contacts",
      values: [
        ["Njeri Wambui", "0712 000 101"],
        ["Bad Number", "12"],
        ["=1+1", "0712 000 102"],
      ],
    });
    await expect(page.getByTestId("sheets-import-sheet")).toContainText(`Import sheet: “Customers ${tag} pasted”.`);
    await expect(spreadsheetField).toHaveValue(sheetId);
    range = "Contacts!A:E";
    await expect(importForm.getByLabel("Range")).toHaveValue(range);
  }
  await importForm.getByLabel("Range").fill(range);
  await importForm.getByRole("button", { name: "Import contacts" }).click();
  await expectToast(page, "Import started");
  await expect(async () => {
    await page.reload();
    await expect(page.getByTestId("sheets-import-result")).toContainText("2 created, 0 updated, 0 skipped, 1 rejected.", {
      timeout: 1000,
    });
  }).toPass({ timeout: 60_000 });

  // Export to a spreadsheet it creates, with the access token expired at Google first.
  const exportTitle = `Jumbe export ${tag}`;
  await page.getByLabel("Name a new spreadsheet").fill(exportTitle);
  await page.getByRole("button", { name: "Create spreadsheet" }).click();
  await expectToast(page, `Spreadsheet “${exportTitle}” created`);
  const open = page.getByRole("link", { name: "Open in Google Sheets" });
  const spreadsheetId = /\/spreadsheets\/d\/([^/]+)\/edit/.exec((await open.getAttribute("href"))!)![1]!;
  await control(request, `/users/${encodeURIComponent(OWNER)}/expire-tokens`, {});
  await page.getByRole("button", { name: "Export now" }).click();
  await expectToast(page, "Export started");
  await expect(async () => {
    const rows = await sheetValues(request, spreadsheetId, "Contacts");
    // The header once, then both contacts (made in one transaction: in id order), the formula as text.
    expect(rows[0]![1]).toBe("Name");
    expect(
      rows
        .slice(1)
        .map((r) => r[1])
        .sort(),
    ).toEqual(["=1+1", "Njeri Wambui"]);
  }).toPass({ timeout: 60_000 });
  await expect(async () => {
    await page.reload();
    await expect(page.getByTestId("sheets-export-facts")).toContainText("Idle", { timeout: 1000 });
  }).toPass({ timeout: 30_000 });
  await expect(page.getByTestId("sheets-export-facts")).toContainText(/Rows exported\s*2/);

  // A 429 from Google (the sandbox's magic value in the range): said in words, nothing imported;
  // the import again goes through, its rows skipped as duplicates.
  await spreadsheetField.fill(sheetId);
  await importForm.getByLabel("Range").fill("'magic-429'!A:B");
  await importForm.getByRole("button", { name: "Import contacts" }).click();
  await expectToast(page, /Google did not answer as expected.*Quota exceeded/);
  // That answer is a 502 on purpose (Google failed, not the request): the browser logs it.
  consoleErrors.splice(0, consoleErrors.length, ...consoleErrors.filter((text) => !/status of 502/.test(text)));
  await spreadsheetField.fill(sheetId);
  await importForm.getByLabel("Range").fill(range);
  await importForm.getByRole("button", { name: "Import contacts" }).click();
  await expect(async () => {
    await page.reload();
    await expect(page.getByTestId("sheets-import-result")).toContainText("0 created, 0 updated, 2 skipped, 1 rejected.", {
      timeout: 1000,
    });
  }).toPass({ timeout: 60_000 });

  // The page at 360 px: nothing wider than the screen.
  await page.setViewportSize({ width: 360, height: 800 });
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
  await page.setViewportSize({ width: 1280, height: 800 });

  // Disconnect: the grant revoked at the sandbox.
  await page.goto("/integrations?confirm=disconnect&integration=google-sheets");
  await page.getByRole("button", { name: "Disconnect" }).click();
  await expectToast(page, "Google Sheets is disconnected and its access revoked.");
  const tokens = await control<{ refresh: { account: string }[] }>(request, "/tokens");
  expect(tokens.refresh.filter((t) => t.account === OWNER)).toEqual([]);
  expect((await page.goto("/integrations/google-sheets"))!.status()).toBe(404);
});
