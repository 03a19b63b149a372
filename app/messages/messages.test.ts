import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

// Issue 43: every word exists in every language, with the same inputs (decision 071).
const DIR = path.resolve("app/messages");
const settings = JSON.parse(readFileSync(path.resolve("project.inlang/settings.json"), "utf8")) as {
  baseLocale: string;
  locales: string[];
};
const catalogue = (locale: string) => {
  const { $schema: _schema, ...messages } = JSON.parse(readFileSync(path.join(DIR, `${locale}.json`), "utf8")) as Record<string, string>;
  return messages;
};
const inputsOf = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((match) => match[1]).sort();

describe("the product's words", () => {
  const base = catalogue(settings.baseLocale);

  it("speaks English, Swahili and French, English first", () => {
    expect(settings.baseLocale).toBe("en");
    expect(settings.locales).toEqual(["en", "sw", "fr"]);
  });

  for (const locale of settings.locales.filter((l) => l !== settings.baseLocale)) {
    it(`has in ${locale} every key English has, no other, each with the same inputs and not left empty`, () => {
      const messages = catalogue(locale);
      expect(Object.keys(messages).sort()).toEqual(Object.keys(base).sort());
      for (const [key, text] of Object.entries(messages)) {
        expect(text.trim(), `${locale}.${key}`).not.toBe("");
        expect(inputsOf(text), `${locale}.${key}`).toEqual(inputsOf(base[key]!));
      }
    });
  }
});
