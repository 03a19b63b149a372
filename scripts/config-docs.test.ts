import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CONFIG_DOC, configurationTable, withCurrentTable } from "./config-docs";

describe("docs/configuration.md", () => {
  it("holds the table the environment schema makes", () => {
    const committed = readFileSync(CONFIG_DOC, "utf8");
    expect(committed, `${CONFIG_DOC} differs from the environment schema (its .describe() texts): run \`npm run docs:config\``).toBe(
      withCurrentTable(committed),
    );
  });

  it("describes every variable the schema reads, with its type and default", () => {
    const rows = configurationTable().split("\n").slice(2);
    // Every variable is a row (app/.server/infrastructure/config/env.test.ts holds the document to every name the schema reads).
    expect(rows.length).toBeGreaterThan(50);
    expect(rows.filter((row) => !/^\| `[A-Z][A-Z0-9_]+` \| [^|]/.test(row))).toEqual([]);
    expect(rows.filter((row) => row.endsWith("|  |"))).toEqual([]);
    expect(rows).toContain("| `PORT` | whole number from 0 to 65535 | `3000` | Port to listen on. |");
    expect(rows.find((row) => row.startsWith("| `BANK_TRANSFER_DETAILS` |"))).toContain("`bank\\|branch\\|account name\\|account number`");
  });

  it("refuses a document that lost its markers", () => {
    expect(() => withCurrentTable("# Configuration\n")).toThrow(/lost its markers/);
  });
});
