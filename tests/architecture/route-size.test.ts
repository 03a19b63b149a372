import fs from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { sourceFiles } from "./import-graph";

// Route modules stay thin (issue 75, item 4): a module under app/routes is at most 300 lines. What
// makes one longer belongs elsewhere: the domain's logic in app/.server/domains/<feature>/, the
// page's parts in app/components/<feature>/. There is no list of exceptions.
const root = path.resolve(import.meta.dirname, "../..");

/** The most lines a route module may have. */
const ROUTE_MOST_LINES = 300;

/** A file's lines as an editor numbers them (a last line break ends the last line, it starts none). */
const linesOf = (source: string) => (source === "" ? 0 : source.split("\n").length - (source.endsWith("\n") ? 1 : 0));

describe("route modules", () => {
  test(`none is over ${ROUTE_MOST_LINES} lines`, () => {
    const routes = sourceFiles(root, ["app/routes"]);
    const long = routes
      .map((file) => ({ file, lines: linesOf(fs.readFileSync(path.join(root, file), "utf8")) }))
      .filter(({ lines }) => lines > ROUTE_MOST_LINES);
    expect(routes.length).toBeGreaterThan(100);
    expect(long.map(({ file, lines }) => `${file} (${lines} lines)`)).toEqual([]);
  });

  test("counts a file's lines as an editor numbers them", () => {
    expect(linesOf("a\nb\n")).toBe(2);
    expect(linesOf("a\nb")).toBe(2);
    expect(linesOf("")).toBe(0);
  });
});
