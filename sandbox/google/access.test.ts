import { afterEach, describe, expect, it } from "vitest";
import { CLIENT_ID, OWNER, startGoogle, type GoogleHarness } from "./test-support";

// Issue 73, decision 109: drive.file as Google enforces it (only files the app made or the user
// chose with the app's Picker), the Picker's stand-in, values:batchGet and :clear, `fields=`,
// `includeValuesInResponse`, an append's tableRange across columns, and tokeninfo posted.

let h: GoogleHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const NOT_FOUND = { error: { code: 404, message: "Requested entity was not found.", status: "NOT_FOUND" } };

describe("drive.file", () => {
  it("refuses the seeded sheet and one made in Drive until it is chosen with the Picker; the app's own works", async () => {
    h = await startGoogle();
    const { access_token: token } = await h.connect();
    const listed = await h.control<{ spreadsheets: Json[] }>("/spreadsheets");
    const seeded = listed.json.spreadsheets.find((s) => s.title === "Customers to import")!;
    expect(seeded.appAccess).toBe(false);
    const read = await h.api(`/v4/spreadsheets/${seeded.spreadsheetId}/values/A1:C4`, token);
    expect(read.status).toBe(404);
    expect(read.json).toEqual(NOT_FOUND);
    expect((await h.api(`/v4/spreadsheets/${seeded.spreadsheetId}`, token)).json).toEqual(NOT_FOUND);
    const madeByControl = await h.control<Json>("/spreadsheets", { body: { title: "Typed in Drive", values: [["Name"]] } });
    expect(madeByControl.json.spreadsheet.appAccess).toBe(false);

    // The Picker: opened with the user's token and the page's origin; lists the Drive; a choice grants.
    const opened = await h.postForm("/picker", { oauth_token: token, origin: "http://127.0.0.1:9" });
    const listing = await opened.text();
    expect(opened.status).toBe(200);
    expect(listing).toContain("Customers to import");
    expect(listing).toContain('action="/sandbox/google/picker/pick"');
    const picked = await h.postForm("/picker/pick", {
      oauth_token: token,
      origin: "http://127.0.0.1:9",
      spreadsheet: seeded.spreadsheetId,
      action: "picked",
    });
    const answer = await picked.text();
    const data = JSON.parse(/<script type="application\/json" id="picker-answer">(.*?)<\/script>/.exec(answer)![1]!) as Json;
    expect(data).toMatchObject({
      origin: "http://127.0.0.1:9",
      data: {
        action: "picked",
        docs: [{ id: seeded.spreadsheetId, name: "Customers to import", mimeType: "application/vnd.google-apps.spreadsheet" }],
      },
    });
    expect((await h.api<Json>(`/v4/spreadsheets/${seeded.spreadsheetId}/values/A1:A2`, token)).json.values).toEqual([
      ["Name"],
      ["Wanjiku Kamau"],
    ]);

    // The app's own spreadsheet needs no Picker.
    const created = await h.api<Json>("/v4/spreadsheets", token, { body: { properties: { title: "Made by the app" } } });
    expect((await h.api(`/v4/spreadsheets/${created.json.spreadsheetId}`, token)).status).toBe(200);
  });

  it("opens no Picker without a live token or an origin, and grants no file of another account", async () => {
    h = await startGoogle();
    const { access_token: token } = await h.connect();
    expect((await h.postForm("/picker", { oauth_token: "ya29.nope", origin: "http://127.0.0.1:9" })).status).toBe(400);
    expect((await h.postForm("/picker", { oauth_token: token, origin: "javascript:alert(1)" })).status).toBe(400);
    expect((await fetch(`${h.base}/picker`)).status).toBe(400);
    const theirs = h.sandbox.createSpreadsheet({ title: "Pwani's", owner: "admin@pwanitours.co.ke" });
    const refused = await h.postForm("/picker/pick", {
      oauth_token: token,
      origin: "http://127.0.0.1:9",
      spreadsheet: theirs.spreadsheetId,
      action: "picked",
    });
    expect(refused.status).toBe(404);
    expect(
      (await h.control<{ spreadsheets: Json[] }>("/spreadsheets")).json.spreadsheets.find((s) => s.spreadsheetId === theirs.spreadsheetId)!
        .appAccess,
    ).toBe(false);
    const cancelled = await (
      await h.postForm("/picker/pick", { oauth_token: token, origin: "http://127.0.0.1:9", action: "cancel" })
    ).text();
    expect(cancelled).toContain('"action":"cancel"');
  });
});

describe("values", () => {
  async function sheet(values: unknown[][]) {
    h = await startGoogle();
    const { access_token: token } = await h.connect();
    const created = await h.api<Json>("/v4/spreadsheets", token, { body: { properties: { title: "T" } } });
    const id = created.json.spreadsheetId as string;
    if (values.length) await h.api(`/v4/spreadsheets/${id}/values/A1?valueInputOption=RAW`, token, { method: "PUT", body: { values } });
    return { token, id, harness: h };
  }

  it("reports the tableRange of a table spanning several columns from a one-cell range", async () => {
    const { token, id, harness } = await sheet([
      ["Name", "Phone", "Email"],
      ["Amina", "0712", "a@example.com"],
    ]);
    const appended = await harness.api<Json>(
      `/v4/spreadsheets/${id}/values/${encodeURIComponent("Sheet1!A1")}:append?valueInputOption=RAW`,
      token,
      {
        body: { values: [["Juma", "0722", "j@example.com"]] },
      },
    );
    expect(appended.json).toMatchObject({ tableRange: "Sheet1!A1:C2", updates: { updatedRange: "Sheet1!A3:C3" } });
  });

  it("answers values:batchGet, :clear and includeValuesInResponse as Google does", async () => {
    const { token, id, harness } = await sheet([
      ["Name", "Phone"],
      ["Amina", 712],
    ]);
    const batch = await harness.api<Json>(
      `/v4/spreadsheets/${id}/values:batchGet?ranges=${encodeURIComponent("Sheet1!A1:A2")}&ranges=B2&valueRenderOption=UNFORMATTED_VALUE`,
      token,
    );
    expect(batch.json).toEqual({
      spreadsheetId: id,
      valueRanges: [
        { range: "Sheet1!A1:A2", majorDimension: "ROWS", values: [["Name"], ["Amina"]] },
        { range: "Sheet1!B2:B2", majorDimension: "ROWS", values: [[712]] },
      ],
    });
    const updated = await harness.api<Json>(
      `/v4/spreadsheets/${id}/values/C1?valueInputOption=USER_ENTERED&includeValuesInResponse=true`,
      token,
      {
        method: "PUT",
        body: { values: [["Opted in"], ["true"]] },
      },
    );
    expect(updated.json.updatedData).toEqual({ range: "Sheet1!C1:C2", majorDimension: "ROWS", values: [["Opted in"], ["TRUE"]] });
    const appended = await harness.api<Json>(
      `/v4/spreadsheets/${id}/values/A1:append?valueInputOption=RAW&includeValuesInResponse=true&responseValueRenderOption=UNFORMATTED_VALUE`,
      token,
      { body: { values: [["Juma", 722]] } },
    );
    expect(appended.json.updates.updatedData).toEqual({ range: "Sheet1!A3:B3", majorDimension: "ROWS", values: [["Juma", 722]] });
    const withoutData = await harness.api<Json>(`/v4/spreadsheets/${id}/values/A1:append?valueInputOption=RAW`, token, {
      body: { values: [["x"]] },
    });
    expect(withoutData.json.updates.updatedData).toBeUndefined();
    const cleared = await harness.api<Json>(`/v4/spreadsheets/${id}/values/${encodeURIComponent("Sheet1!A3:B4")}:clear`, token, {
      body: {},
    });
    expect(cleared.json).toEqual({ spreadsheetId: id, clearedRange: "Sheet1!A3:B4" });
    expect(harness.sandbox.values(id)).toEqual([
      ["Name", "Phone", "Opted in"],
      ["Amina", 712, true],
    ]);
  });

  it("honours fields= as a partial response, and refuses a selector it cannot read", async () => {
    const { token, id, harness } = await sheet([["a"]]);
    const meta = await harness.api<Json>(
      `/v4/spreadsheets/${id}?fields=${encodeURIComponent("spreadsheetId,properties.title,sheets.properties(sheetId,title)")}`,
      token,
    );
    expect(meta.json).toEqual({ spreadsheetId: id, properties: { title: "T" }, sheets: [{ properties: { sheetId: 0, title: "Sheet1" } }] });
    const nested = await harness.api<Json>(`/v4/spreadsheets/${id}?fields=${encodeURIComponent("sheets/properties/title")}`, token);
    expect(nested.json).toEqual({ sheets: [{ properties: { title: "Sheet1" } }] });
    const appended = await harness.api<Json>(
      `/v4/spreadsheets/${id}/values/A1:append?valueInputOption=RAW&fields=updates(updatedRange)`,
      token,
      {
        body: { values: [["b"]] },
      },
    );
    expect(appended.json).toEqual({ updates: { updatedRange: "Sheet1!A2:A2" } });
    const bad = await harness.api<Json>(`/v4/spreadsheets/${id}?fields=${encodeURIComponent("sheets(properties")}`, token);
    expect(bad.status).toBe(400);
    expect(bad.json.error.status).toBe("INVALID_ARGUMENT");
    // An error answer stays whole.
    expect((await harness.api(`/v4/spreadsheets/nope?fields=spreadsheetId`, token)).json).toEqual(NOT_FOUND);
  });
});

describe("tokeninfo", () => {
  it("takes the token posted in a form, in the query string, or as a Bearer header", async () => {
    h = await startGoogle();
    const { access_token: token } = await h.connect();
    const posted = await h.postForm("/tokeninfo", { access_token: token });
    expect(posted.status).toBe(200);
    expect(await posted.json()).toMatchObject({ aud: CLIENT_ID, scope: "https://www.googleapis.com/auth/drive.file" });
    expect((await fetch(`${h.base}/tokeninfo?access_token=${token}`)).status).toBe(200);
    const bearer = await fetch(`${h.base}/tokeninfo`, { method: "POST", headers: { Authorization: `Bearer ${token}` } });
    expect(bearer.status).toBe(200);
    const bad = await h.postForm("/tokeninfo", { access_token: "ya29.nope" });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: "invalid_token", error_description: "Invalid Value" });
    void OWNER;
  });
});
