import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

// Issue 10: every decision record carries its date and status, and the decisions' index lists them all.
describe("decision records", () => {
  const files = readdirSync("docs/decisions").filter((f) => f.endsWith(".md") && f !== "README.md");
  const index = readFileSync("docs/decisions/README.md", "utf8");

  it("each starts with a title, then its date and status", () => {
    for (const file of files) {
      const [title, , dated] = readFileSync(`docs/decisions/${file}`, "utf8").split("\n");
      expect(title, file).toMatch(/^# \d{3}[.:] \S/);
      expect(dated, file).toMatch(/^Date: \d{4}-\d{2}-\d{2} · Status: \S/);
    }
  });

  it("are all listed in docs/decisions/README.md", () => {
    expect(files.filter((file) => !index.includes(`(${file})`))).toEqual([]);
  });
});
