import path from "node:path";
import { describe, expect, test } from "vitest";
import { longFunctions, longFunctionsIn, MOST_LINES } from "./long-functions";

// Small parts (decision 121): a function in app/.server over 100 lines says why it cannot be split,
// in a `// long: <why>` comment right above the line it begins on. The exceptions are those
// comments, read from the source: there is no list of them anywhere else.
const root = path.resolve(import.meta.dirname, "../..");

/** A function of `body` lines (its first and last line included), with `above` written right over it. */
const fn = (body: number, above = "") => `${above}${above ? "\n" : ""}export function f() {\n${"  work();\n".repeat(body - 2)}}\n`;

// Read once as the file loads (like layers.test.ts's graph): parsing every server module is no test's own time.
const found = longFunctions(root);

describe("functions in app/.server", () => {
  test(`none is over ${MOST_LINES} lines without a // long: comment saying why`, () => {
    const unexplained = found.filter((one) => !one.reason);
    expect(unexplained.map(({ file, line, name, lines }) => `${file}:${line} ${name} (${lines} lines)`)).toEqual([]);
  });
});

describe("the long-function rule", () => {
  test("counts a function from the line it begins on to the line it ends on", () => {
    expect(longFunctionsIn("a.ts", fn(MOST_LINES))).toEqual([]);
    expect(longFunctionsIn("a.ts", fn(MOST_LINES + 1))).toEqual([{ file: "a.ts", name: "f", line: 1, lines: 101, reason: null }]);
  });

  test("takes the reason from the comment lines right above, under a doc comment too", () => {
    const reasoned = longFunctionsIn("a.ts", fn(120, "/** Does f. */\n// long: one statement read top to bottom"));
    expect(reasoned.map((found) => found.reason)).toEqual(["one statement read top to bottom"]);
    // A blank line or code between them, or a reason of a word, is no reason.
    expect(longFunctionsIn("a.ts", fn(120, "// long: one statement read top to bottom\n"))[0]!.reason).toBeNull();
    expect(longFunctionsIn("a.ts", fn(120, "// long: because"))[0]!.reason).toBeNull();
  });

  test("measures arrows, methods and callbacks, each nested one on its own", () => {
    const body = "  work();\n".repeat(110);
    const text = `const a = () => {\n${body}};\nclass K {\n  m() {\n${body}  }\n}\nrun(async () => {\n  const inner = () => {\n${body}  };\n});\n`;
    expect(longFunctionsIn("a.ts", text).map(({ name, lines }) => `${name} ${lines}`)).toEqual([
      "a 112",
      "m 112",
      "(callback of run) 114",
      "inner 112",
    ]);
  });
});
