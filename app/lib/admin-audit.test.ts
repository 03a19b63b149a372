import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { auditActionLabel } from "./admin-audit";

/** Every audit action code the server writes ("partner.enrol"), read from its sources. */
function writtenActions(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...writtenActions(path));
    else if (/\.ts$/.test(entry.name) && !entry.name.endsWith(".test.ts"))
      for (const line of readFileSync(path, "utf8").split("\n"))
        if (/\baction: /.test(line)) for (const code of line.matchAll(/"([a-z]+\.[a-z_]+)"/g)) found.push(code[1]!);
  }
  return [...new Set(found)].sort();
}

describe("the console's audit log", () => {
  it("names every action the server writes in words, not its code", () => {
    const actions = writtenActions(join(__dirname, "../.server"));
    expect(actions).toContain("partner.share_change");
    expect(actions.filter((code) => auditActionLabel(code) === code)).toEqual([]);
  });
});
