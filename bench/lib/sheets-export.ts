// The Google Sheets export benchmark's body (bench/sheets-export.mjs), run with `node --import tsx`:
// a PGlite database in a temporary directory, the Google sandbox on a free loopback port, one
// organisation connected to it with 10,000 contacts. Measures in the same run:
// - the export: runSheetsExport, the connector's own job (cursor reads, pending mark, RAW append of
//   500-row batches, batch record and cursor in one transaction), to a spreadsheet it created;
// - the bare baseline: the same rows appended to another spreadsheet by the client alone, in the
//   same 500-row batches, with no database (the sandbox's append and the HTTP call only).
// Prints one JSON line.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { parseEnv, setEnv } from "../../app/.server/infrastructure/config/env";
import { closeDatabase, openDatabase, rawQuery } from "../../app/.server/infrastructure/db/client";
import { googleSheetsClient } from "../../app/.server/infrastructure/clients/google-sheets";
import { registerConnectors } from "../../app/.server/composition/integrations";
import { saveConnection } from "../../app/.server/domains/integrations/connections";
import { createExportSpreadsheet, saveExportSettings } from "../../app/.server/domains/integrations/google-sheets/settings";
import { EXPORT_BATCH_ROWS, runSheetsExport } from "../../app/.server/domains/integrations/google-sheets/export";
import { CLIENT_ID, CLIENT_SECRET, startGoogle } from "../../sandbox/google/test-support";

const ROWS = Number(process.argv[2] ?? 10_000);
const dir = mkdtempSync(path.join(os.tmpdir(), "jumbe-sheets-bench-"));
const h = await startGoogle();
setEnv(
  parseEnv({
    NODE_ENV: "test",
    APP_URL: "http://127.0.0.1:9",
    GOOGLE_CLIENT_ID: CLIENT_ID,
    GOOGLE_CLIENT_SECRET: CLIENT_SECRET,
    GOOGLE_AUTH_URL: h.base,
    GOOGLE_OAUTH_URL: h.base,
    GOOGLE_SHEETS_URL: h.base,
    LOG_LEVEL: "error",
  }),
);
await openDatabase({ dataDir: path.join(dir, "pglite") });
registerConnectors();
try {
  const [org] = await rawQuery<{ id: string }>(
    `insert into organizations (name, business_id) values ('Nyota Hardware Bench', 'bench-sheets-' || gen_random_uuid()) returning id`,
    [],
  );
  const organizationId = org!.id;
  await rawQuery(
    `insert into contacts (organization_id, name, phone, wa_id, tags, created_at)
     select $1, 'Mteja ' || x, '+2547' || lpad(x::text, 8, '0'), '2547' || lpad(x::text, 8, '0'), array['nairobi','vip'],
            now() - interval '1 hour' + make_interval(secs => x / 1000.0)
     from generate_series(1, $2::int) as x`,
    [organizationId, ROWS],
  );
  const tokens = await h.connect();
  const actor = { organizationId, userId: null as unknown as string };
  await saveConnection(
    actor,
    "google-sheets",
    {
      accessToken: tokens.access_token,
      refreshToken: tokens.refresh_token ?? null,
      expiresAt: new Date(Date.now() + tokens.expires_in * 1000),
      scopes: tokens.scope.split(" "),
    },
    { label: "owner@dukabora.co.ke", externalId: "bench" },
    {},
  );
  await createExportSpreadsheet(actor, "Bench export");
  await saveExportSettings(actor, { exportContacts: true, exportMessages: false, schedule: "off" });

  let started = performance.now();
  const exported = await runSheetsExport(organizationId);
  const exportMs = performance.now() - started;

  // The baseline: the same cells, the client's append alone.
  const cells = (
    await rawQuery<{ id: string; name: string; phone: string; tags: string[]; created_at: Date }>(
      `select id::text as id, name, phone, tags, created_at from contacts where organization_id = $1 order by created_at, id`,
      [organizationId],
    )
  ).map((r) => [r.id, r.name, r.phone, r.tags.join(", "), "", "unknown", new Date(r.created_at).toISOString()]);
  const client = googleSheetsClient();
  const bare = await client.createSpreadsheet(tokens.access_token, "Bench baseline", ["Contacts"]);
  started = performance.now();
  for (let i = 0; i < cells.length; i += EXPORT_BATCH_ROWS)
    await client.appendValues(tokens.access_token, bare.spreadsheetId, "Contacts!A1", cells.slice(i, i + EXPORT_BATCH_ROWS), "RAW");
  const bareMs = performance.now() - started;

  const landed = h.sandbox.values(
    (await rawQuery<{ spreadsheet_id: string }>(`select spreadsheet_id from google_sheets_exports`, []))[0]!.spreadsheet_id,
    "Contacts",
  ).length;
  console.log(
    JSON.stringify({
      rows: ROWS,
      batchRows: EXPORT_BATCH_ROWS,
      exported: exported?.rows ?? 0,
      landed: landed - 1,
      exportMs: Math.round(exportMs),
      exportRowsPerSecond: Math.round((ROWS / exportMs) * 1000),
      bareMs: Math.round(bareMs),
      bareRowsPerSecond: Math.round((ROWS / bareMs) * 1000),
    }),
  );
} finally {
  await closeDatabase();
  await h.close();
  rmSync(dir, { recursive: true, force: true });
}
