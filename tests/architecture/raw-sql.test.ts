import { readFileSync } from "node:fs";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { checkRawSql, unverifiableProblems, type SqlCheck } from "../../scripts/check-sql";

// Rows the compiler can trust (issue 75, decision 127). The check of app/.server's raw SQL runs in
// `npm run typecheck` (scripts/check-sql.ts), once per `npm test`; here, the rule's own cases on a
// fixture of one table, so a change to the check that stops it failing fails here.
const root = path.resolve(import.meta.dirname, "../..");
const FIXTURE = "tests/architecture/raw-sql-fixture";
const fixture = readFileSync(path.join(root, FIXTURE, "statements.ts"), "utf8").split("\n");

/** The line of the fixture's first line holding `text`. */
function lineOf(text: string): number {
  const line = fixture.findIndex((each) => each.includes(text));
  if (line < 0) throw new Error(`no line holds ${text}`);
  return line + 1;
}

/** file:line of the fixture's statement marked with `// <marker>`. */
const at = (marker: string) => `${FIXTURE}/statements.ts:${lineOf(`// ${marker}`)}`;

let database: PGlite;
let check: SqlCheck;

beforeAll(async () => {
  database = await PGlite.create("memory://");
  await database.exec(
    "create table contacts (id bigserial primary key, organization_id text not null, phone text not null, created_at timestamptz not null default now())",
  );
  check = await checkRawSql(root, database, { folders: [FIXTURE], allowed: { [`${FIXTURE}/statements.ts`]: 1 } });
});

afterAll(async () => {
  await database?.close();
});

describe("raw SQL against the migrated schema (scripts/check-sql.ts)", () => {
  test("a renamed column, a row property not returned, a property of another kind and a wrong branch fail with file:line", () => {
    expect(check.problems).toEqual([
      `${at("renamed column")}: column "phone_number" does not exist\n    select id from contacts where phone_number is not null`,
      `${at("missing property")}: the row's \`total\` is not among the columns the statement returns (id)`,
      `${at("wrong kind")}: the row's \`phone\` is number, the driver gives string (type 25)`,
      `${at("one branch wrong")}: column "created_att" does not exist\n    delete from contacts where created_att < now()`,
      `${at("through a wrapper")} (the statement at ${FIXTURE}/statements.ts:${lineOf("const rows =")}): the row's \`phone_nr\` is not among the columns the statement returns (id, phone)`,
      `${at("raw text")}: column c.created_att does not exist\n    select (c.created_att at time zone 'Africa/Nairobi')::date as day from contacts c`,
      `${at("pushed list")}: column "phone_nr" does not exist\n    select id from contacts where organization_id = $1 and organization_id = $2 and phone_nr = $3`,
    ]);
    // The right statement (a value, an array of values and a const fragment inlined), both branches
    // of the conditional, the wrapper's one call, the raw text and the pushed list (its first
    // condition alone, then with every one pushed) were described; one not rebuilt.
    expect([check.statements, check.unverifiable]).toEqual([8, 1]);
  });

  test("a statement it cannot rebuild must be on the list, and the list only shrinks", () => {
    const entry = {
      where: `${FIXTURE}/statements.ts:37`,
      call: "queryRows",
      reason: "sql.raw(…) with arguments the source does not spell out",
    };
    expect(unverifiableProblems([entry], {})).toEqual([
      `${FIXTURE}/statements.ts: 1 statement(s) the check cannot rebuild, UNVERIFIABLE allows 0:\n    ${entry.where} (queryRows): ${entry.reason}`,
    ]);
    expect(unverifiableProblems([entry], { [`${FIXTURE}/statements.ts`]: 1 })).toEqual([]);
    expect(unverifiableProblems([], { [`${FIXTURE}/statements.ts`]: 1 })).toEqual([
      `${FIXTURE}/statements.ts: UNVERIFIABLE allows 1 statement(s) the check cannot rebuild, 0 left: lower its count`,
    ]);
  });
});
