import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { parseEnv, setEnv } from "~/.server/infrastructure/config/env";
import { drainJobs } from "~/.server/infrastructure/jobs/worker";
import { googleSheetsClient, type GoogleSheetsClient } from "~/.server/infrastructure/clients/google-sheets";
import { registerJobHandlers } from "~/.server/composition/job-handlers";
import { registerConnectors } from "~/.server/composition/integrations";
import { setSheetsClient } from "~/.server/domains/integrations/google-sheets/google-call";
import { enqueueDueSheetsExports } from "~/.server/domains/integrations/google-sheets/settings";
import { HEADERS } from "~/.server/domains/integrations/google-sheets/export";
import * as integrationsPage from "~/routes/app/integrations/index";
import * as callbackRoute from "~/routes/app/integrations/callback";
import * as sheetsPage from "~/routes/app/integrations/google-sheets";
import * as pickerToken from "~/routes/app/integrations/google-sheets-picker";
import { IMPORT_HEADERS } from "~/.server/domains/integrations/google-sheets/settings";
import { eraseContact } from "~/.server/domains/contacts/rights";
import { CLIENT_ID, CLIENT_SECRET, OWNER, startGoogle, type GoogleHarness } from "../../sandbox/google/test-support";
import { createVerifiedUser, signedInCookie } from "../support/accounts";
import { APP, formRequest, getRequest, run } from "../support/http";

// Issue 45, decision 085: the Google Sheets connector against the Google sandbox on a free loopback
// port: connecting with PKCE, the resumable export (rows land in the sandbox's sheet, once each,
// whatever 429, 5xx, crash or expired token meets it), the import through the CSV import's checks,
// tenants kept apart, and disconnecting revoking the grant.

let h: GoogleHarness;
beforeAll(async () => {
  h = await startGoogle();
  registerJobHandlers();
  registerConnectors();
});
afterAll(() => h.close());

beforeEach(() => {
  setEnv(
    parseEnv({
      NODE_ENV: "test",
      APP_URL: APP,
      GOOGLE_CLIENT_ID: CLIENT_ID,
      GOOGLE_CLIENT_SECRET: CLIENT_SECRET,
      GOOGLE_AUTH_URL: h.base,
      GOOGLE_OAUTH_URL: h.base,
      GOOGLE_SHEETS_URL: h.base,
    }),
  );
  h.sandbox.reset();
});
afterEach(() => setSheetsClient(null));

async function tenant(name: string) {
  const account = await createVerifiedUser({ businessName: name });
  const cookie = await signedInCookie(account.email, account.password);
  return { ...account, cookie, organizationId: account.organization.id };
}
type Tenant = Awaited<ReturnType<typeof tenant>>;

const rows = <T = Record<string, unknown>>(text: string, params: unknown[] = []) => rawQuery<T>(text, params);
const sheetsGet = (t: Tenant, query = "") =>
  run(sheetsPage.loader, getRequest(`/integrations/google-sheets${query}`, { cookie: t.cookie }));
const sheetsPost = (t: Tenant, fields: Record<string, string>) =>
  run(sheetsPage.action, formRequest("/integrations/google-sheets", fields, { cookie: t.cookie }));
const actions = async (organizationId: string) =>
  (
    await rows<{ action: string }>(`select action from activity_logs where organization_id = $1 order by created_at, id`, [organizationId])
  ).map((r) => r.action);
/** Jobs put back for later (a 429's wait, a failure's backoff) made due now, as time passing would. */
const makeDue = () => rows(`update jobs set run_at = now() where finished_at is null and failed_at is null`);

/**
 * Connect as the sandbox's owner account (or another): our consent URL, the sandbox's form posted, our
 * callback. An account one organisation connected is offered to no other (issue 74).
 */
async function connect(t: Tenant, account = OWNER) {
  const started = await run(
    integrationsPage.action,
    formRequest("/integrations", { intent: "connect", integration: "google-sheets" }, { cookie: t.cookie }),
  );
  expect(started.status, JSON.stringify(started.data)).toBe(302);
  const consent = new URL(started.location!);
  expect(consent.origin + consent.pathname).toBe(`${h.base}/o/oauth2/v2/auth`);
  const params = Object.fromEntries(consent.searchParams);
  const answer = await h.postForm("/o/oauth2/v2/auth", { ...params, account, decision: "allow" });
  expect(answer.status).toBe(303);
  const back = new URL(answer.headers.get("location")!);
  expect(back.pathname).toBe("/integrations/google-sheets/callback");
  const done = await run(callbackRoute.loader, getRequest(`${back.pathname}${back.search}`, { cookie: t.cookie }), {
    params: { provider: "google-sheets" },
  });
  expect(done.status, JSON.stringify(done.data)).toBe(302);
  return params;
}

async function addContacts(t: Tenant, count: number, name = (i: number) => `Mteja ${i}`, from = 0) {
  for (let i = 0; i < count; i += 500) {
    const batch = Array.from({ length: Math.min(500, count - i) }, (_, k) => from + i + k);
    await rows(
      `insert into contacts (organization_id, name, phone, wa_id, created_at)
       select $1, n, '+2547' || lpad(x::text, 8, '0'), '2547' || lpad(x::text, 8, '0'), now() - interval '1 minute' + make_interval(secs => x / 1000.0)
       from unnest($2::text[], $3::int[]) as u(n, x)`,
      [t.organizationId, batch.map((x) => name(x - from)), batch],
    );
  }
}

async function createSpreadsheet(t: Tenant, title = "Duka Bora export") {
  const made = await sheetsPost(t, { intent: "create", title });
  expect(made.status, JSON.stringify(made.data)).toBe(302);
  const [row] = await rows<{ spreadsheet_id: string }>(`select spreadsheet_id from google_sheets_exports where organization_id = $1`, [
    t.organizationId,
  ]);
  return row!.spreadsheet_id;
}

const sheet = (id: string, tab: string) => h.sandbox.values(id, tab).map((r) => r.map(String));

/**
 * The Google Picker as the page's script drives it: Jumbe's token for it, then the sandbox's Picker
 * form posted with it and the file chosen (which grants Jumbe that file under drive.file).
 */
async function pick(t: Tenant, spreadsheetId: string) {
  const token = await run<{ oauthToken: string }>(
    pickerToken.action,
    formRequest("/integrations/google-sheets/picker-token", {}, { cookie: t.cookie }),
  );
  expect(token.status, JSON.stringify(token.data)).toBe(200);
  expect(token.headers.get("cache-control")).toBe("no-store");
  const listed = await h.postForm("/picker", { oauth_token: token.data.oauthToken, origin: APP });
  expect(await listed.text()).toContain(spreadsheetId);
  const picked = await h.postForm("/picker/pick", {
    oauth_token: token.data.oauthToken,
    origin: APP,
    spreadsheet: spreadsheetId,
    action: "picked",
  });
  expect(await picked.text()).toContain(`"id":"${spreadsheetId}"`);
}

describe("connecting", () => {
  it("asks Google's consent with PKCE, drive.file, offline access and a fresh consent, and names the account by its e-mail", async () => {
    const t = await tenant("Duka Bora Supplies");
    const params = await connect(t);
    expect(params.code_challenge_method).toBe("S256");
    expect(params.code_challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(params.scope!.split(" ")).toContain("https://www.googleapis.com/auth/drive.file");
    expect(params).toMatchObject({ access_type: "offline", prompt: "consent", client_id: CLIENT_ID });
    const [connection] = await rows<{ account_label: string; refresh_token_sealed: string | null; status: string }>(
      `select account_label, refresh_token_sealed, status from integration_connections where organization_id = $1 and provider = 'google-sheets'`,
      [t.organizationId],
    );
    expect(connection).toMatchObject({ account_label: OWNER, status: "connected" });
    expect(connection!.refresh_token_sealed).toBeTruthy();
    expect(await actions(t.organizationId)).toContain("Integration connected");
    // The settings page opens once connected and says whose account it is.
    const page = await sheetsGet(t);
    expect(page.status).toBe(200);
    expect(page.data.account).toBe(OWNER);
  });

  it("the sandbox refuses a code redeemed without the PKCE verifier", async () => {
    const code = (
      await h.consent({ code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", code_challenge_method: "S256" })
    ).searchParams.get("code")!;
    const answer = await h.token({
      grant_type: "authorization_code",
      code,
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
      redirect_uri: "http://127.0.0.1:9/integrations/google/callback",
    });
    expect(answer.status).toBe(400);
  });

  it("the settings page is 404 before connecting, and disconnecting revokes the grant at Google", async () => {
    const t = await tenant("Pwani Fresh Juices");
    expect((await sheetsGet(t)).status).toBe(404);
    await connect(t);
    expect((await h.control<{ refresh: unknown[] }>("/tokens")).json.refresh).toHaveLength(1);
    const gone = await run(
      integrationsPage.action,
      formRequest("/integrations", { intent: "disconnect", integration: "google-sheets", confirm: "yes" }, { cookie: t.cookie }),
    );
    expect(gone.status).toBe(302);
    const tokens = (await h.control<{ access: unknown[]; refresh: unknown[] }>("/tokens")).json;
    expect(tokens.refresh).toHaveLength(0);
    expect(tokens.access).toHaveLength(0);
    expect(await actions(t.organizationId)).toContain("Integration disconnected");
    expect((await sheetsGet(t)).status).toBe(404);
  });
});

describe("exporting", () => {
  it("appends contacts and the message log to the spreadsheet it created, a header once, and again only the new rows", async () => {
    const t = await tenant("Mama Mboga Groceries");
    await connect(t);
    await addContacts(t, 4, (i) => ["Wanjiru Njoroge", '=HYPERLINK("http://127.0.0.1:9")', "+254 trick", "007"][i]!);
    const [contact] = await rows<{ id: string }>(`select id from contacts where organization_id = $1 and name = 'Wanjiru Njoroge'`, [
      t.organizationId,
    ]);
    await rows(
      `insert into messages (organization_id, contact_id, direction, status, body, recipient_phone, source, created_at)
       values ($1, $2, 'outbound', 'delivered', 'Habari! Your order is ready.', '+254700000000', 'inbox', now() - interval '30 seconds'),
              ($1, $2, 'inbound', 'received', '@home -2 =1+1', null, null, now() - interval '20 seconds')`,
      [t.organizationId, contact!.id],
    );
    const id = await createSpreadsheet(t);
    const real = googleSheetsClient();
    const inputs: string[] = [];
    setSheetsClient({
      ...real,
      appendValues: (...args) => {
        inputs.push(args[4] ?? "RAW");
        return real.appendValues(...args);
      },
    });
    expect((await sheetsPost(t, { intent: "export" })).status).toBe(302);
    await drainJobs();

    const contacts = sheet(id, "Contacts");
    expect(contacts[0]).toEqual(HEADERS.contacts);
    expect(contacts.slice(1).map((r) => r[1])).toEqual(["Wanjiru Njoroge", '=HYPERLINK("http://127.0.0.1:9")', "+254 trick", "007"]);
    // RAW: a cell that looks like a formula (or a number) is stored as the text it is, never evaluated.
    const raw = h.sandbox.values(id, "Contacts");
    expect(raw[2]![1]).toBe('=HYPERLINK("http://127.0.0.1:9")');
    expect(raw[4]![1]).toBe("007");
    expect(inputs.length).toBeGreaterThan(0);
    expect(inputs.every((input) => input === "RAW")).toBe(true);
    expect(h.sandbox.calls().filter((c) => c.path.endsWith(":append")).length).toBe(inputs.length);
    const messages = sheet(id, "Messages");
    expect(messages[0]).toEqual(HEADERS.messages);
    expect(messages.slice(1).map((r) => [r[2], r[7], r[5]])).toEqual([
      ["outbound", "Habari! Your order is ready.", "Wanjiru Njoroge"],
      ["inbound", "@home -2 =1+1", "Wanjiru Njoroge"],
    ]);

    const page = await sheetsGet(t);
    expect(page.data.settings).toMatchObject({ rowsExported: 6, lastExportRows: 6, lastError: null, exportState: "idle" });
    expect(await actions(t.organizationId)).toEqual(expect.arrayContaining(["Google Sheets export queued", "Integration synced"]));

    // A second export sends only what is new, with no second header.
    await addContacts(t, 1, () => "Otieno Ouma", 100);
    await rows(`update contacts set created_at = now() - interval '1 second' where name = 'Otieno Ouma' and organization_id = $1`, [
      t.organizationId,
    ]);
    await sheetsPost(t, { intent: "export" });
    await drainJobs();
    expect(sheet(id, "Contacts").map((r) => r[1])).toEqual([
      "Name",
      "Wanjiru Njoroge",
      '=HYPERLINK("http://127.0.0.1:9")',
      "+254 trick",
      "007",
      "Otieno Ouma",
    ]);
    expect(sheet(id, "Messages")).toHaveLength(3);
  });

  it("resumes after a 429 and a 500 mid-export, and after a crash once Google took a batch, with every row once and in order", async () => {
    const t = await tenant("Nyeri Dairy Cooperative");
    await connect(t);
    await addContacts(t, 1800);
    await rows(`update google_sheets_exports set export_messages = false where organization_id = $1`, [t.organizationId]).catch(
      () => undefined,
    );
    const id = await createSpreadsheet(t);
    await sheetsPost(t, { intent: "settings", contacts: "on", schedule: "off" });

    // The client as the job uses it, with hooks: a fault queued at the sandbox before chosen appends,
    // and a "crash" (the process dying) just after Google took another.
    const real = googleSheetsClient();
    let appends = 0;
    const plan: Record<number, "429" | "500" | "crash"> = { 2: "429", 4: "500", 5: "crash" };
    const hooked: GoogleSheetsClient = {
      ...real,
      async appendValues(...args) {
        appends++;
        const step = plan[appends];
        if (step === "429" || step === "500") h.sandbox.queueFault(step);
        const answer = await real.appendValues(...args);
        if (step === "crash") throw new Error("the process died after Google took the batch");
        return answer;
      },
    };
    setSheetsClient(hooked);
    await sheetsPost(t, { intent: "export" });
    for (let round = 0; round < 10; round++) {
      await drainJobs();
      const [state] = await rows<{ export_state: string; pending: unknown }>(
        `select export_state, pending from google_sheets_exports where organization_id = $1`,
        [t.organizationId],
      );
      if (state!.export_state === "idle") break;
      // Stopped with its place kept: the last error says why, and the job waits for Google.
      expect((await sheetsGet(t)).data.settings.lastError).toBeTruthy();
      await makeDue();
    }
    const contacts = sheet(id, "Contacts");
    expect(contacts[0]).toEqual(HEADERS.contacts);
    const ids = contacts.slice(1).map((r) => r[0]);
    expect(ids).toHaveLength(1800);
    expect(new Set(ids).size).toBe(1800);
    const expected = (
      await rows<{ id: string }>(`select id::text as id from contacts where organization_id = $1 order by created_at, id`, [
        t.organizationId,
      ])
    ).map((r) => r.id);
    expect(ids).toEqual(expected);
    const settings = (await sheetsGet(t)).data.settings;
    expect(settings).toMatchObject({ rowsExported: 1800, lastError: null, exportState: "idle" });
    const log = await actions(t.organizationId);
    expect(log.filter((a) => a === "Google Sheets export paused").length).toBeGreaterThanOrEqual(2);
    // Each batch recorded once, beside its cursor.
    const [batches] = await rows<{ n: number; total: number }>(
      `select count(*)::int as n, sum(rows)::int as total from google_sheets_export_batches where organization_id = $1 and not header`,
      [t.organizationId],
    );
    expect(batches!.total).toBe(1800);
  });

  it("refreshes an access token Google expired early, and carries on", async () => {
    const t = await tenant("Kisumu Boda Riders");
    await connect(t);
    await addContacts(t, 2);
    const id = await createSpreadsheet(t);
    const [before] = await rows<{ access_token_sealed: string }>(
      `select access_token_sealed from integration_connections where organization_id = $1`,
      [t.organizationId],
    );
    expect((await h.control(`/users/${encodeURIComponent(OWNER)}/expire-tokens`, { method: "POST" })).status).toBe(200);
    await sheetsPost(t, { intent: "export" });
    await drainJobs();
    expect(sheet(id, "Contacts")).toHaveLength(3);
    const [after] = await rows<{ access_token_sealed: string; health: string }>(
      `select access_token_sealed, health from integration_connections where organization_id = $1`,
      [t.organizationId],
    );
    expect(after!.access_token_sealed).not.toBe(before!.access_token_sealed);
    expect(after!.health).toBe("healthy");
    expect(h.sandbox.calls().some((c) => c.status === 401)).toBe(true);
  });

  it("runs scheduled exports when they are due", async () => {
    const t = await tenant("Eldoret Seed Traders");
    await connect(t);
    await addContacts(t, 1);
    const id = await createSpreadsheet(t);
    expect((await sheetsPost(t, { intent: "settings", contacts: "on", messages: "on", schedule: "hourly" })).status).toBe(302);
    expect(await enqueueDueSheetsExports()).toBe(0);
    await rows(`update google_sheets_exports set next_run_at = now() - interval '1 second' where organization_id = $1`, [t.organizationId]);
    expect(await enqueueDueSheetsExports()).toBe(1);
    await drainJobs();
    expect(sheet(id, "Contacts")).toHaveLength(2);
    const [next] = await rows<{ later: boolean }>(
      `select next_run_at > now() + interval '59 minutes' as later from google_sheets_exports where organization_id = $1`,
      [t.organizationId],
    );
    expect(next!.later).toBe(true);
  });

  it("refuses bad settings in words, with nothing changed", async () => {
    const t = await tenant("Thika Hardware");
    await connect(t);
    expect((await sheetsPost(t, { intent: "export" })).status).toBe(409);
    expect((await sheetsPost(t, { intent: "create", title: "" })).status).toBe(400);
    expect((await sheetsPost(t, { intent: "create", title: "x".repeat(101) })).status).toBe(400);
    expect((await sheetsPost(t, { intent: "settings", schedule: "weekly", contacts: "on" })).status).toBe(400);
    expect((await sheetsPost(t, { intent: "settings", schedule: "daily" })).status).toBe(400);
    expect((await sheetsPost(t, { intent: "existing", spreadsheet: "not a sheet" })).status).toBe(400);
    // One without the export's tabs, and one the app may not open (drive.file).
    const plain = h.sandbox.createSpreadsheet({ title: "Price list", owner: OWNER });
    await pick(t, plain.spreadsheetId);
    const refused = await sheetsPost(t, { intent: "existing", spreadsheet: `${h.base}/spreadsheets/d/${plain.spreadsheetId}/edit` });
    expect(refused.status).toBe(422);
    expect(refused.data.toast.message).toContain("Contacts");
    const hidden = h.sandbox.createSpreadsheet({ title: "Private", owner: OWNER });
    const notGiven = await sheetsPost(t, { intent: "existing", spreadsheet: hidden.spreadsheetId });
    expect(notGiven.status).toBe(404);
    expect(notGiven.data.toast.message).toContain("Choose a spreadsheet from Google Drive");
    expect(
      (await rows(`select 1 from google_sheets_exports where organization_id = $1 and spreadsheet_id is not null`, [t.organizationId]))
        .length,
    ).toBe(0);
  });
});

describe("importing", () => {
  it("imports a sheet's contacts through the CSV import's checks: the bad row reported, the good ones stored", async () => {
    const t = await tenant("Machakos Agrovet");
    await connect(t);
    await rows(`insert into contacts (organization_id, name, phone, wa_id) values ($1, 'Already Here', '+254711000001', '254711000001')`, [
      t.organizationId,
    ]);
    const source = h.sandbox.createSpreadsheet({
      title: "Customers",
      owner: OWNER,
      values: [
        ["Name", "Phone", "Tags"],
        ["Akinyi Achieng", "0712 345 678", "vip"],
        ["No Number", "not a phone", ""],
        ["=cmd|' /C calc'!A0", "+254 733 123 456", ""],
        ["Already Here again", "0711000001", ""],
      ],
    });
    await pick(t, source.spreadsheetId);
    const started = await sheetsPost(t, {
      intent: "import",
      spreadsheet: source.spreadsheetId,
      range: "Sheet1!A:C",
      duplicates: "skip",
      consentEvidence: "Signed up at the Machakos show stand",
    });
    expect(started.status, JSON.stringify(started.data)).toBe(302);
    await drainJobs();
    const page = await sheetsGet(t);
    expect(page.data.lastImport).toMatchObject({ status: "done", created: 2, skipped: 1, invalid: 1, hasRejected: true });
    const stored = await rows<{ name: string; phone: string; tags: string[]; opt_in: string }>(
      `select name, phone, tags, opt_in from contacts where organization_id = $1 order by name`,
      [t.organizationId],
    );
    expect(stored.map((c) => [c.name, c.phone])).toEqual([
      ["=cmd|' /C calc'!A0", "+254733123456"],
      ["Akinyi Achieng", "+254712345678"],
      ["Already Here", "+254711000001"],
    ]);
    expect(stored.find((c) => c.name === "Akinyi Achieng")).toMatchObject({ tags: ["vip"], opt_in: "opted_in" });
    expect(await actions(t.organizationId)).toEqual(expect.arrayContaining(["Google Sheets import started", "Contact import started"]));
  });

  it("refuses a range it cannot read and a sheet without a phone column, in words", async () => {
    const t = await tenant("Nakuru Tailors");
    await connect(t);
    const source = h.sandbox.createSpreadsheet({ title: "Names only", owner: OWNER, values: [["Name"], ["Wambui"]] });
    await pick(t, source.spreadsheetId);
    expect(
      (await sheetsPost(t, { intent: "import", spreadsheet: source.spreadsheetId, range: "A1:;drop", duplicates: "skip" })).status,
    ).toBe(400);
    expect(
      (await sheetsPost(t, { intent: "import", spreadsheet: source.spreadsheetId, range: "Nowhere!A:C", duplicates: "skip" })).status,
    ).toBe(400);
    const noPhone = await sheetsPost(t, { intent: "import", spreadsheet: source.spreadsheetId, range: "Sheet1!A:B", duplicates: "skip" });
    expect(noPhone.status).toBe(422);
  });
});

describe("spreadsheets Jumbe was not given (drive.file, issue 73)", () => {
  it("refuses a sheet made elsewhere in words, never a 500; chosen with the Picker, the same sheet imports", async () => {
    const t = await tenant("Kisumu Fish Traders");
    await connect(t);
    const source = h.sandbox.createSpreadsheet({
      title: "Typed in Drive",
      owner: OWNER,
      values: [
        ["Name", "Phone"],
        ["Atieno", "0712 345 678"],
      ],
    });
    const refused = await sheetsPost(t, { intent: "import", spreadsheet: source.spreadsheetId, range: "Sheet1!A:B", duplicates: "skip" });
    expect(refused.status).toBe(404);
    expect(refused.data.toast.message).toBe(
      "Jumbe cannot open that spreadsheet: Google shows Jumbe only the spreadsheets it created and those you chose with “Choose a spreadsheet from Google Drive”. Choose it there, or create a new sheet here and paste its contents into it.",
    );
    expect((await rows(`select 1 from contact_imports where organization_id = $1`, [t.organizationId])).length).toBe(0);

    // The page offers the Picker (the sandbox's stand-in in sandbox mode) and explains the other way.
    const page = await sheetsGet(t);
    expect(page.data.picker).toEqual({
      mode: "sandbox",
      pickerUrl: `${h.base}/picker`,
      tokenUrl: "/integrations/google-sheets/picker-token",
    });

    await pick(t, source.spreadsheetId);
    const started = await sheetsPost(t, { intent: "import", spreadsheet: source.spreadsheetId, range: "Sheet1!A:B", duplicates: "skip" });
    expect(started.status, JSON.stringify(started.data)).toBe(302);
    await drainJobs();
    const stored = await rows<{ name: string; phone: string }>(`select name, phone from contacts where organization_id = $1`, [
      t.organizationId,
    ]);
    expect(stored).toEqual([{ name: "Atieno", phone: "+254712345678" }]);
  });

  it("creates a new sheet with the import's header row; contacts pasted under it import", async () => {
    const t = await tenant("Nyeri Dairy Co-op");
    await connect(t);
    expect((await sheetsPost(t, { intent: "import-sheet", title: "" })).status).toBe(400);
    const made = await sheetsPost(t, { intent: "import-sheet", title: "Dairy members" });
    expect(made.status, JSON.stringify(made.data)).toBe(302);
    const page = await sheetsGet(t);
    const { importSpreadsheetId: id, importSpreadsheetTitle, importSpreadsheetUrl, importRange } = page.data.settings;
    expect({ importSpreadsheetTitle, importRange }).toEqual({ importSpreadsheetTitle: "Dairy members", importRange: "Contacts!A:E" });
    expect(importSpreadsheetUrl).toBe(`${h.base}/spreadsheets/d/${id}/edit`);
    expect(sheet(id, "Contacts")).toEqual([IMPORT_HEADERS]);
    // The export's spreadsheet is not touched.
    expect(page.data.settings.spreadsheetId).toBeNull();
    await h.control(`/spreadsheets/${id}/append`, {
      body: { range: "Contacts", values: [["Wairimu", "0722 111 222", "dairy", "sw", ""]] },
    });
    const started = await sheetsPost(t, { intent: "import", spreadsheet: id, range: importRange, duplicates: "skip" });
    expect(started.status, JSON.stringify(started.data)).toBe(302);
    await drainJobs();
    const stored = await rows<{ name: string; tags: string[]; language: string }>(
      `select name, tags, language from contacts where organization_id = $1`,
      [t.organizationId],
    );
    expect(stored).toEqual([{ name: "Wairimu", tags: ["dairy"], language: "sw" }]);
    expect(await actions(t.organizationId)).toContain("Google Sheets import sheet created");
  });

  it("hands the Picker's token only to those who may change the integration, of a connected organisation", async () => {
    const t = await tenant("Embu Hardware");
    const notConnected = await run(pickerToken.action, formRequest("/integrations/google-sheets/picker-token", {}, { cookie: t.cookie }));
    expect(notConnected.status).toBe(404);
    await connect(t);
    const anonymous = await run(pickerToken.action, formRequest("/integrations/google-sheets/picker-token", {}));
    expect(anonymous.status).toBe(401);
    expect((await run(pickerToken.loader, getRequest("/integrations/google-sheets/picker-token", { cookie: t.cookie }))).status).toBe(405);
  });
});

describe("erasing a person (issue 74)", () => {
  it("blanks their personal cells in the exported rows, keeps everyone else's and column A, and logs it", async () => {
    const t = await tenant("Nanyuki Dairy");
    await connect(t);
    await addContacts(t, 2, (i) => ["Halima Said", "Omari Juma"][i]!);
    const people = await rows<{ id: string; name: string }>(`select id, name from contacts where organization_id = $1 order by name`, [
      t.organizationId,
    ]);
    const halima = people.find((p) => p.name === "Halima Said")!;
    const omari = people.find((p) => p.name === "Omari Juma")!;
    await rows(
      `insert into messages (organization_id, contact_id, direction, status, body, created_at)
       values ($1, $2, 'inbound', 'received', 'Nataka lita tano', now() - interval '30 seconds'),
              ($1, $3, 'inbound', 'received', 'Bei ya maziwa?', now() - interval '20 seconds')`,
      [t.organizationId, halima.id, omari.id],
    );
    const id = await createSpreadsheet(t);
    expect((await sheetsPost(t, { intent: "export" })).status).toBe(302);
    await drainJobs();
    expect(sheet(id, "Contacts").map((r) => r[1])).toEqual(["Name", "Halima Said", "Omari Juma"]);

    const copies = await eraseContact({ organizationId: t.organizationId, userId: t.user.id }, halima.id);
    expect(copies).toEqual([{ tool: "Google Sheets", where: "Duka Bora export", outcome: "removing" }]);
    await drainJobs();

    const contacts = sheet(id, "Contacts");
    expect(contacts[1]![0]).toBe(halima.id);
    expect(contacts[1]!.slice(1, 6).join("")).toBe("");
    expect(contacts[2]!.slice(0, 2)).toEqual([omari.id, "Omari Juma"]);
    const messages = sheet(id, "Messages");
    const cell = (r: string[], i: number) => r[i] ?? "";
    expect(messages.map((r) => [cell(r, 2), cell(r, 4), cell(r, 5), cell(r, 7)])).toEqual([
      ["Direction", "Phone", "Contact", "Body"],
      ["inbound", "", "", ""],
      ["inbound", expect.any(String), "Omari Juma", "Bei ya maziwa?"],
    ]);
    expect(messages[1]![0]).toMatch(/^[0-9a-f-]{36}$/);
    const [logged] = await rows<{ status: string; details: string }>(
      `select status, details from activity_logs where organization_id = $1 and action = 'Erasure sent to connected tools'`,
      [t.organizationId],
    );
    expect(logged).toEqual({
      status: "success",
      details: "Google Sheets: the personal cells of 2 exported rows blanked in Duka Bora export",
    });
  });
});

describe("tenants", () => {
  it("never sees another organisation's import, settings or sheet", async () => {
    const a = await tenant("Kilifi Coconut Co");
    const b = await tenant("Lamu Dhow Tours");
    await connect(a);
    // B's own Google account: A's is not offered to B's organisation (issue 74).
    await connect(b, "admin@pwanitours.co.ke");
    const source = h.sandbox.createSpreadsheet({
      title: "A's customers",
      owner: OWNER,
      values: [
        ["Name", "Phone"],
        ["Zawadi", "0722000111"],
      ],
    });
    await pick(a, source.spreadsheetId);
    await sheetsPost(a, { intent: "import", spreadsheet: source.spreadsheetId, range: "Sheet1!A:B", duplicates: "skip" });
    const [imported] = await rows<{ id: string }>(`select id from contact_imports where organization_id = $1`, [a.organizationId]);
    expect((await sheetsGet(a, `?import=${imported!.id}`)).status).toBe(200);
    expect((await sheetsGet(b, `?import=${imported!.id}`)).status).toBe(404);
    expect((await sheetsGet(b)).data.lastImport).toBeNull();
    await createSpreadsheet(a, "Kilifi export");
    expect((await sheetsGet(b)).data.settings.spreadsheetId).toBeNull();
  });

  it("lets viewers nowhere and members read only", async () => {
    const t = await tenant("Garissa Livestock Traders");
    await connect(t);
    const anonymous = await run(sheetsPage.action, formRequest("/integrations/google-sheets", { intent: "export" }));
    expect(anonymous.status).toBe(302);
    expect(anonymous.location).toContain("/login");
  });
});
