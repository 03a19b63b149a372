import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLIENT_ID, CLIENT_SECRET, OWNER, REDIRECT_URI, startGoogle, type GoogleHarness } from "./test-support";

let h: GoogleHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe("OAuth", () => {
  it("shows a consent page that works without JavaScript, and redirects with code and state", async () => {
    h = await startGoogle();
    const query = new URLSearchParams({
      client_id: CLIENT_ID,
      redirect_uri: REDIRECT_URI,
      response_type: "code",
      scope: "https://www.googleapis.com/auth/drive.file",
      access_type: "offline",
      prompt: "consent",
      state: "s",
    });
    const pageHtml = await (await fetch(`${h.base}/o/oauth2/v2/auth?${query}`)).text();
    expect(pageHtml).toContain('<form method="post" action="/sandbox/google/o/oauth2/v2/auth"');
    expect(pageHtml).toContain(OWNER);
    const back = await h.consent({ state: "abc" });
    expect(back.searchParams.get("state")).toBe("abc");
    expect(back.searchParams.get("code")).toBeTruthy();
    expect((await h.consent({ decision: "deny" })).searchParams.get("error")).toBe("access_denied");
    const wrongClient = await fetch(`${h.base}/o/oauth2/v2/auth?${new URLSearchParams({ ...Object.fromEntries(query), client_id: "x" })}`);
    expect(wrongClient.status).toBe(400);
  });

  it("exchanges a code for an hour's token and a refresh token; refreshes; revokes", async () => {
    h = await startGoogle();
    const tokens = await h.connect();
    expect(tokens).toMatchObject({ expires_in: 3599, token_type: "Bearer", scope: "https://www.googleapis.com/auth/drive.file" });
    expect(tokens.refresh_token).toBeTruthy();
    const refreshed = await h.token({
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token!,
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
    });
    expect(refreshed.status).toBe(200);
    expect(refreshed.json.refresh_token).toBeUndefined();
    const badCode = await h.token({
      grant_type: "authorization_code",
      code: "nope",
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
      redirect_uri: REDIRECT_URI,
    });
    expect(badCode.json).toEqual({ error: "invalid_grant", error_description: "Bad Request" });
    expect((await h.token({ grant_type: "refresh_token", refresh_token: "x", client_id: CLIENT_ID, client_secret: "wrong" })).status).toBe(
      401,
    );

    expect((await h.postForm("/revoke", { token: tokens.refresh_token! })).status).toBe(200);
    const afterRevoke = await h.token({
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token!,
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
    });
    expect(afterRevoke.json).toMatchObject({ error: "invalid_grant" });
    expect((await h.api("/v4/spreadsheets", refreshed.json.access_token, { body: {} })).status).toBe(401);
  });

  it("gives a refresh token again only with prompt=consent", async () => {
    h = await startGoogle();
    await h.connect();
    const code = (await h.consent({ prompt: "" })).searchParams.get("code")!;
    const again = await h.token({
      grant_type: "authorization_code",
      code,
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
      redirect_uri: REDIRECT_URI,
    });
    expect(again.json.access_token).toBeTruthy();
    expect(again.json.refresh_token).toBeUndefined();
  });
});

describe("Sheets v4", () => {
  it("creates a spreadsheet, appends rows and reads them back", async () => {
    h = await startGoogle();
    const { access_token: token } = await h.connect();
    const created = await h.api<Json>("/v4/spreadsheets", token, {
      body: { properties: { title: "Jumbe contacts" }, sheets: [{ properties: { title: "Kenya customers" } }] },
    });
    expect(created.status).toBe(200);
    expect(created.json.sheets[0].properties).toMatchObject({
      title: "Kenya customers",
      sheetType: "GRID",
      gridProperties: { rowCount: 1000, columnCount: 26 },
    });
    const id = created.json.spreadsheetId as string;
    const range = encodeURIComponent("'Kenya customers'!A1:C1");
    const first = await h.api<Json>(`/v4/spreadsheets/${id}/values/${range}:append?valueInputOption=RAW`, token, {
      body: {
        values: [
          ["Name", "Phone"],
          ["Amina", "0712 345 678"],
        ],
      },
    });
    expect(first.json.updates).toMatchObject({ updatedRange: "'Kenya customers'!A1:B2", updatedRows: 2, updatedCells: 4 });
    expect(first.json.tableRange).toBeUndefined();
    const second = await h.api<Json>(`/v4/spreadsheets/${id}/values/${range}:append?valueInputOption=USER_ENTERED`, token, {
      body: { values: [["Juma", "254722000111", 3]] },
    });
    expect(second.json).toMatchObject({ tableRange: "'Kenya customers'!A1:B2", updates: { updatedRange: "'Kenya customers'!A3:C3" } });
    const read = await h.api<Json>(`/v4/spreadsheets/${id}/values/${encodeURIComponent("'Kenya customers'!A:C")}`, token);
    expect(read.json).toEqual({
      range: "'Kenya customers'!A1:C1000",
      majorDimension: "ROWS",
      values: [
        ["Name", "Phone"],
        ["Amina", "0712 345 678"],
        ["Juma", "254722000111", "3"],
      ],
    });
    expect(h.sandbox.values(id, "'Kenya customers'!A3:C3")).toEqual([["Juma", 254722000111, 3]]);
  });

  it("answers Google's errors", async () => {
    h = await startGoogle();
    const { access_token: token } = await h.connect();
    const hidden = h.sandbox.createSpreadsheet({ title: "Private", values: [["x"]] });
    // drive.file: a file the app neither made nor was given is invisible to it, as a missing one.
    expect((await h.api<Json>(`/v4/spreadsheets/${hidden.spreadsheetId}/values/A1`, token)).json).toEqual({
      error: { code: 404, message: "Requested entity was not found.", status: "NOT_FOUND" },
    });
    expect((await h.api<Json>("/v4/spreadsheets/nope/values/A1", token)).json.error).toMatchObject({ code: 404, status: "NOT_FOUND" });
    const shared = h.sandbox.createSpreadsheet({ title: "Shared", values: [["Name"]], appAccess: true });
    const badRange = await h.api<Json>(`/v4/spreadsheets/${shared.spreadsheetId}/values/${encodeURIComponent("Nope!A1")}`, token);
    expect(badRange.json.error).toMatchObject({ code: 400, status: "INVALID_ARGUMENT", message: "Unable to parse range: Nope!A1" });
    const noOption = await h.api<Json>(`/v4/spreadsheets/${shared.spreadsheetId}/values/A1:append`, token, { body: { values: [["a"]] } });
    expect(noOption.json.error.message).toContain("valueInputOption");
  });

  it("answers 401 once the account's tokens are expired, and the magic values", async () => {
    h = await startGoogle({ slowMs: 20 });
    const { access_token: token } = await h.connect();
    expect((await h.control<Json>(`/users/${OWNER}/expire-tokens`, { method: "POST" })).json.expired).toBe(1);
    const expired = await h.api<Json>("/v4/spreadsheets", token, { body: {} });
    expect(expired.json.error).toMatchObject({ code: 401, status: "UNAUTHENTICATED", details: [{ reason: "ACCESS_TOKEN_EXPIRED" }] });

    const fresh = (await h.connect()).access_token;
    const titled = (title: string) => h!.api<Json>("/v4/spreadsheets", fresh, { body: { properties: { title } } });
    expect((await titled("magic-429")).json.error).toMatchObject({ code: 429, status: "RESOURCE_EXHAUSTED" });
    expect((await titled("magic-500")).json.error).toMatchObject({ code: 500, status: "INTERNAL" });
    expect((await titled("magic-401")).status).toBe(401);
    expect((await titled("magic-slow")).status).toBe(200);
  });

  it("lets tests put contacts in a sheet through the control API", async () => {
    h = await startGoogle();
    const made = await h.control<Json>("/spreadsheets", {
      body: {
        title: "Import",
        values: [
          ["Name", "Phone"],
          ["Wanjiku", "0712345678"],
        ],
      },
    });
    const id = made.json.spreadsheet.spreadsheetId as string;
    await h.control(`/spreadsheets/${id}/append`, { body: { values: [["Otieno", "+254722000111"]] } });
    expect((await h.control<Json>(`/spreadsheets/${id}/values?range=Sheet1!A2:B`)).json.values).toEqual([
      ["Wanjiku", "0712345678"],
      ["Otieno", "+254722000111"],
    ]);
    const consoleHtml = await (await fetch(h.base)).text();
    expect(consoleHtml).toContain("Otieno");
  });

  it("keeps spreadsheets and tokens in its state file", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "google-sandbox-"));
    try {
      const statePath = path.join(dir, "google.json");
      h = await startGoogle({ statePath });
      const tokens = await h.connect();
      const made = h.sandbox.createSpreadsheet({ title: "Kept", values: [["a"]], appAccess: true });
      await h.close();
      h = await startGoogle({ statePath });
      expect(h.sandbox.values(made.spreadsheetId)).toEqual([["a"]]);
      expect((await h.api(`/v4/spreadsheets/${made.spreadsheetId}`, tokens.access_token)).status).toBe(200);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
