import fs from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { sourceFiles } from "./import-graph";

// The one form protocol (issue 75, decision 119): a page's action reads its post through the
// intent helper (app/.server/domains/auth/form-actions.ts), which reads the form once, checks the
// intent's declared permission and parses with Conform and the intent's zod schema. Reading a form
// any other way, in a route or in a domain's page action, fails here. There is no list of exceptions.
const root = path.resolve(import.meta.dirname, "../..");

/** Ways of reading a posted form by hand. */
const HAND_PARSING = /\b(postedTexts|readForm|parseWithZod|readPosted)\(|\.formData\(\)/;

/** Where the protocol itself lives: the only modules that read a form. */
const PROTOCOL = new Set([
  "app/.server/infrastructure/http/forms.ts",
  "app/.server/infrastructure/http/posted-fields.ts",
  "app/.server/infrastructure/http/intents.ts",
]);

/** Route and server modules (tests and the browser's components left out). */
const modules = sourceFiles(root, ["app/routes", "app/.server"]).filter((file) => !/\.test\.tsx?$/.test(file));

function readsByHand(file: string) {
  return HAND_PARSING.test(fs.readFileSync(path.join(root, file), "utf8"));
}

describe("the form protocol", () => {
  test("no route or domain reads a posted form except through the intent helper", () => {
    const byHand = modules.filter((file) => !PROTOCOL.has(file) && readsByHand(file));
    expect(byHand).toEqual([]);
  });

  test("an action on the helper checks no permission by hand", () => {
    // The intent's declared permission is the check; a second one in the action could say another.
    const onHelper = modules.filter((file) =>
      /(intentAction|IntentAction|formAction|FormAction)\(/.test(fs.readFileSync(path.join(root, file), "utf8")),
    );
    const rechecking = onHelper.filter((file) => {
      const source = fs.readFileSync(path.join(root, file), "utf8");
      const action = /export (async )?function action\b[\s\S]*?\n}\n/.exec(source)?.[0] ?? "";
      return /\b(requireUserWithPermission|can)\(/.test(action);
    });
    expect(onHelper.length).toBeGreaterThan(0);
    expect(rechecking).toEqual([]);
  });
});
