import fs from "node:fs";
import path from "node:path";

/**
 * What would break behind PgBouncer in transaction pooling (decision 162): anything that lives in a
 * PostgreSQL session beyond one transaction, since the next transaction may run on another server
 * connection. Each rule names the transaction-scoped form to use instead.
 */
export const SESSION_RULES: { name: string; pattern: RegExp; instead: string }[] = [
  {
    name: "session advisory lock",
    pattern: /\bpg_(try_)?advisory_(lock|unlock)(_shared|_all)?\s*\(/gi,
    instead: "pg_advisory_xact_lock / pg_try_advisory_xact_lock (released at commit)",
  },
  {
    name: "session SET",
    // A statement that begins with SET (right after a quote or a semicolon: not an UPDATE's SET), not LOCAL.
    pattern: /[`"';]\s*set\s+(?!local\b)(?:session\s+)?[a-z_]+(?:\.[a-z_]+)?\s*(?:=|\bto\b)/gi,
    instead: "SET LOCAL inside the transaction, or ALTER ROLE ... SET for every session",
  },
  {
    name: "session set_config",
    pattern: /\bset_config\s*\([^;]*?,\s*false\s*\)/gi,
    instead: "set_config(name, value, true): to the end of the transaction",
  },
  {
    name: "RESET / DISCARD",
    // The whole statement (a quote or semicolon after it): not a sentence that begins "Reset".
    pattern: /[`"';]\s*(?:reset\s+[a-z_.]+|discard\s+(?:all|plans|sequences|temp|temporary))\s*[`"';]/gi,
    instead: "SET LOCAL, which ends with the transaction",
  },
  { name: "cursor WITH HOLD", pattern: /\bwith\s+hold\b/gi, instead: "a cursor closed in its transaction, or keyset pages" },
  {
    name: "temporary table kept past its transaction",
    pattern: /\bcreate\s+(?:temp|temporary)\s+table\b(?![^;`]*\bon\s+commit\s+drop\b)/gi,
    instead: "CREATE TEMP TABLE ... ON COMMIT DROP",
  },
  {
    name: "SQL-level PREPARE / DEALLOCATE",
    pattern: /[`"';]\s*(?:prepare\s+[a-z_]\w*\s*(?:\(|as\b)|deallocate\s+(?:all|prepare|[a-z_]\w*)\s*[`"';])/gi,
    instead: "a parameterised statement (the driver's unnamed one)",
  },
  {
    name: "LISTEN outside the dedicated connection",
    pattern: /[`"';]\s*(?:un)?listen\s+(?:[a-z_]\w*|\$\{)/gi,
    instead: "listenChannel() (db/pg-listener.ts: PostgreSQL's own connection, DATABASE_DIRECT_URL)",
  },
];

/** Files allowed a rule: the LISTEN connection itself, and PGlite's single connection. */
const ALLOWED: Record<string, string[]> = {
  "LISTEN outside the dedicated connection": ["app/.server/infrastructure/db/pg-listener.ts"],
};

/**
 * Settings a node-postgres Pool or Client may be given: none that PgBouncer 1.18 refuses at start-up.
 * `pipeline` is the driver's own (how it writes queries, decision 185): never sent to the server.
 */
export const DRIVER_SETTINGS = new Set(["connectionString", "max", "connectionTimeoutMillis", "idleTimeoutMillis", "pipeline"]);

export interface SessionProblem {
  file: string;
  line: number;
  rule: string;
  text: string;
}

/** The session-scoped SQL and the driver settings of one file's text. */
export function sessionProblems(file: string, text: string): SessionProblem[] {
  const problems: SessionProblem[] = [];
  const lineAt = (index: number) => text.slice(0, index).split("\n").length;
  for (const rule of SESSION_RULES) {
    if (ALLOWED[rule.name]?.includes(file)) continue;
    for (const match of text.matchAll(rule.pattern))
      problems.push({ file, line: lineAt(match.index), rule: `${rule.name}: use ${rule.instead}`, text: match[0].trim() });
  }
  // new pg.Pool({ ... }) / new pg.Client({ ... }): startup parameters (options, statement_timeout,
  // application_name...) are sent to PgBouncer, which refuses those it does not know.
  for (const match of text.matchAll(/new\s+(?:pg\.)?(?:Pool|Client)\s*\(\s*\{([^}]*)\}/g)) {
    const keys = [...match[1]!.matchAll(/(?:^|,)\s*([A-Za-z_]\w*)\s*(?=[:,]|$)/g)].map((key) => key[1]!);
    for (const key of keys.filter((each) => !DRIVER_SETTINGS.has(each)))
      problems.push({ file, line: lineAt(match.index), rule: "driver setting sent at start-up", text: key });
  }
  return problems;
}

const SOURCE = /\.(ts|tsx|mjs|js)$/;
const SKIPPED = /\.test\.(ts|tsx)$/;

/** Every source file of the application that talks to the database (tests left out: their harness uses the direct URL). */
export function applicationFiles(root: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const rel = path.posix.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== "node_modules" && entry.name !== "paraglide") walk(rel);
      } else if (SOURCE.test(entry.name) && !SKIPPED.test(entry.name)) found.push(rel);
    }
  };
  for (const folder of ["app", "scripts", "sandbox"]) walk(folder);
  found.push("server.ts");
  return found.sort();
}
