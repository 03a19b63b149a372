import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

// Issue 10: every decision record carries its date and status, and the decisions' index lists them all.
// Issue 75: the status says whether the record still holds as written (decision 122): "Accepted",
// "Accepted, amended by N" (read N with it) or "Superseded by N" (read N instead); the newer record
// names the older one back ("Amends M", "Supersedes M"), and the index shows the same status.
describe("decision records", () => {
  const files = readdirSync("docs/decisions").filter((f) => f.endsWith(".md") && f !== "README.md");
  const index = readFileSync("docs/decisions/README.md", "utf8");
  const numbers = (text: string) => [...text.matchAll(/\[(\d{3})\]\((\d{3})-[^)]+\.md\)/g)].map((m) => m[1]!);

  /** A record's third line: `Date: … · Status: <status>[ · Issue …][ · Amends …][ · Supersedes …][ · a note]`. */
  const records = files.map((file) => {
    const [title, , dated = ""] = readFileSync(`docs/decisions/${file}`, "utf8").split("\n");
    const [date = "", status = "", ...rest] = dated.split(" · ");
    const named = (verb: string) => numbers(rest.find((part) => part.startsWith(`${verb} `)) ?? "");
    return {
      file,
      number: file.slice(0, 3),
      title,
      dated,
      date,
      status: status.replace(/^Status: /, ""),
      amends: named("Amends"),
      supersedes: named("Supersedes"),
    };
  });
  const byNumber = new Map(records.map((record) => [record.number, record]));
  const STATUS = /^(Accepted|Accepted, amended by \[\d{3}\]\([^)]+\)(, \[\d{3}\]\([^)]+\))*|Superseded by \[\d{3}\]\([^)]+\))$/;

  it("each starts with a title, then its date and status", () => {
    for (const { file, title, dated, date, status } of records) {
      expect(title, file).toMatch(/^# \d{3}[.:] \S/);
      expect(dated, file).toMatch(/^Date: \d{4}-\d{2}-\d{2} · Status: \S/);
      expect(date, file).toMatch(/^Date: \d{4}-\d{2}-\d{2}$/);
      expect(status, `${file}: Accepted, "Accepted, amended by [N](…)" or "Superseded by [N](…)"`).toMatch(STATUS);
    }
  });

  it("are all listed in docs/decisions/README.md", () => {
    expect(files.filter((file) => !index.includes(`(${file})`))).toEqual([]);
  });

  it("show the same status in the index as in the record", () => {
    const listed = new Map([...index.matchAll(/^\| \[\d{3}\]\(([^)]+)\) \| .* \| ([^|]+) \|$/gm)].map((m) => [m[1]!, m[2]!.trim()]));
    const differing = records
      .filter(({ file, status }) => listed.has(file) && listed.get(file) !== status)
      .map(({ file, status }) => `${file}: the record says "${status}", the index "${listed.get(file)}"`);
    expect(differing).toEqual([]);
  });

  it("amended or superseded by a later record that names them back", () => {
    const wrong: string[] = [];
    for (const { file, number, status, amends, supersedes } of records) {
      const [, verb] = /^(Accepted, amended by|Superseded by)/.exec(status) ?? [];
      const back = verb === "Superseded by" ? "supersedes" : "amends";
      for (const later of verb ? numbers(status) : []) {
        const newer = byNumber.get(later);
        if (!newer) wrong.push(`${file}: ${verb} ${later}, which does not exist`);
        else if (later <= number) wrong.push(`${file}: ${verb} ${later}, which is not later`);
        else if (!newer[back].includes(number))
          wrong.push(`${newer.file} does not say "${back === "amends" ? "Amends" : "Supersedes"} [${number}](…)"`);
      }
      for (const older of amends)
        if (!numbers(byNumber.get(older)?.status.startsWith("Accepted, amended by") ? byNumber.get(older)!.status : "").includes(number))
          wrong.push(`${file} amends ${older}, whose status does not say "Accepted, amended by [${number}](…)"`);
      for (const older of supersedes)
        if (!numbers(byNumber.get(older)?.status.startsWith("Superseded by") ? byNumber.get(older)!.status : "").includes(number))
          wrong.push(`${file} supersedes ${older}, whose status does not say "Superseded by [${number}](…)"`);
    }
    expect(wrong).toEqual([]);
  });
});
