import fs from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

// The browser suite's waits detect a hang; none is a speed requirement (decision 120). A wait for
// what the page shows may take 30 s before it fails: on a loaded machine a 10 s wait failed a test
// that passes alone (issue 75). A shorter bound is allowed only inside a retried block
// (`expect(async () => …).toPass(…)`), whose own bound is the one that counts.

const ROOT = path.resolve(import.meta.dirname, "../..");
const SHORTEST_WAIT_MS = 30_000;

/**
 * Bounds and pauses the suite keeps on purpose, with the reason (the statement's text, not its line).
 * A pause before asserting that nothing happened can make that check weaker on a slow machine, never
 * make it fail.
 */
const KEPT: { file: string; statement: string; why: string }[] = [
  {
    file: "tests/e2e/shell.spec.ts",
    statement: 'await menu.locator("summary").click({ timeout: 2_000 });',
    why: "the toast sits over the user menu for about 6 s: the click landing within 2 s is the subject",
  },
  ...["await page.waitForTimeout(100);", "await page.waitForTimeout(200);", "await page.waitForTimeout(300);"].map((statement) => ({
    file: "tests/e2e/landing.spec.ts",
    statement,
    why: "a pause before asserting that nothing moved or was added (the carousel on a paused clock, a blank message, back-to-top at 500 px)",
  })),
];

export type ShortWait = { file: string; line: number; ms: number; statement: string };

/** Every `timeout: N` under SHORTEST_WAIT_MS in a call's options outside a retried block, and every fixed sleep. */
export function shortWaits(file: string, text: string): ShortWait[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: ShortWait[] = [];
  const insideRetry = (node: ts.Node) => {
    for (let at: ts.Node | undefined = node.parent; at; at = at.parent) {
      if (!ts.isArrowFunction(at) && !ts.isFunctionExpression(at)) continue;
      const call: ts.Node | undefined = at.parent;
      if (!call || !ts.isCallExpression(call) || call.arguments[0] !== at || call.expression.getText(source) !== "expect") continue;
      const use: ts.Node | undefined = call.parent;
      if (use && ts.isPropertyAccessExpression(use) && use.name.text === "toPass") return true;
    }
    return false;
  };
  const statementOf = (node: ts.Node) => {
    let at = node;
    while (at.parent && !ts.isSourceFile(at.parent) && !ts.isBlock(at.parent)) at = at.parent;
    return at.getText(source).trim();
  };
  const note = (node: ts.Node, ms: number) =>
    found.push({ file, line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1, ms, statement: statementOf(node) });
  const visit = (node: ts.Node) => {
    if (
      ts.isPropertyAssignment(node) &&
      node.name.getText(source) === "timeout" &&
      ts.isNumericLiteral(node.initializer) &&
      Number(node.initializer.text.replaceAll("_", "")) < SHORTEST_WAIT_MS &&
      ts.isObjectLiteralExpression(node.parent) &&
      ts.isCallExpression(node.parent.parent) &&
      !insideRetry(node)
    )
      note(node, Number(node.initializer.text.replaceAll("_", "")));
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && node.expression.name.text === "waitForTimeout")
      note(node, 0);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found.filter((wait) => !KEPT.some((kept) => kept.file === wait.file && kept.statement === wait.statement));
}

/** A vitest test's or hook's own deadline detects a hang: at least this long. */
const SHORTEST_DEADLINE_MS = 60_000;

/**
 * What makes a vitest test's outcome follow the machine's speed (issue 75): a wait for something
 * (`vi.waitFor`, `expect.poll`) with less than 30 s (their default is 1 s), a test's or hook's own
 * deadline under a minute, and an assertion on an elapsed time (`performance.now()`, `hrtime`, or
 * `Date.now() - started` inside `expect(…)`). A slow machine makes a test slower, never different.
 */
export function vitestSpeedDependencies(file: string, text: string): ShortWait[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: ShortWait[] = [];
  const msOf = (node: ts.Node | undefined) => (node && ts.isNumericLiteral(node) ? Number(node.text.replaceAll("_", "")) : undefined);
  /** A wait's or deadline's bound: a number, `{ timeout: N }`, "unset" (the default), or undefined (computed). */
  const boundOf = (node: ts.Node | undefined): number | "unset" | undefined => {
    if (!node) return "unset";
    if (ts.isNumericLiteral(node)) return msOf(node);
    if (!ts.isObjectLiteralExpression(node)) return undefined;
    const timeout = node.properties.find((p) => p.name?.getText(source) === "timeout");
    if (!timeout) return "unset";
    return ts.isPropertyAssignment(timeout) ? msOf(timeout.initializer) : undefined;
  };
  const note = (node: ts.Node, ms: number) =>
    found.push({
      file,
      line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1,
      ms,
      statement: node.getText(source).split("\n")[0]!.trim(),
    });
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node)) {
      const callee = node.expression.getText(source);
      if (callee === "vi.waitFor" || callee === "expect.poll") {
        const bound = boundOf(node.arguments[1]);
        if (bound === "unset") note(node, 1000);
        else if (bound !== undefined && bound < SHORTEST_WAIT_MS) note(node, bound);
      }
      const runner = /^(it|test|describe|beforeAll|beforeEach|afterAll|afterEach)\b/.exec(callee)?.[1];
      if (runner && node.arguments.length >= 2) {
        const last = node.arguments[node.arguments.length - 1]!;
        const options = node.arguments.length >= 3 && ts.isObjectLiteralExpression(node.arguments[1]!) ? node.arguments[1] : undefined;
        for (const bound of [msOf(last), options && boundOf(options)])
          if (typeof bound === "number" && bound < SHORTEST_DEADLINE_MS) note(node, bound);
      }
      if (callee === "expect" && node.arguments[0]) {
        const subject = node.arguments[0].getText(source);
        if (/performance\.now\(\)|hrtime|Date\.now\(\)\s*-\s*(?!new\b)[A-Za-z_$][\w$.]*\s*(?:$|[-+*/)])/.test(subject)) note(node, 0);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function filesUnder(dir: string, keep: (name: string) => boolean): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const at = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : filesUnder(at, keep);
    return keep(entry.name) ? [at] : [];
  });
}

function vitestSuiteFiles() {
  const tests = (name: string) => /\.test\.tsx?$/.test(name);
  return [
    ...["app", "sandbox", "scripts", "tests/integration", "tests/sandbox", "tests/fidelity", "tests/architecture"].flatMap((dir) =>
      filesUnder(dir, tests),
    ),
    ...filesUnder("tests/support", (name) => name.endsWith(".ts")),
  ].sort();
}

function browserSuiteFiles() {
  return fs
    .readdirSync(path.join(ROOT, "tests/e2e"))
    .filter((name) => name.endsWith(".ts"))
    .map((name) => `tests/e2e/${name}`)
    .sort();
}

describe("no browser test depends on the machine's speed", () => {
  it("waits at least 30 s for what a page shows, and never sleeps a fixed time", () => {
    const config = fs.readFileSync(path.join(ROOT, "playwright.config.ts"), "utf8");
    const expectTimeout = Number(/expect:\s*\{\s*timeout:\s*([\d_]+)/.exec(config)?.[1]?.replaceAll("_", ""));
    const short = browserSuiteFiles().flatMap((file) => shortWaits(file, fs.readFileSync(path.join(ROOT, file), "utf8")));
    expect([
      ...(expectTimeout >= SHORTEST_WAIT_MS ? [] : [`playwright.config.ts: expect waits ${expectTimeout} ms`]),
      ...short.map((w) => `${w.file}:${w.line} (${w.ms} ms): ${w.statement}`),
    ]).toEqual([]);
    // Parsing the browser suite took more than vitest's 5 s on a loaded machine: a minute, like the hooks.
  }, 60_000);

  it("lets the sandbox's template reviewer decide only when a spec asks (its own delay is its longest)", () => {
    const config = fs.readFileSync(path.join(ROOT, "playwright.config.ts"), "utf8");
    expect(/META_SANDBOX_TEMPLATE_REVIEW_MS:\s*"(\d+)"/.exec(config)?.[1]).toBe("600000");
  });

  it("finds a short wait outside a retried block and a fixed sleep, and lets a retried block's inner bound be", () => {
    const spec = [
      "test('x', async ({ page }) => {",
      "  await expect(page.getByText('a')).toBeVisible({ timeout: 10_000 });",
      "  await page.waitForTimeout(500);",
      "  await expect(async () => {",
      "    await expect(page.getByText('b')).toBeVisible({ timeout: 1000 });",
      "  }).toPass({ timeout: 30_000 });",
      "  await page.waitForURL('**/x', { timeout: 45_000 });",
      "});",
    ].join("\n");
    expect(shortWaits("tests/e2e/x.spec.ts", spec).map((w) => [w.line, w.ms])).toEqual([
      [2, 10_000],
      [3, 0],
    ]);
  });
});

describe("no vitest test depends on the machine's speed", () => {
  it("waits at least 30 s for what it waits for, gives a test a minute or more, and times no assertion", () => {
    const config = fs.readFileSync(path.join(ROOT, "vitest.config.ts"), "utf8");
    const projects = [...config.matchAll(/name:\s*"(\w+)"/g)].map((m) => m[1]);
    const deadlines = [...config.matchAll(/testTimeout:\s*([\d_]+)/g)].map((m) => Number(m[1]!.replaceAll("_", "")));
    const found = vitestSuiteFiles().flatMap((file) => vitestSpeedDependencies(file, fs.readFileSync(path.join(ROOT, file), "utf8")));
    expect([
      ...(deadlines.length === projects.length
        ? []
        : [`vitest.config.ts: ${projects.length} projects, ${deadlines.length} set testTimeout`]),
      ...deadlines.filter((ms) => ms < SHORTEST_DEADLINE_MS).map((ms) => `vitest.config.ts: testTimeout ${ms} ms`),
      ...found.map((w) => `${w.file}:${w.line} (${w.ms} ms): ${w.statement}`),
    ]).toEqual([]);
  }, 60_000);

  it("finds a short or default wait, a short deadline and a timed assertion, and lets a long one and a date's age be", () => {
    const file = [
      "it('x', async () => {",
      "  await vi.waitFor(() => expect(a).toBe(1), { timeout: 5000, interval: 20 });",
      "  await vi.waitFor(() => expect(a).toBe(1));",
      "  await expect.poll(() => held()).toBe(0);",
      "  await vi.waitFor(() => expect(a).toBe(1), { timeout: 30_000 });",
      "  const started = performance.now();",
      "  expect(performance.now() - started).toBeLessThan(500);",
      "  expect(Date.now() - started).toBeLessThan(2_000);",
      "  expect(Date.now() - new Date(row.at).getTime()).toBeLessThan(86_400_000);",
      "}, 10_000);",
      "it('y', { timeout: 5000 }, async () => {});",
      "beforeAll(async () => {}, 120_000);",
    ].join("\n");
    expect(vitestSpeedDependencies("x.test.ts", file).map((w) => [w.line, w.ms])).toEqual([
      [1, 10_000],
      [2, 5000],
      [3, 1000],
      [4, 1000],
      [7, 0],
      [8, 0],
      [11, 5000],
    ]);
  });
});
