import { afterEach, describe, expect, it } from "vitest";
import { OWNER, startGoogle, type GoogleHarness } from "./test-support";

let h: GoogleHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const TOKEN = "s".repeat(40);

describe("the console", () => {
  it("shows the sheets' cells, and makes a sheet from the form without JavaScript", async () => {
    h = await startGoogle();
    expect(await (await fetch(h.base)).text()).toContain("Wanjiku Kamau");
    const made = await h.postForm("/console/spreadsheets", {
      title: "Walk-in customers",
      owner: OWNER,
      rows: "Name,Phone\nJuma,0722000111",
      appAccess: "1",
    });
    expect(made.status).toBe(303);
    const listed = await h.control<{ spreadsheets: { spreadsheetId: string; title: string }[] }>("/spreadsheets");
    const sheet = listed.json.spreadsheets.find((s) => s.title === "Walk-in customers")!;
    expect(h.sandbox.values(sheet.spreadsheetId)).toEqual([
      ["Name", "Phone"],
      ["Juma", "0722000111"],
    ]);
    const page = await fetch(`${h.base}/spreadsheets/d/${sheet.spreadsheetId}/edit`);
    expect(await page.text()).toContain("0722000111");
  });

  it("asks for the sandbox token on a demo host, at its own token path; OAuth and Sheets stay open", async () => {
    h = await startGoogle({ controlToken: TOKEN });
    const gate = await fetch(h.base);
    expect(gate.status).toBe(401);
    expect(await gate.text()).toContain('action="/sandbox/google/sandbox-token"');
    expect((await h.control("/spreadsheets")).status).toBe(401);
    const tokens = await h.connect();
    expect((await h.api("/v4/spreadsheets", tokens.access_token, { body: { properties: { title: "Open" } } })).status).toBe(200);
  });
});
