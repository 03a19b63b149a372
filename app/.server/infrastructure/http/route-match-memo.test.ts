import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { MATCH_FUNCTION, MEMO_SIZE, withRouteMatchMemo } from "./route-match-memo";

type Match = { route: { id: string }; pathname: string; params: Record<string, string> };
type MatchFn = (
  routes: unknown,
  location: string | { pathname?: string },
  basename: string,
  allowPartial: boolean,
  branches?: unknown,
) => Match[] | null;

/**
 * A stand-in for React Router's module: the function's exact first line, then a scan that counts its
 * calls and matches `/items/:id` or `/dashboard` as the real one would (matches sharing one params object).
 */
function patchedModule() {
  const code = `${MATCH_FUNCTION}
  scans.count++;
  const pathname = (typeof locationArg === "string" ? locationArg : locationArg.pathname).split(/[?#]/)[0];
  const params = {};
  if (pathname === "/dashboard") return [{ route: { id: "root" }, pathname: "/", params }, { route: { id: "dashboard" }, pathname, params }];
  const item = /^\\/items\\/([^/]+)$/.exec(pathname);
  if (!item) return null;
  params.id = item[1];
  return [{ route: { id: "root" }, pathname: "/", params }, { route: { id: "item" }, pathname, params }];
}
return matchRoutesImpl;`;
  const rewritten = withRouteMatchMemo(code);
  expect(rewritten).not.toBeNull();
  const scans = { count: 0 };
  const match = new Function("scans", rewritten!)(scans) as MatchFn;
  return { match, scans };
}

describe("React Router's route matching, memoised in the server build (decision 070)", () => {
  it("scans a path once per route list, then answers from memory with the same matches", () => {
    const { match, scans } = patchedModule();
    const routes: unknown[] = [];
    const first = match(routes, "/dashboard", "/", false);
    const again = match(routes, { pathname: "/dashboard" }, "/", false);
    expect(scans.count).toBe(1);
    expect(again).toEqual(first);
    expect(again?.map((m) => m.route.id)).toEqual(["root", "dashboard"]);
    // Another list (another router), a partial match or another basename is a question of its own.
    match([], "/dashboard", "/", false);
    match(routes, "/dashboard", "/", true);
    match(routes, "/dashboard", "/app", false);
    expect(scans.count).toBe(4);
    // Queries and hashes are not the pathname's: the same answer, no new scan.
    match(routes, "/dashboard?after=1", "/", false);
    match(routes, "/dashboard?after=2#top", "/", false);
    expect(scans.count).toBe(4);
  });

  it("gives each caller its own match objects and params, so a change by one is not the next request's", () => {
    const { match } = patchedModule();
    const routes: unknown[] = [];
    const [firstRoot, firstItem] = match(routes, "/items/42", "/", false)!;
    expect(firstRoot!.params).toBe(firstItem!.params);
    firstItem!.params.id = "changed";
    firstItem!.pathname = "/elsewhere";
    const [, secondItem] = match(routes, "/items/42", "/", false)!;
    expect(secondItem).toMatchObject({ pathname: "/items/42", params: { id: "42" } });
    expect(secondItem!.params).not.toBe(firstItem!.params);
  });

  it("remembers a path that matches nothing, and starts again past its size so ids in paths cannot grow it", () => {
    const { match, scans } = patchedModule();
    const routes: unknown[] = [];
    expect(match(routes, "/nowhere", "/", false)).toBeNull();
    expect(match(routes, "/nowhere", "/", false)).toBeNull();
    expect(scans.count).toBe(1);
    for (let i = 0; i < MEMO_SIZE; i++) match(routes, `/items/${i}`, "/", false);
    expect(scans.count).toBe(1 + MEMO_SIZE);
    // The memo was full at the last of them and started again: /nowhere is scanned anew.
    match(routes, "/nowhere", "/", false);
    expect(scans.count).toBe(2 + MEMO_SIZE);
  });

  it("leaves code alone that has the function not exactly once", () => {
    expect(withRouteMatchMemo("function matchRoutes() {}")).toBeNull();
    expect(withRouteMatchMemo(`${MATCH_FUNCTION}}\n${MATCH_FUNCTION}}`)).toBeNull();
  });

  it("finds the function in the installed React Router, once in the module the server build takes in", () => {
    const dir = path.resolve("node_modules/react-router/dist/development");
    const withScan = readdirSync(dir)
      .filter((file) => file.endsWith(".mjs") && !file.startsWith("index-react-server"))
      .filter((file) => readFileSync(path.join(dir, file), "utf8").includes("function matchRoutesImpl("));
    expect(withScan).toHaveLength(1);
    expect(withRouteMatchMemo(readFileSync(path.join(dir, withScan[0]!), "utf8"))).not.toBeNull();
  });
});
