import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { declarationsOf } from "./message-types.mjs";

const root = path.resolve(import.meta.dirname, "..");
// The words compiled for this run (vitest.config.ts compiles them first, or the caller just did).
const compiledIndex = () => readFileSync(path.join(root, "app/paraglide/messages/_index.js"), "utf8");

/** Every key of the English catalogue, from the files the inlang project names. */
function catalogueKeys(): string[] {
  const settings = JSON.parse(readFileSync(path.join(root, "project.inlang/settings.json"), "utf8")) as {
    "plugin.inlang.messageFormat": { pathPattern: string[] };
  };
  const keys = new Set<string>();
  for (const pattern of settings["plugin.inlang.messageFormat"].pathPattern) {
    const english = JSON.parse(readFileSync(path.join(root, pattern.replace("{locale}", "en")), "utf8")) as Record<string, unknown>;
    for (const key of Object.keys(english)) if (!key.startsWith("$")) keys.add(key);
  }
  return [...keys];
}

describe("the compiled words' declarations (decision 135)", () => {
  it("declare every message of the English catalogue, with the type Paraglide gave it", () => {
    const source = compiledIndex();
    const { text, messages } = declarationsOf(source);
    const keys = catalogueKeys();
    expect(messages).toBe(keys.length);
    const declared = [...text.matchAll(/^export declare const (\w+): \(\(inputs/gm)].map((match) => match[1]);
    expect(new Set(declared)).toEqual(new Set(keys));
    // A message with inputs: its inputs' type is declared, and the message takes them.
    const typed = /^export const (\w+) = \/\*\* @type \{\(\(inputs\?: (\w+Inputs)/m.exec(source);
    expect(typed).not.toBeNull();
    expect(text).toContain(`export declare const ${typed![1]}: ((inputs?: ${typed![2]}`);
    expect(text).toMatch(new RegExp(`^export type ${typed![2]} = `, "m"));
    // No body of the JavaScript is left in a declaration file.
    expect(text).not.toContain("getLocale()");
    expect(text).not.toMatch(/^\t/m);
  });

  it("stop on a line of the index they do not know, instead of declaring part of the words", () => {
    const source = compiledIndex();
    expect(() => declarationsOf(`${source}\nexport { admin_account as "admin-account" }\n`)).toThrow(
      /not a line scripts\/message-types\.mjs knows/,
    );
    const unterminated = source.slice(0, source.lastIndexOf("});"));
    expect(() => declarationsOf(unterminated)).toThrow(/ends inside a comment or a message/);
  });
});
