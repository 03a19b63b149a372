// Raw SQL checked against the migrated schema (issue 75, decision 127), the last step of `npm run
// typecheck` and of `npm test`'s lint-and-typecheck step: every raw statement in app/.server is read
// from the source with the type checker, its SQL text rebuilt (scripts/raw-sql.ts) and described by
// a PGlite migrated from drizzle/ (Parse and Describe, nothing runs). A statement naming a column or
// table that is not there fails with its file:line; so does a declared row property the statement
// does not return, or one whose type is not what the driver gives for the column.
//
//   node --import tsx scripts/check-sql.ts        (npm run check:sql)
//
// tests/architecture/raw-sql.test.ts holds the rule's own cases, on a fixture.
import path from "node:path";
import { pathToFileURL } from "node:url";
import { PGlite } from "@electric-sql/pglite";
import { drizzle } from "drizzle-orm/pglite";
import { migrate } from "drizzle-orm/pglite/migrator";
import { rawStatements, type Kind, type Statement, type Unverifiable } from "./raw-sql";
import { pgliteExtensions } from "../app/.server/infrastructure/db/pglite-extensions";

/**
 * What the drivers give for a column's type: both drizzle drivers leave dates, timestamps and
 * intervals as text; node-postgres gives int8 and numeric as text, PGlite int8 as a number, so a row
 * claiming a number for either is wrong on one of them. Types not listed (json, unknown) are not
 * checked.
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
 * Statements the check cannot rebuild from the source (a fragment built by a function with
 * arguments, SQL passed in from elsewhere), counted per file (a count, not lines, so an edit above
 * a statement does not move it). The list only shrinks: a file with fewer than its count fails too,
 * so the count is lowered.
 */
export const UNVERIFIABLE: Record<string, number> = {
  "app/.server/domains/activity/log-queries.ts": 1,
  "app/.server/domains/admin/bell/events.ts": 2,
  "app/.server/domains/admin/billing/invoice-table.ts": 1,
  "app/.server/domains/admin/templates/queries.ts": 2,
  "app/.server/domains/admin/users/list.ts": 1,
  "app/.server/domains/admin/whatsapp/accounts.ts": 1,
  "app/.server/domains/billing/cycle.ts": 1,
  "app/.server/domains/campaigns/audience.ts": 2,
  "app/.server/domains/campaigns/lifecycle.ts": 2,
  "app/.server/domains/campaigns/preview.ts": 2,
  "app/.server/domains/contacts/bulk.ts": 1,
  "app/.server/domains/dashboard/progress.ts": 1,
  "app/.server/domains/housekeeping/sweep.ts": 1,
  "app/.server/domains/revenue-share/read.ts": 1,
  "app/.server/domains/revenue-share/settle.ts": 1,
};

/** Statements on what the check's database does not have (an extension production may add). */
const NEEDS_EXTENSION = /\bpg_stat_statements\b/;

export type Described = { fields: { name: string; dataTypeID: number }[] } | { error: string };

async function describe(database: PGlite, text: string): Promise<Described> {
  try {
    return { fields: (await database.describeQuery(text)).resultFields };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

/** What is wrong with one statement: each variant described, its fields compared with the declared row. */
export async function statementProblems(database: PGlite, statement: Statement): Promise<string[]> {
  const problems: string[] = [];
  for (const text of statement.variants) {
    if (NEEDS_EXTENSION.test(text)) continue;
    const described = await describe(database, text);
    if ("error" in described) {
      problems.push(`${statement.where}: ${described.error}\n    ${text.replace(/\s+/g, " ").trim().slice(0, 300)}`);
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
      const kinds = property.kinds;
      if (!gives.some((kind) => kinds.has(kind)))
        problems.push(
          `${statement.where}: the row's \`${property.name}\` is ${[...kinds].join(" | ")}, the driver gives ${gives.join(" | ")} (type ${oid})`,
        );
    }
  }
  return problems;
}

/** A file with more statements the check cannot rebuild than its list allows, or fewer (lower its count). */
export function unverifiableProblems(unverifiable: Unverifiable[], allowed: Record<string, number>): string[] {
  const byFile = new Map<string, Unverifiable[]>();
  for (const entry of unverifiable) {
    const file = entry.where.slice(0, entry.where.lastIndexOf(":"));
    byFile.set(file, [...(byFile.get(file) ?? []), entry]);
  }
  const problems: string[] = [];
  for (const [file, entries] of byFile) {
    const allows = allowed[file] ?? 0;
    if (entries.length > allows)
      problems.push(
        `${file}: ${entries.length} statement(s) the check cannot rebuild, UNVERIFIABLE allows ${allows}:\n` +
          entries.map((entry) => `    ${entry.where} (${entry.call}): ${entry.reason}`).join("\n"),
      );
  }
  for (const [file, allows] of Object.entries(allowed)) {
    const left = byFile.get(file)?.length ?? 0;
    if (left < allows)
      problems.push(`${file}: UNVERIFIABLE allows ${allows} statement(s) the check cannot rebuild, ${left} left: lower its count`);
  }
  return problems;
}

/** An in-memory PGlite with the project's migrations applied. */
export async function migratedDatabase(root: string): Promise<PGlite> {
  const database = await PGlite.create("memory://", { extensions: await pgliteExtensions() });
  await migrate(drizzle(database), { migrationsFolder: path.join(root, "drizzle") });
  return database;
}

export type SqlCheck = { problems: string[]; statements: number; unverifiable: number };

/** Every raw statement under `folders` of `root` described by `database`, and the list of those not rebuilt. */
export async function checkRawSql(
  root: string,
  database: PGlite,
  { folders, allowed = UNVERIFIABLE }: { folders?: string[]; allowed?: Record<string, number> } = {},
): Promise<SqlCheck> {
  const found = rawStatements(root, folders);
  const problems: string[] = [];
  for (const statement of found.statements) problems.push(...(await statementProblems(database, statement)));
  problems.push(...unverifiableProblems(found.unverifiable, allowed));
  return { problems, statements: found.statements.length, unverifiable: found.unverifiable.length };
}

async function main() {
  const started = performance.now();
  const root = path.resolve(import.meta.dirname, "..");
  const database = await migratedDatabase(root);
  const result = await checkRawSql(root, database);
  await database.close();
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  if (result.problems.length) {
    console.error(`Raw SQL that does not match the migrated schema (decision 127):\n\n${result.problems.join("\n")}\n`);
    console.error(`${result.problems.length} problem(s) in ${result.statements} statements (${seconds} s)`);
    process.exitCode = 1;
    return;
  }
  console.log(
    `raw SQL: ${result.statements} statements described by the migrated schema, ${result.unverifiable} not rebuilt (listed in scripts/check-sql.ts) in ${seconds} s`,
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) await main();
