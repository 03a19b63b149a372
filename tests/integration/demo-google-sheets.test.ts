import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { env, setEnv } from "~/.server/infrastructure/config/env";
import { runJobBatch } from "~/.server/infrastructure/jobs/worker";
import { registerJobHandlers } from "~/.server/composition/job-handlers";
import { registerConnectors } from "~/.server/composition/integrations";
import { DEMO_ACCOUNTS, seedDemoData } from "~/.server/demo/seed";
import { IMPORT_QUEUE } from "~/.server/domains/contacts/import";
import { importContactsFromSheet } from "~/.server/domains/integrations/google-sheets/import";
import { sheetsSettings, SHEETS_EXPORT_QUEUE } from "~/.server/domains/integrations/google-sheets/settings";
import { DEMO_IMPORT_SPREADSHEET, DEMO_SPREADSHEET } from "@jumbe/sandbox/demo-grants";
import { startGoogle, type GoogleHarness } from "../../sandbox/google/test-support";

// Issue 73, decision 109: the demo business's Google Sheets import goes through a path that works in
// production: its import sheet is one the app made ("Create a new sheet"), reachable with drive.file,
// in a sandbox that refuses every sheet the app was not given. No sheet is opened by special access.

let h: GoogleHarness;
const before = env();

beforeAll(async () => {
  const config = env();
  h = await startGoogle({ clientId: config.GOOGLE_CLIENT_ID!, clientSecret: config.GOOGLE_CLIENT_SECRET!, demo: true });
  registerJobHandlers();
  registerConnectors();
});
afterAll(async () => {
  setEnv(before);
  await h?.close();
});

describe("the demo's Google Sheets import", () => {
  it("imports the members from the sheet the app made, as production would allow", async () => {
    setEnv({ ...env(), GOOGLE_AUTH_URL: h.base, GOOGLE_OAUTH_URL: h.base, GOOGLE_SHEETS_URL: h.base });
    expect(await seedDemoData()).toBe(true);
    const [user] = await rawQuery<{ id: string; organization_id: string }>(`select id, organization_id from users where email = $1`, [
      DEMO_ACCOUNTS.find((a) => a.usertype === "individual")!.email,
    ]);
    const settings = await sheetsSettings(user!.organization_id);
    expect(settings).toMatchObject({
      importSpreadsheetId: DEMO_IMPORT_SPREADSHEET.id,
      importSpreadsheetTitle: DEMO_IMPORT_SPREADSHEET.title,
      importRange: "Contacts!A:E",
    });
    // Made by the app, not opened by a flag: the sandbox's record says so.
    const listed = await h.control<{ spreadsheets: { spreadsheetId: string; createdBy: string | null; appAccess: boolean }[] }>(
      "/spreadsheets",
    );
    expect(listed.json.spreadsheets.filter((s) => s.appAccess)).toEqual([]);
    expect(listed.json.spreadsheets.find((s) => s.spreadsheetId === DEMO_IMPORT_SPREADSHEET.id)!.createdBy).toBe(env().GOOGLE_CLIENT_ID);

    const started = await importContactsFromSheet(
      { organizationId: user!.organization_id, userId: user!.id },
      { spreadsheet: settings.importSpreadsheetId!, range: settings.importRange!, duplicates: "skip" },
    );
    while (await runJobBatch(IMPORT_QUEUE));
    const [done] = await rawQuery<{ status: string; created: number; invalid: number }>(
      `select status, created, invalid from contact_imports where id = $1`,
      [started.id],
    );
    expect(done).toMatchObject({ status: "done", created: 3, invalid: 1 });
    const members = await rawQuery<{ name: string; phone: string }>(
      `select name, phone from contacts where organization_id = $1 and phone in ('+254712480215', '+254722913604', '+254733615002') order by name`,
      [user!.organization_id],
    );
    expect(members).toEqual([
      { name: "Daniel Kiprono", phone: "+254722913604" },
      { name: "Fatuma Hassan", phone: "+254733615002" },
      { name: "Mercy Chebet", phone: "+254712480215" },
    ]);
  });
});

describe("the demo's Google Sheets export (issue 74)", () => {
  it("counts the rows Google holds: nothing before its first export, then every row the sheet got", async () => {
    setEnv({ ...env(), GOOGLE_AUTH_URL: h.base, GOOGLE_OAUTH_URL: h.base, GOOGLE_SHEETS_URL: h.base });
    await seedDemoData();
    const [user] = await rawQuery<{ organization_id: string }>(`select organization_id from users where email = $1`, [
      DEMO_ACCOUNTS.find((a) => a.usertype === "individual")!.email,
    ]);
    const organizationId = user!.organization_id;
    const dataRows = async () => {
      let n = 0;
      for (const tab of ["Contacts", "Messages"]) {
        const answer = await h.control<{ values?: unknown[][] }>(
          `/spreadsheets/${DEMO_SPREADSHEET.id}/values?range=${encodeURIComponent(`${tab}!A:A`)}`,
        );
        n += Math.max(0, (answer.json.values ?? []).length - 1);
      }
      return n;
    };
    const recorded = async () =>
      (
        await rawQuery<{ n: number }>(
          `select coalesce(sum(rows), 0)::int as n from google_sheets_export_batches where organization_id = $1 and not header`,
          [organizationId],
        )
      )[0]!.n;

    // As seeded: the page's figure is what the export recorded, and the sheet holds exactly that.
    const seeded = await sheetsSettings(organizationId);
    expect(seeded.rowsExported).toBe(await recorded());
    expect(seeded.rowsExported).toBe(await dataRows());
    // The first export is queued: it fills the sheet, and the figure follows what Google took.
    while (await runJobBatch(SHEETS_EXPORT_QUEUE));
    const exported = await sheetsSettings(organizationId);
    expect(exported.rowsExported).toBeGreaterThan(0);
    expect(exported.rowsExported).toBe(await recorded());
    expect(exported.rowsExported).toBe(await dataRows());
  }, 120_000); // Run alone, it seeds the demo itself (about 30 s on a busy machine).
});
