import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { drizzle } from "drizzle-orm/pglite";
import { migrate } from "drizzle-orm/pglite/migrator";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { rawStatements, type Kind, type Statement } from "./raw-sql";

// Rows the compiler can trust (issue 75, decision 127): every raw statement in app/.server is read
// from the source with the type checker, its SQL text rebuilt, and described by the migrated
// database (PGlite's describeQuery: Parse and Describe, nothing runs). A statement naming a column or
// table that is not there fails here with its file:line; so does a declared row property the
// statement does not return, or one whose type is not what the driver gives for the column.
const root = path.resolve(import.meta.dirname, "../..");

/**
 * What the drivers give for a column's type (decision 127): both drizzle drivers leave dates,
 * timestamps and intervals as text; node-postgres gives int8 and numeric as text, PGlite int8 as a
 * number, so a row claiming a number for either is wrong on one of them. Types not listed (json,
 * unknown) are not checked.
 */
const KINDS: Record<number, Kind[]> = {
  16: ["boolean"],
  17: ["object"], // bytea
  18: ["string"],
  19: ["string"],
  20: ["string"], // int8: text on PostgreSQL (a number on PGlite: a row says `string | number`)
  21: ["number"],
  23: ["number"],
  25: ["string"],
  26: ["number"],
  700: ["number"],
  701: ["number"],
  869: ["string"],
  1042: ["string"],
  1043: ["string"],
  1082: ["string"],
  1083: ["string"],
  1114: ["string"],
  1184: ["string"],
  1186: ["string"],
  1700: ["string"], // numeric: text on both
  2950: ["string"],
  1000: ["array"],
  1005: ["array"],
  1007: ["array"],
  1009: ["array"],
  1015: ["array"],
  1016: ["array"],
  1182: ["array"],
  1185: ["array"],
  1231: ["array"],
  2951: ["array"],
};

/**
 * Statements the test cannot rebuild from the source (a fragment built by a function with
 * arguments, SQL passed in from elsewhere), counted per file (a count, not lines, so an edit above
 * a statement does not move it). The list only shrinks: a file with fewer than its count fails too,
 * so the count is lowered.
 */
const UNVERIFIABLE: Record<string, number> = {
  "app/.server/adapters/webhooks-in/write.ts": 2,
  "app/.server/domains/activity/log-queries.ts": 4,
  "app/.server/domains/admin/bell/events.ts": 2,
  "app/.server/domains/admin/billing/invoice-table.ts": 1,
  "app/.server/domains/admin/overview/activity.ts": 1,
  "app/.server/domains/admin/overview/figures.ts": 2,
  "app/.server/domains/admin/templates/queries.ts": 2,
  "app/.server/domains/admin/users/detail.ts": 2,
  "app/.server/domains/admin/users/edit.ts": 1,
  "app/.server/domains/admin/users/list.ts": 3,
  "app/.server/domains/admin/users/suspension.ts": 1,
  "app/.server/domains/admin/whatsapp/accounts.ts": 2,
  "app/.server/domains/admin/whatsapp/logs.ts": 1,
  "app/.server/domains/analytics/fold.ts": 4,
  "app/.server/domains/analytics/report.ts": 3,
  "app/.server/domains/billing/charging.ts": 1,
  "app/.server/domains/billing/cycle.ts": 1,
  "app/.server/domains/campaigns/audience.ts": 3,
  "app/.server/domains/campaigns/guards.ts": 1,
  "app/.server/domains/campaigns/lifecycle.ts": 1,
  "app/.server/domains/campaigns/preview.ts": 1,
  "app/.server/domains/contacts/bulk.ts": 1,
  "app/.server/domains/contacts/consent.ts": 1,
  "app/.server/domains/contacts/export.ts": 1,
  "app/.server/domains/contacts/import.ts": 2,
  "app/.server/domains/contacts/manage.ts": 1,
  "app/.server/domains/contacts/page.ts": 2,
  "app/.server/domains/contacts/signals.ts": 1,
  "app/.server/domains/dashboard/progress.ts": 1,
  "app/.server/domains/housekeeping/sweep.ts": 1,
  "app/.server/domains/inbox/inbound.ts": 2,
  "app/.server/domains/integrations/google-sheets/export.ts": 1,
  "app/.server/domains/integrations/hubspot/contacts-out.ts": 1,
  "app/.server/domains/messaging/conversation-events.ts": 1,
  "app/.server/domains/messaging/queue-replies.ts": 1,
  "app/.server/domains/messaging/statuses.ts": 1,
  "app/.server/domains/revenue-share/read.ts": 3,
  "app/.server/domains/revenue-share/settle.ts": 1,
  "app/.server/domains/templates/queries.ts": 1,
  "app/.server/domains/webhooks-out/events.ts": 1,
  "app/.server/infrastructure/db/query.ts": 3,
};

let database: PGlite;
const found = rawStatements(root);

beforeAll(async () => {
  database = await PGlite.create("memory://", { extensions: { pg_trgm } });
  await migrate(drizzle(database), { migrationsFolder: path.join(root, "drizzle") });
});

afterAll(async () => {
  await database?.close();
});

async function describeText(text: string) {
  try {
    return { fields: (await database.describeQuery(text)).resultFields };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

/** Statements on what the test database does not have (an extension production may add). */
const NEEDS_EXTENSION = /\bpg_stat_statements\b/;

async function problemsOf(statement: Statement): Promise<string[]> {
  const problems: string[] = [];
  for (const text of statement.variants) {
    if (NEEDS_EXTENSION.test(text)) continue;
    const described = await describeText(text);
    if ("error" in described) {
      problems.push(`${statement.where}: ${described.error}\n    ${text.replace(/\s+/g, " ").slice(0, 300)}`);
      continue;
    }
    if (!statement.row) continue;
    const fields = new Map(described.fields.map((field) => [field.name, field.dataTypeID]));
    for (const property of statement.row) {
      const oid = fields.get(property.name);
      if (oid === undefined) {
        problems.push(
          `${statement.where}: the row's \`${property.name}\` is not among the columns the statement returns (${[...fields.keys()].join(", ")})`,
        );
        continue;
      }
      if (property.kinds === "any") continue;
      // An enum (a type the migrations created) reads as text.
      const gives = KINDS[oid] ?? (oid >= 16384 ? ["string"] : undefined);
      if (!gives) continue;
      if (!gives.some((kind) => property.kinds !== "any" && property.kinds.has(kind)))
        problems.push(
          `${statement.where}: the row's \`${property.name}\` is ${[...property.kinds].join(" | ")}, the driver gives ${gives.join(" | ")} (type ${oid})`,
        );
    }
  }
  return problems;
}

describe("raw SQL against the migrated schema", () => {
  test("every statement the source spells out is valid and returns the row its caller declares", { timeout: 120_000 }, async () => {
    const problems: string[] = [];
    for (const statement of found.statements) problems.push(...(await problemsOf(statement)));
    expect(problems).toEqual([]);
  });

  test("a statement the test cannot rebuild is on the list, and the list only shrinks", () => {
    const counts: Record<string, number> = {};
    for (const entry of found.unverifiable) {
      const file = entry.where.split(":")[0]!;
      counts[file] = (counts[file] ?? 0) + 1;
    }
    const over = found.unverifiable.filter(
      (entry) => (counts[entry.where.split(":")[0]!] ?? 0) > (UNVERIFIABLE[entry.where.split(":")[0]!] ?? 0),
    );
    expect(over.map((entry) => `${entry.where} (${entry.call}): ${entry.reason}`)).toEqual([]);
    expect(counts).toEqual(UNVERIFIABLE);
  });
});
