import fs from "node:fs";
import path from "node:path";
import { expect, test } from "vitest";
import { sourceFiles } from "./import-graph";

// 0 `as unknown as` in the application (issue 75, decision 127): a double cast tells the compiler
// to stop checking. Test files may still build partial fakes this way.
const root = path.resolve(import.meta.dirname, "../..");

test("no module in app/ casts through unknown", () => {
  const casting = sourceFiles(root, ["app"]).filter((file) => /\bas unknown as\b/.test(fs.readFileSync(path.join(root, file), "utf8")));
  expect(casting).toEqual([]);
});
