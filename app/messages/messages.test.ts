import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

// Issue 43: every word exists in every language, with the same inputs (decision 071). The words are
// kept in one file a language for each area of the product (app/messages/<area>/<locale>.json).
const settings = JSON.parse(readFileSync(path.resolve("project.inlang/settings.json"), "utf8")) as {
  baseLocale: string;
  locales: string[];
  "plugin.inlang.messageFormat": { pathPattern: string[] };
};
const patterns = settings["plugin.inlang.messageFormat"].pathPattern;
const areaOf = (pattern: string) => /app\/messages\/([a-z-]+)\/\{locale\}\.json$/.exec(pattern)?.[1];
/** An area's key prefix: its name, or a short one for a long name (google-sheets: sheets_). */
const PREFIXES: Record<string, string> = {
  "google-sheets": "sheets",
  "revenue-share": "revenue",
  "payment-requests": "payreq",
  "ads-conversions": "ads",
};
const catalogue = (pattern: string, locale: string) => {
  const { $schema: _schema, ...messages } = JSON.parse(readFileSync(path.resolve(pattern.replace("{locale}", locale)), "utf8")) as Record<
    string,
    unknown
  >;
  return messages;
};
const inputsOf = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((match) => match[1]).sort();

describe("the product's words", () => {
  it("speaks English, Swahili and French, English first", () => {
    expect(settings.baseLocale).toBe("en");
    expect(settings.locales).toEqual(["en", "sw", "fr"]);
  });

  it("keeps each area's words in its own files, every key named for its area and none twice", () => {
    const seen = new Map<string, string>();
    for (const pattern of patterns) {
      const area = areaOf(pattern);
      expect(area, pattern).toBeTruthy();
      for (const key of Object.keys(catalogue(pattern, settings.baseLocale))) {
        if (area !== "common") expect(key.startsWith(`${PREFIXES[area!] ?? area}_`), `${key} in ${area}`).toBe(true);
        expect(key, `${key} in ${area} and ${seen.get(key)}`).toMatch(/^[a-z][a-z0-9_]*$/);
        expect(seen.get(key), `${key} in ${area} and ${seen.get(key)}`).toBeUndefined();
        seen.set(key, area!);
      }
    }
  });

  for (const pattern of patterns) {
    const area = areaOf(pattern);
    const base = catalogue(pattern, settings.baseLocale);
    it(`has in English only plain texts with named inputs (${area})`, () => {
      for (const [key, text] of Object.entries(base)) {
        expect(typeof text, `en.${key}`).toBe("string");
        expect((text as string).trim(), `en.${key}`).not.toBe("");
        // Braces only around an input's name: the browser's formatter (app/lib/words.client.ts) knows no more.
        expect((text as string).replace(/\{\w+\}/g, ""), `en.${key}`).not.toMatch(/[{}]/);
      }
    });
    for (const locale of settings.locales.filter((l) => l !== settings.baseLocale)) {
      it(`has in ${locale} every key English has, no other, each with the same inputs and not left empty (${area})`, () => {
        const messages = catalogue(pattern, locale);
        expect(Object.keys(messages).sort()).toEqual(Object.keys(base).sort());
        for (const [key, text] of Object.entries(messages)) {
          expect(typeof text, `${locale}.${key}`).toBe("string");
          expect((text as string).trim(), `${locale}.${key}`).not.toBe("");
          expect((text as string).replace(/\{\w+\}/g, ""), `${locale}.${key}`).not.toMatch(/[{}]/);
          expect(inputsOf(text as string), `${locale}.${key}`).toEqual(inputsOf(base[key] as string));
        }
      });
    }
  }
});
