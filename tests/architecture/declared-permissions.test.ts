import fs from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { sourceFiles } from "./import-graph";

// A route declares its permission in one place, its module's `handle` (issue 75, decision 055):
// the layouts' middleware checks it, and a loader or action that needs the signed-in user takes it
// with requireDeclaredUser / requireDeclaredResource / requireDeclaredStaff (the console's), which
// check that same declaration. A route
// module calling the guards that take a permission as an argument would say it a second time, and
// could say another; it fails here. A check stricter than the declaration, on purpose, stays
// explicit with the comment "stricter than its declaration: <why>" on the line above the call.
const root = path.resolve(import.meta.dirname, "../..");

/** The guards that take the permission from their caller rather than from the route's declaration. */
const BY_HAND = /\b(requireUserWithPermission|requireResourcePermission|requirePlatformStaff|requirePlatformAdmin)\(/;
const ON_PURPOSE = /stricter than its declaration: \S/i;

const routeModules = sourceFiles(root, ["app/routes"]);

/** Each call of a guard by hand in a module, as `file:line`, unless the line above says why it is stricter. */
function callsByHand(file: string) {
  const lines = fs.readFileSync(path.join(root, file), "utf8").split("\n");
  return lines.flatMap((line, i) =>
    BY_HAND.test(line) && !/^\s*(import|export)\b/.test(line) && !ON_PURPOSE.test(lines[i - 1] ?? "") ? [`${file}:${i + 1}`] : [],
  );
}

describe("permissions declared once", () => {
  test("no route module names its permission again: its loaders and actions check the route's declaration", () => {
    expect(routeModules.length).toBeGreaterThan(100);
    const byHand = routeModules.flatMap(callsByHand);
    expect(byHand).toEqual([]);
  });

  test("the routes take the user from their declaration", () => {
    // What replaced the hand-written checks; a rename that left the rule above checking nothing fails here.
    const declared = routeModules.filter((file) =>
      /\brequireDeclared(User|Resource|Staff)\(/.test(fs.readFileSync(path.join(root, file), "utf8")),
    );
    expect(declared.length).toBeGreaterThan(85);
  });
});
