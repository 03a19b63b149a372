import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { google, type sheets_v4 } from "googleapis";
import { CLIENT_ID, CLIENT_SECRET, OWNER, REDIRECT_URI, startGoogle, type GoogleHarness } from "../../sandbox/google/test-support";

// The Google sandbox driven by `googleapis` (pinned 176.0.0) and its google-auth-library, as a
// developer outside Jumbe would use them: an OAuth2 client whose endpoints are the sandbox's and
// `google.sheets({ version: "v4", auth, rootUrl })`; nothing else about the library is changed. The
// library keeps only the origin of `rootUrl` (googleapis-common resolves its absolute paths against
// it), so the sandbox's Sheets API is also served at the origin's root here (startGoogle's
// `apiAtRoot`); the OAuth endpoints take whole URLs and stay under /sandbox/google. Every
// Google call Jumbe makes (app/.server/infrastructure/clients/google-sheets.ts: consent, code
// exchange, tokeninfo, refresh, revoke; spreadsheets create and get with `fields`; values get,
// update, append) and the ones its issue names (batchGet, clear, includeValuesInResponse), and
// drive.file's refusal of a spreadsheet the app was not given, as the library surfaces it.

let h: GoogleHarness;
let auth: InstanceType<typeof google.auth.OAuth2>;
let sheets: sheets_v4.Sheets;

beforeAll(async () => {
  h = await startGoogle({}, { apiAtRoot: true });
  auth = new google.auth.OAuth2({
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    redirectUri: REDIRECT_URI,
    endpoints: {
      oauth2AuthBaseUrl: `${h.base}/o/oauth2/v2/auth`,
      oauth2TokenUrl: `${h.base}/token`,
      oauth2RevokeUrl: `${h.base}/revoke`,
      tokenInfoUrl: `${h.base}/tokeninfo`,
    },
  });
  sheets = google.sheets({ version: "v4", auth, rootUrl: `${h.origin}/` });
});
afterAll(() => h?.close());

/** The library's consent URL, the sandbox's form posted as a person allowing it would; the code. */
async function consentCode() {
  const url = new URL(
    auth.generateAuthUrl({
      access_type: "offline",
      prompt: "consent",
      scope: ["https://www.googleapis.com/auth/drive.file", "openid", "email"],
      state: "fidelity",
    }),
  );
  expect(url.origin + url.pathname).toBe(`${h.base}/o/oauth2/v2/auth`);
  const back = await h.consent({ ...Object.fromEntries(url.searchParams), account: OWNER, decision: "allow" });
  expect(back.searchParams.get("state")).toBe("fidelity");
  return back.searchParams.get("code")!;
}

/** The library's error as an integration sees it: HTTP status and Google's error body. */
async function refusal(call: Promise<unknown>) {
  const error = (await call.then(
    () => {
      throw new Error("expected Google to refuse");
    },
    (e: unknown) => e,
  )) as { status?: number; response?: { status: number; data: unknown } };
  return { status: error.response?.status, data: error.response?.data };
}

describe("googleapis against the Google sandbox", () => {
  it("connects: code exchange, tokeninfo (posted), refresh", async () => {
    const { tokens } = await auth.getToken(await consentCode());
    expect(tokens).toMatchObject({ token_type: "Bearer", scope: "https://www.googleapis.com/auth/drive.file openid email" });
    expect(tokens.refresh_token).toBeTruthy();
    expect(tokens.expiry_date).toBeGreaterThan(Date.now() + 3_500_000);
    auth.setCredentials(tokens);

    const info = await auth.getTokenInfo(tokens.access_token!);
    expect(info).toMatchObject({ aud: CLIENT_ID, email: OWNER, scopes: ["https://www.googleapis.com/auth/drive.file", "openid", "email"] });
    expect(info.sub).toMatch(/^\d{21}$/);

    // A refresh as the library does it when its access token is gone: the refresh token kept.
    auth.setCredentials({ refresh_token: tokens.refresh_token });
    const { token } = await auth.getAccessToken();
    expect(token).toMatch(/^ya29\./);
    expect(token).not.toBe(tokens.access_token);
    expect(auth.credentials.refresh_token).toBe(tokens.refresh_token);
  });

  it("creates a spreadsheet and reads it back as asked with fields", async () => {
    const created = await sheets.spreadsheets.create({
      requestBody: {
        properties: { title: "Jumbe export" },
        sheets: [{ properties: { title: "Contacts" } }, { properties: { title: "Messages" } }],
      },
    });
    expect(created.status).toBe(200);
    const id = created.data.spreadsheetId!;
    expect(created.data.sheets?.map((s) => s.properties?.title)).toEqual(["Contacts", "Messages"]);
    expect(created.data.spreadsheetUrl).toBe(`${h.base}/spreadsheets/d/${id}/edit`);

    // Jumbe's own mask, and the library's nested form.
    const read = await sheets.spreadsheets.get({
      spreadsheetId: id,
      fields: "spreadsheetId,properties.title,spreadsheetUrl,sheets.properties",
    });
    expect(Object.keys(read.data).sort()).toEqual(["properties", "sheets", "spreadsheetId", "spreadsheetUrl"]);
    expect(read.data.properties).toEqual({ title: "Jumbe export" });
    const titles = await sheets.spreadsheets.get({ spreadsheetId: id, fields: "sheets(properties(sheetId,title))" });
    expect(titles.data).toEqual({
      sheets: [{ properties: { sheetId: 0, title: "Contacts" } }, { properties: { sheetId: 100001, title: "Messages" } }],
    });
  });

  it("writes, appends, reads, batch-reads and clears values", async () => {
    const id = (
      await sheets.spreadsheets.create({
        requestBody: { properties: { title: "Values" }, sheets: [{ properties: { title: "Contacts" } }] },
      })
    ).data.spreadsheetId!;
    const header = ["Contact ID", "Name", "Phone"];
    const updated = await sheets.spreadsheets.values.update({
      spreadsheetId: id,
      range: "Contacts!A1",
      valueInputOption: "RAW",
      includeValuesInResponse: true,
      requestBody: { values: [header] },
    });
    expect(updated.data).toMatchObject({ spreadsheetId: id, updatedRange: "Contacts!A1:C1", updatedRows: 1, updatedCells: 3 });
    expect(updated.data.updatedData).toEqual({ range: "Contacts!A1:C1", majorDimension: "ROWS", values: [header] });

    // As Jumbe appends: RAW, INSERT_ROWS, from the tab's first cell; the table spans A:C.
    const appended = await sheets.spreadsheets.values.append({
      spreadsheetId: id,
      range: "Contacts!A1",
      valueInputOption: "RAW",
      insertDataOption: "INSERT_ROWS",
      requestBody: { values: [["c-1", "Wanjiku", "+254712345678"]] },
    });
    expect(appended.data).toMatchObject({ tableRange: "Contacts!A1:C1", updates: { updatedRange: "Contacts!A2:C2", updatedRows: 1 } });
    expect(appended.data.updates?.updatedData).toBeUndefined();
    const again = await sheets.spreadsheets.values.append({
      spreadsheetId: id,
      range: "Contacts",
      valueInputOption: "USER_ENTERED",
      includeValuesInResponse: true,
      requestBody: { values: [["c-2", "Otieno", "'0722000111"]] },
    });
    expect(again.data.tableRange).toBe("Contacts!A1:C2");
    expect(again.data.updates?.updatedData).toEqual({
      range: "Contacts!A3:C3",
      majorDimension: "ROWS",
      values: [["c-2", "Otieno", "0722000111"]],
    });

    const got = await sheets.spreadsheets.values.get({ spreadsheetId: id, range: "Contacts!A:C" });
    expect(got.data).toEqual({
      range: "Contacts!A1:C1000",
      majorDimension: "ROWS",
      values: [header, ["c-1", "Wanjiku", "+254712345678"], ["c-2", "Otieno", "0722000111"]],
    });
    const batch = await sheets.spreadsheets.values.batchGet({
      spreadsheetId: id,
      ranges: ["Contacts!B2:B3", "Contacts!A1"],
      majorDimension: "COLUMNS",
    });
    expect(batch.data).toEqual({
      spreadsheetId: id,
      valueRanges: [
        { range: "Contacts!B2:B3", majorDimension: "COLUMNS", values: [["Wanjiku", "Otieno"]] },
        { range: "Contacts!A1:A1", majorDimension: "COLUMNS", values: [["Contact ID"]] },
      ],
    });
    const cleared = await sheets.spreadsheets.values.clear({ spreadsheetId: id, range: "Contacts!A2:C3", requestBody: {} });
    expect(cleared.data).toEqual({ spreadsheetId: id, clearedRange: "Contacts!A2:C3" });
    expect((await sheets.spreadsheets.values.get({ spreadsheetId: id, range: "Contacts" })).data.values).toEqual([header]);
  });

  it("cannot open, with drive.file, a spreadsheet the app neither made nor was given with the Picker", async () => {
    const typed = h.sandbox.createSpreadsheet({ title: "Typed in Drive", owner: OWNER, values: [["Name", "Phone"]] });
    const notFound = {
      status: 404,
      data: { error: { code: 404, message: "Requested entity was not found.", status: "NOT_FOUND" } },
    };
    expect(await refusal(sheets.spreadsheets.get({ spreadsheetId: typed.spreadsheetId }))).toEqual(notFound);
    expect(await refusal(sheets.spreadsheets.values.get({ spreadsheetId: typed.spreadsheetId, range: "A1:B1" }))).toEqual(notFound);
    expect(
      await refusal(
        sheets.spreadsheets.values.append({
          spreadsheetId: typed.spreadsheetId,
          range: "A1",
          valueInputOption: "RAW",
          requestBody: { values: [["x"]] },
        }),
      ),
    ).toEqual(notFound);
    // Chosen with the Picker (the sandbox's stand-in, with the library's own access token): opened.
    const picked = await h.postForm("/picker/pick", {
      oauth_token: auth.credentials.access_token!,
      origin: "http://127.0.0.1:9",
      spreadsheet: typed.spreadsheetId,
      action: "picked",
    });
    expect(picked.status).toBe(200);
    expect((await sheets.spreadsheets.values.get({ spreadsheetId: typed.spreadsheetId, range: "A1:B1" })).data.values).toEqual([
      ["Name", "Phone"],
    ]);
  });

  it("surfaces Google's 400 for a range it cannot parse, and revokes", async () => {
    const id = (await sheets.spreadsheets.create({ requestBody: { properties: { title: "Errors" } } })).data.spreadsheetId!;
    expect(await refusal(sheets.spreadsheets.values.get({ spreadsheetId: id, range: "Nowhere!A1" }))).toEqual({
      status: 400,
      data: { error: { code: 400, message: "Unable to parse range: Nowhere!A1", status: "INVALID_ARGUMENT" } },
    });
    const access = auth.credentials.access_token!;
    expect((await auth.revokeToken(access)).status).toBe(200);
    expect((await refusal(sheets.spreadsheets.get({ spreadsheetId: id }))).status).toBe(401);
  });
});
