import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ENV_VARIABLES } from "../app/.server/config/env";
import { CONFIG_DOC, configurationTable, withCurrentTable } from "./config-docs";

describe("docs/configuration.md", () => {
  it("holds the table the environment schema makes", () => {
    const committed = readFileSync(CONFIG_DOC, "utf8");
    expect(committed, `${CONFIG_DOC} differs from the schema in app/.server/config/env.ts: run \`npm run docs:config\``).toBe(
      withCurrentTable(committed),
    );
  });

  it("describes every variable the schema reads, with its type and default", () => {
    const rows = configurationTable().split("\n").slice(2);
    expect(rows.map((row) => row.match(/^\| `(\w+)` \|/)?.[1])).toEqual(ENV_VARIABLES);
    expect(rows.filter((row) => row.endsWith("|  |"))).toEqual([]);
    expect(rows).toContain("| `PORT` | whole number from 0 to 65535 | `3000` | Port to listen on. |");
    expect(rows.find((row) => row.startsWith("| `BANK_TRANSFER_DETAILS` |"))).toContain("`bank\\|branch\\|account name\\|account number`");
  });

  it("refuses a document that lost its markers", () => {
    expect(() => withCurrentTable("# Configuration\n")).toThrow(/lost its markers/);
  });
});
