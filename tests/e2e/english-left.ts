import { readdirSync, readFileSync } from "node:fs";
import { inflateSync } from "node:zlib";
import { PDFDocument } from "pdf-lib";
import type { Page } from "@playwright/test";

// Issue 43: finding English left on a page written in Swahili or French. Two nets:
// 1. a line of the page (or a label, placeholder or title) that is an English text of the catalogue
//    which the page's language writes otherwise: a word that went round the translation;
// 2. the page's own furniture (buttons, labels, headers, tabs, menus, hints) in English sentences:
//    at least two of English's little words, which neither Swahili nor French uses: a word that was
//    never in the catalogue at all. Names and people's own content (a template's text, a contact's
//    name) are data, not furniture, and may be in any language.

export type Locale = "en" | "sw" | "fr";

export function catalogue(locale: Locale): Record<string, string> {
  return Object.assign(
    {},
    ...readdirSync("app/messages", { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((area) => {
        const { $schema: _schema, ...words } = JSON.parse(readFileSync(`app/messages/${area.name}/${locale}.json`, "utf8")) as Record<
          string,
          string
        >;
        return words;
      }),
  ) as Record<string, string>;
}

// Each language is named in itself on the switcher, in every language.
const LANGUAGE_NAMES = new Set(["English", "Kiswahili", "Français"]);
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const LITTLE_WORDS = [
  "the",
  "your",
  "you",
  "and",
  "with",
  "this",
  "that",
  "is",
  "are",
  "has",
  "have",
  "will",
  "from",
  "been",
  "was",
  "were",
  "which",
  "their",
  "can",
  "not",
  "of",
  "to",
  "yet",
  "no",
  "any",
  "all",
  "for",
];
const LITTLE = new RegExp(`\\b(${LITTLE_WORDS.join("|")})\\b`, "gi");

export interface EnglishCheck {
  /** The page's English lines, if any: each with where it was found. */
  find(page: Page): Promise<string[]>;
  /** A PDF's drawn lines that are English. */
  findInPdf(bytes: Uint8Array): Promise<{ lines: string[]; english: string[] }>;
}

export function englishCheck(locale: Exclude<Locale, "en">): EnglishCheck {
  const en = catalogue("en");
  const own = catalogue(locale);
  const ownTexts = new Set(Object.values(own).map((text) => text.trim()));
  // The English texts this language writes otherwise, with a few letters of their own besides inputs.
  const patterns = Object.entries(en)
    .filter(([key, text]) => own[key] !== text && !ownTexts.has(text.trim()))
    .map(([, text]) => text.trim())
    // Enough letters of its own to tell it from a sentence of someone's ("{kind} for {buyer}" would match many).
    .filter((text) => (text.replace(/\{\w+\}/g, "").match(/[A-Za-z]/g) ?? []).length >= (/\{\w+\}/.test(text) ? 10 : 3))
    .map((text) =>
      text
        .split(/\{\w+\}/)
        .map(escape)
        .join(".+"),
    );
  const englishLine = new RegExp(`^(?:${[...new Set(patterns)].join("|")})$`);
  const isEnglish = (line: string) => {
    const text = line.trim().replace(/\s+/g, " ");
    // A saved answer's shortcut ("/hours") is a person's word, not the product's.
    if (!text || ownTexts.has(text) || LANGUAGE_NAMES.has(text) || text.startsWith("/")) return false;
    return englishLine.test(text);
  };
  const littleWords = (text: string) => new Set((text.match(LITTLE) ?? []).map((word) => word.toLowerCase())).size;

  return {
    async find(page) {
      const seen = await page.evaluate(() => {
        const furniture = [
          ...document.querySelectorAll(
            "button, label, th, legend, summary, dt, [role=tab], nav a, option, .hint, [id$=-description], input[type=submit], caption",
          ),
        ].map((element) => (element as HTMLElement).innerText ?? element.textContent ?? "");
        const attributes = [...document.querySelectorAll("[placeholder], [aria-label], [title], img[alt]")].flatMap((element) =>
          ["placeholder", "aria-label", "title", "alt"].map((name) => element.getAttribute(name) ?? "").filter(Boolean),
        );
        return { lines: document.body.innerText.split("\n"), furniture, attributes, title: document.title };
      });
      const found: string[] = [];
      for (const line of [...seen.lines, ...seen.attributes, seen.title]) if (isEnglish(line)) found.push(`line: ${line.trim()}`);
      for (const text of [...seen.furniture, ...seen.attributes]) {
        const clean = text.trim().replace(/\s+/g, " ");
        if (clean && !ownTexts.has(clean) && littleWords(clean) >= 2) found.push(`furniture: ${clean}`);
      }
      return [...new Set(found)];
    },
    async findInPdf(bytes) {
      const lines = await pdfLines(bytes);
      return { lines, english: lines.filter((line) => isEnglish(line) || littleWords(line) >= 2) };
    },
  };
}

// Windows-1252's 0x80-0x9F; pdf-lib writes a standard font's text as WinAnsi bytes.
const CP1252_HIGH = "€\x81‚ƒ„…†‡ˆ‰Š‹Œ\x8dŽ\x8f\x90‘’“”•–—˜™š›œ\x9džŸ";
const decodeWinAnsi = (bytes: Buffer) =>
  [...bytes].map((byte) => (byte >= 0x80 && byte <= 0x9f ? CP1252_HIGH[byte - 0x80] : String.fromCharCode(byte))).join("");

/** Every line a PDF draws: its pages' content streams inflated, their `<hex> Tj` operands decoded. */
export async function pdfLines(bytes: Uint8Array): Promise<string[]> {
  const pdf = await PDFDocument.load(bytes);
  return pdf.getPages().flatMap((page) => {
    const contents = page.node.Contents();
    const streams = contents && "asArray" in contents ? contents.asArray() : [contents];
    return streams.flatMap((ref) => {
      const stream = pdf.context.lookup(ref) as unknown as { getContents(): Uint8Array };
      const source = inflateSync(stream.getContents()).toString("latin1");
      return [...source.matchAll(/<([0-9A-Fa-f]*)>\s*Tj/g)].map(([, hex]) => decodeWinAnsi(Buffer.from(hex!, "hex")));
    });
  });
}
