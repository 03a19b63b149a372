import { afterEach, describe, expect, it } from "vitest";
import express from "express";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { BODY_LIMITS, bodyLimitFor, limitRequestBodies } from "~/.server/infrastructure/http/body-limit";
import { text } from "node:stream/consumers";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { phoneHash, saveContact } from "~/.server/domains/contacts/manage";
import {
  getImport,
  IMPORT_BATCH_ROWS,
  IMPORT_MAX_BYTES,
  IMPORT_QUEUE,
  openRejectedRows,
  runImport,
  setAfterImportBatch,
  startImport,
  suggestMapping,
  uploadImport,
  type ImportSettings,
} from "~/.server/domains/contacts/import";
import { exportFilter, openContactsCsv } from "~/.server/domains/contacts/export";
import { registerJobHandlers } from "~/.server/composition/job-handlers";
import { runJobBatch } from "~/.server/infrastructure/jobs/worker";
import { createVerifiedUser } from "../support/accounts";
import { isRefusal } from "~/.server/infrastructure/refusal";

// Issue 13's CSV import: the upload refuses what is not CSV (or too large) keeping nothing, the
// mapping is checked, the job applies rows in batches with their counts, duplicates follow the
// policy within the file and against the book, erased numbers need consent, a crash resumes
// without counting twice, and the rejected rows come back with their reasons.

registerJobHandlers();

async function tenant(name: string) {
  const user = await createVerifiedUser({ businessName: name });
  return { organizationId: user.organization.id, userId: user.user.id };
}

const BOUNDARY = "----jumbe-test-boundary";

/** A multipart/form-data body with one file part, streamed in small chunks. */
function form(file: string | Buffer, fileName = "contacts.csv", chunk = 4096) {
  const bytes = Buffer.concat([
    Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${fileName}"\r\nContent-Type: text/csv\r\n\r\n`),
    typeof file === "string" ? Buffer.from(file, "utf8") : file,
    Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
  ]);
  let at = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(new Uint8Array(bytes.subarray(at, at + chunk)));
      at += chunk;
    },
  });
  return { body, boundary: BOUNDARY };
}

async function refusal(work: Promise<unknown>) {
  try {
    await work;
  } catch (error) {
    if (isRefusal(error, "import")) return { status: error.status, message: error.message };
    throw error;
  }
  throw new Error("it was accepted");
}

const storedImports = async () => (await rawQuery<{ n: number }>(`select count(*)::int as n from contact_imports`))[0]!.n;

/** Uploads, maps, runs the job to its end; answers the import and its rejected rows' CSV. */
async function importFile(
  actor: { organizationId: string; userId: string },
  csv: string | Buffer,
  settings: Partial<ImportSettings> & { mapping?: Record<string, string> } = {},
) {
  const uploaded = await uploadImport(actor, form(csv));
  const mapping = settings.mapping ?? suggestMapping(uploaded.columns, new Map());
  await startImport(actor, uploaded.id, { duplicates: "skip", ...settings, mapping });
  while (await runJobBatch(IMPORT_QUEUE));
  const done = await getImport(actor.organizationId, uploaded.id);
  const rejected = done.hasRejected ? await text((await openRejectedRows(actor.organizationId, done.id)).stream) : "";
  return { done, rejected };
}

const book = (organizationId: string) =>
  rawQuery<{ name: string; phone: string; tags: string[]; attributes: Record<string, unknown>; language: string | null; opt_in: string }>(
    `select name, phone, tags, attributes, language, opt_in from contacts where organization_id = $1 order by phone`,
    [organizationId],
  );

afterEach(() => setAfterImportBatch(undefined));

describe("upload", () => {
  it("reads the header and suggests a mapping", async () => {
    const actor = await tenant("Header Ltd");
    const uploaded = await uploadImport(actor, form("\uFEFFJina;Simu;Tags\r\nAmina;0712345678;vip\r\n", "/home/me/wateja.csv"));
    expect(uploaded).toMatchObject({ fileName: "wateja.csv", columns: ["Jina", "Simu", "Tags"], status: "uploaded" });
    expect(suggestMapping(uploaded.columns, new Map())).toEqual({ Jina: "name", Simu: "phone", Tags: "tags" });
    const [activity] = await rawQuery<{ action: string }>(`select action from activity_logs where organization_id = $1`, [
      actor.organizationId,
    ]);
    expect(activity!.action).toBe("Contact import uploaded");
  });

  it("refuses a file that is not CSV, an empty one and one without rows, keeping nothing", async () => {
    const actor = await tenant("Refusals Ltd");
    const cases: [string | Buffer, RegExp][] = [
      [Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x06, 0x00]), /Excel workbook/],
      [Buffer.concat([Buffer.from("name,phone\nA,1\n"), Buffer.alloc(64)]), /NUL bytes/],
      ["", /empty/],
      ["name,phone\n", /no rows/],
      ['name,phone\n"A,0712\n', /never closed/],
      ["phone,Phone\n1,2\n", /twice/],
    ];
    for (const [file, message] of cases) {
      const refused = await refusal(uploadImport(actor, form(file)));
      expect(refused.status).toBe(422);
      expect(refused.message).toMatch(message);
    }
    expect(await storedImports()).toBe(0);
  });

  it("answers 413 for a file over the cap, keeping nothing", async () => {
    const actor = await tenant("Large Ltd");
    const big = Buffer.alloc(IMPORT_MAX_BYTES + 1024, `Amina,${"0712345678".repeat(800)}\n`);
    const refused = await refusal(uploadImport(actor, form(Buffer.concat([Buffer.from("name,phone\n"), big]), "big.csv", 1 << 20)));
    expect(refused).toEqual({ status: 413, message: expect.stringMatching(/larger than 50 MB/) });
    expect(await storedImports()).toBe(0);
  });

  it("raises the body limit for the upload page only, and answers a declared larger body 413 with what to do, reading nothing", async () => {
    expect(bodyLimitFor("/messaging/contacts/import")).toBe(BODY_LIMITS.contactImport);
    expect(bodyLimitFor("/Messaging/Contacts/Import.data")).toBe(BODY_LIMITS.contactImport);
    expect(bodyLimitFor("/messaging/contacts/import/6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f")).toBe(BODY_LIMITS.default);
    expect(BODY_LIMITS.contactImport).toBeGreaterThan(IMPORT_MAX_BYTES);
    const app = express();
    let reached = false;
    app.use(limitRequestBodies());
    app.post("/messaging/contacts/import", (_req, res) => {
      reached = true;
      res.end("ok");
    });
    const server = await new Promise<http.Server>((resolve) => {
      const s = app.listen(0, "127.0.0.1", () => resolve(s));
    });
    try {
      const { port } = server.address() as AddressInfo;
      const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = http.request(
          {
            host: "127.0.0.1",
            port,
            path: "/messaging/contacts/import",
            method: "POST",
            headers: { "Content-Length": String(IMPORT_MAX_BYTES * 2), Accept: "text/html" },
          },
          (res) => {
            let body = "";
            res.on("data", (c: Buffer) => (body += c.toString("utf8")));
            res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
          },
        );
        req.on("error", reject);
        req.write("name,phone\n");
      });
      expect(answer.status).toBe(413);
      expect(answer.body).toContain("The file is larger than 50 MB. Split it into smaller files and import each.");
      expect(reached).toBe(false);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("refuses a form without a file", async () => {
    const actor = await tenant("No File Ltd");
    expect((await refusal(uploadImport(actor, form("", "")))).message).toMatch(/Choose a CSV file/);
    expect((await refusal(uploadImport(actor, { body: null, boundary: undefined }))).status).toBe(400);
  });
});

describe("mapping", () => {
  it("needs the phone mapped and known targets, once each", async () => {
    const actor = await tenant("Mapping Ltd");
    const uploaded = await uploadImport(actor, form("name,phone,city\nA,0712345678,Nairobi\n"));
    const start = (mapping: Record<string, string>) => refusal(startImport(actor, uploaded.id, { mapping, duplicates: "skip" }));
    expect((await start({ name: "name" })).message).toMatch(/phone number/);
    expect((await start({ phone: "phone", city: "attr:city" })).message).toMatch(/not a contact field/);
    expect((await start({ phone: "phone", name: "phone" })).message).toMatch(/map each field once/);
    expect((await start({ phone: "phone", nope: "name" })).message).toMatch(/no column/);
    expect(await refusal(startImport(actor, uploaded.id, { mapping: { phone: "phone" }, duplicates: "all" as never }))).toMatchObject({
      status: 422,
    });
    await startImport(actor, uploaded.id, { mapping: { phone: "phone", name: "name", city: "" }, duplicates: "skip" });
    expect((await refusal(startImport(actor, uploaded.id, { mapping: { phone: "phone" }, duplicates: "skip" }))).status).toBe(409);
  });

  it("keeps tenants apart: another tenant's import id is 404", async () => {
    const a = await tenant("Tenant A");
    const b = await tenant("Tenant B");
    const uploaded = await uploadImport(a, form("name,phone\nA,0712345678\n"));
    expect((await refusal(getImport(b.organizationId, uploaded.id))).status).toBe(404);
    expect((await refusal(startImport(b, uploaded.id, { mapping: { phone: "phone" }, duplicates: "skip" }))).status).toBe(404);
    expect((await refusal(openRejectedRows(b.organizationId, uploaded.id))).status).toBe(404);
    expect((await refusal(getImport(a.organizationId, "not-a-uuid"))).status).toBe(404);
    expect((await getImport(a.organizationId, uploaded.id)).status).toBe("uploaded");
  });
});

describe("the import job", () => {
  it("imports quoted fields, Swahili names and emoji, Excel's semicolons, attributes and languages", async () => {
    const actor = await tenant("Quoting Ltd");
    await rawQuery(
      `insert into contact_attributes (organization_id, key, label, type) values ($1, 'city', 'City', 'text'), ($1, 'age', 'Age', 'number')`,
      [actor.organizationId],
    );
    const csv =
      '\uFEFFName;Phone;Tags;Lugha;City;Age;Notes\r\n"Wanjiku; Mary";0712 345 678;"vip,mteja";sw;"Nairobi, CBD";34;"Line one\r\nline ""two"""\r\nMũthoni 🌍;+254 722 000 000;;English;Mombasa;;\r\n';
    const { done, rejected } = await importFile(actor, csv, {
      mapping: { Name: "name", Phone: "phone", Tags: "tags", Lugha: "language", City: "attr:city", Age: "attr:age", Notes: "notes" },
    });
    expect(done).toMatchObject({ status: "done", created: 2, updated: 0, skipped: 0, invalid: 0, hasRejected: false });
    expect(rejected).toBe("");
    const rows = await rawQuery<{ name: string; phone: string; tags: string[]; attributes: object; language: string; notes: string }>(
      `select name, phone, tags, attributes, language, notes from contacts where organization_id = $1 order by phone`,
      [actor.organizationId],
    );
    expect(rows).toEqual([
      {
        name: "Wanjiku; Mary",
        phone: "+254712345678",
        tags: ["vip", "mteja"],
        attributes: { city: "Nairobi, CBD", age: 34 },
        language: "sw",
        notes: 'Line one\r\nline "two"',
      },
      { name: "Mũthoni 🌍", phone: "+254722000000", tags: [], attributes: { city: "Mombasa" }, language: "en", notes: null },
    ]);
  });

  it("rejects bad rows with their reasons, in a CSV to download", async () => {
    const actor = await tenant("Bad Rows Ltd");
    await rawQuery(`insert into contact_attributes (organization_id, key, label, type) values ($1, 'age', 'Age', 'number')`, [
      actor.organizationId,
    ]);
    const csv = [
      "name,phone,age,language",
      "Good,0712345678,30,sw",
      "No Phone,,30,",
      "Bad Phone,12345,,",
      "Bad Age,0722000001,thirty,",
      "Bad Lang,0722000002,,fr",
      `${"x".repeat(130)},0722000003,,`,
      "Extra,0722000004,,,surprise",
      "=cmd(),0722000005,,",
    ].join("\n");
    const { done, rejected } = await importFile(actor, csv, {
      mapping: { name: "name", phone: "phone", age: "attr:age", language: "language" },
    });
    expect(done).toMatchObject({ created: 2, invalid: 6, hasRejected: true });
    const lines = rejected
      .replace(/^\uFEFF/, "")
      .trim()
      .split("\r\n");
    expect(lines[0]).toBe('"Line","name","phone","age","language","Reason"');
    expect(lines.slice(1).map((l) => l.split(",")[0])).toEqual(['"3"', '"4"', '"5"', '"6"', '"7"', '"8"']);
    expect(lines[1]).toMatch(/No phone number/);
    expect(lines[2]).toMatch(/phone number/i);
    expect(lines[3]).toMatch(/Age: ""thirty"" is not a number/);
    expect(lines[4]).toMatch(/not en \(English\) or sw/);
    expect(lines[5]).toMatch(/at most 120 characters/);
    expect(lines[6]).toMatch(/5 cells; the header names 4/);
    // A name that looks like a formula is stored as written, and its contact exists.
    expect((await book(actor.organizationId)).map((c) => c.name)).toEqual(["Good", "=cmd()"]);
  });

  const DUPLICATES = "name,phone,tags,language\nAmina,0712345678,a,\nAmina Two,+254712345678,b,sw\nOtieno,0722000000,c,\n";

  for (const [policy, expected] of [
    [
      "skip",
      {
        counts: { created: 1, updated: 0, skipped: 3 },
        amina: { name: "Old Amina", tags: ["old"], language: null },
        otieno: { name: "Otieno", tags: ["c"] },
      },
    ],
    [
      "update",
      {
        counts: { created: 1, updated: 3, skipped: 0 },
        amina: { name: "Amina Two", tags: ["b"], language: "sw" },
        otieno: { name: "Otieno", tags: ["c"] },
      },
    ],
    [
      "merge_tags",
      {
        counts: { created: 1, updated: 3, skipped: 0 },
        amina: { name: "Old Amina", tags: ["old", "a", "b"], language: null },
        otieno: { name: "Otieno", tags: ["c"] },
      },
    ],
  ] as const) {
    it(`duplicates within the file and against the book: ${policy}`, async () => {
      const actor = await tenant(`Dup ${policy}`);
      await saveContact(actor, { name: "Old Amina", phone: "0712345678", tags: ["old"] });
      // Otieno appears twice in the file, new to the book.
      const { done } = await importFile(actor, `${DUPLICATES}Otieno Again,0722 000 000,,\n`, { duplicates: policy });
      expect(done).toMatchObject({ ...expected.counts, invalid: 0 });
      const [amina, otieno] = await book(actor.organizationId);
      expect(amina).toMatchObject(expected.amina);
      if (policy === "update") expect(otieno).toMatchObject({ name: "Otieno Again", tags: ["c"] });
      else expect(otieno).toMatchObject(expected.otieno);
    });
  }

  it("refuses erased numbers unless consent is given, which every imported contact then records", async () => {
    const actor = await tenant("Erased Ltd");
    await rawQuery(`insert into contact_tombstones (organization_id, phone_hash) values ($1, $2)`, [
      actor.organizationId,
      phoneHash(actor.organizationId, "+254712345678"),
    ]);
    const csv = "name,phone\nErased,0712345678\nNew,0722000000\n";
    const first = await importFile(actor, csv);
    expect(first.done).toMatchObject({ created: 1, invalid: 1 });
    expect(first.rejected).toMatch(/erased at the person's request/);
    expect((await book(actor.organizationId)).map((c) => c.phone)).toEqual(["+254722000000"]);

    const second = await importFile(actor, csv, { duplicates: "update", consentEvidence: "Signed paper forms, Nairobi branch, May 2026" });
    expect(second.done).toMatchObject({ created: 1, updated: 1, invalid: 0 });
    const contacts = await book(actor.organizationId);
    expect(contacts.map((c) => [c.phone, c.opt_in])).toEqual([
      ["+254712345678", "opted_in"],
      ["+254722000000", "opted_in"],
    ]);
    const events = await rawQuery<{ source: string; evidence: string; recorded_by: string }>(
      `select source, evidence, recorded_by from consent_events where organization_id = $1`,
      [actor.organizationId],
    );
    expect(events).toHaveLength(2);
    for (const e of events)
      expect(e).toEqual({ source: "import", evidence: "Signed paper forms, Nairobi branch, May 2026", recorded_by: actor.userId });
  });

  it("resumes after a crash mid-import without counting or writing anything twice", async () => {
    const actor = await tenant("Crash Ltd");
    const rows = ["name,phone"];
    const total = IMPORT_BATCH_ROWS * 2 + 500;
    for (let i = 0; i < total; i++)
      rows.push(i % 100 === 7 ? `Bad ${i},not-a-number` : `Person ${i},+2547${String(10_000_000 + i).padStart(8, "0")}`);
    const uploaded = await uploadImport(actor, form(rows.join("\r\n")));
    await startImport(actor, uploaded.id, { mapping: { name: "name", phone: "phone" }, duplicates: "skip", consentEvidence: "Web form" });
    setAfterImportBatch((batch) => {
      if (batch === 1) throw new Error("crash after the first batch");
    });
    await expect(runImport(uploaded.id)).rejects.toThrow(/crash/);
    const halfway = await getImport(actor.organizationId, uploaded.id);
    expect(halfway).toMatchObject({ status: "running", created: IMPORT_BATCH_ROWS - 10, invalid: 10 });
    expect(halfway.bytesRead).toBeGreaterThan(0);
    expect(halfway.bytesRead).toBeLessThan(halfway.size);
    setAfterImportBatch(undefined);
    await runImport(uploaded.id);
    const done = await getImport(actor.organizationId, uploaded.id);
    const invalid = Math.ceil((total - 7) / 100);
    expect(done).toMatchObject({ status: "done", created: total - invalid, updated: 0, skipped: 0, invalid, bytesRead: done.size });
    const counted = await rawQuery<{ contacts: number; events: number }>(
      `select (select count(*)::int from contacts where organization_id = $1) as contacts,
              (select count(*)::int from consent_events where organization_id = $1) as events`,
      [actor.organizationId],
    );
    expect(counted[0]).toEqual({ contacts: total - invalid, events: total - invalid });
    // The rejected rows' file holds every invalid row once, the first batch's included.
    const rejected = await text((await openRejectedRows(actor.organizationId, uploaded.id)).stream);
    expect(rejected.trim().split("\r\n")).toHaveLength(invalid + 1);
    // Running it again changes nothing.
    await runImport(uploaded.id);
    expect(await getImport(actor.organizationId, uploaded.id)).toEqual(done);
  });
});

describe("export", () => {
  const read = async (stream: ReadableStream<Uint8Array>) => Buffer.from(await new Response(stream).arrayBuffer()).toString("utf8");

  it("streams the filter's contacts formula-safe, with a BOM, tags and custom fields; another tenant's stay out", async () => {
    const actor = await tenant("Export Ltd");
    const other = await tenant("Other Ltd");
    await rawQuery(`insert into contact_attributes (organization_id, key, label, type) values ($1, 'city', 'City', 'text')`, [
      actor.organizationId,
    ]);
    await saveContact(actor, {
      name: '=HYPERLINK("http://evil")',
      phone: "0712345678",
      tags: ["vip", "mteja"],
      attributes: { city: "@Nairobi" },
    });
    await saveContact(actor, { name: 'Amina "Mama" Otieno, 🌍', phone: "0722000000", tags: ["vip"], notes: "line one\nline two" });
    await saveContact(actor, { name: "Not VIP", phone: "0733000000" });
    await saveContact(other, { name: "Someone Else", phone: "0712345678", tags: ["vip"] });

    const csv = await read(await openContactsCsv(actor.organizationId, exportFilter(new URLSearchParams("tag=vip")).filter));
    expect(csv.startsWith("\uFEFF")).toBe(true);
    const lines = csv.slice(1).split("\r\n");
    expect(lines[0]).toBe('"Name","Phone","Tags","Opt-in","Language","Notes","Last seen","Created","City"');
    expect(lines[1]).toMatch(
      /^"'=HYPERLINK\(""http:\/\/evil""\)","'\+254712345678","vip, mteja","Not asked","","","","[^"]+","'@Nairobi"$/,
    );
    expect(csv).toContain('"Amina ""Mama"" Otieno, 🌍","\'+254722000000","vip"');
    expect(csv).toContain('"line one\nline two"');
    expect(csv).not.toContain("Not VIP");
    expect(csv).not.toContain("Someone Else");
    expect(exportFilter(new URLSearchParams("q=amina&optin=opted_in&seen=bogus")).description).toBe("search “amina”, opt-in opted in");
  });

  it("round-trips: an export imports into another book as the same contacts", async () => {
    const from = await tenant("Export From");
    const to = await tenant("Import To");
    for (const t of [from, to])
      await rawQuery(`insert into contact_attributes (organization_id, key, label, type) values ($1, 'city', 'City', 'text')`, [
        t.organizationId,
      ]);
    await saveContact(from, { name: "=Wanjiku", phone: "0712345678", tags: ["vip", "mteja"], attributes: { city: "Nairobi, CBD" } });
    await saveContact(from, { name: "Otieno", phone: "+255754123456" });
    const csv = await read(await openContactsCsv(from.organizationId, {}));
    const { done } = await importFile(to, csv, { mapping: { Name: "name", Phone: "phone", Tags: "tags", City: "attr:city" } });
    expect(done).toMatchObject({ created: 2, invalid: 0 });
    const strip = (rows: Awaited<ReturnType<typeof book>>) =>
      rows.map(({ name, phone, tags, attributes }) => ({ name, phone, tags, attributes }));
    expect(strip(await book(to.organizationId))).toEqual(strip(await book(from.organizationId)));
  });
});
