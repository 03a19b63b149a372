import { inflateSync } from "node:zlib";

/**
 * Plain text from a text PDF, small and bounded: the page content streams (uncompressed or
 * FlateDecode), read for their text operators (`Tj`, `TJ`, `'`, `"`, with `Td`/`TD`/`T*`/`ET` as
 * line breaks), strings read as Latin-1 (WinAnsi's letters). What it cannot read it refuses by a
 * code, never guessing: an encrypted file, other filters (images, LZW), fonts without their text
 * (hex glyph ids), or no text at all (a scan).
 */
export const PDF_MAX_BYTES = 5 * 1024 * 1024;
/** Every stream inflated together, at most: a small PDF that inflates into gigabytes is refused. */
const INFLATED_MAX_BYTES = 32 * 1024 * 1024;

export type PdfProblem = "not_pdf" | "too_large" | "encrypted" | "no_text" | "unreadable";
export type PdfText = { ok: true; text: string } | { ok: false; problem: PdfProblem };

const STREAM = /stream\r?\n/g;

/** The dictionary before a stream: from the last "<<" that opens it, as text. */
function dictionaryBefore(source: string, at: number): string {
  const start = source.lastIndexOf("obj", at);
  return source.slice(start < 0 ? Math.max(0, at - 1000) : start, at);
}

/** A PDF string literal from `(` at `i`: its bytes as Latin-1 text and where it ends. */
function literalAt(content: string, i: number): { text: string; end: number } {
  let depth = 1;
  let out = "";
  let j = i + 1;
  while (j < content.length && depth > 0) {
    const c = content[j]!;
    if (c === "\\") {
      const n = content[j + 1] ?? "";
      const escapes: Record<string, string> = { n: "\n", r: "\r", t: "\t", b: "", f: "", "(": "(", ")": ")", "\\": "\\" };
      if (n in escapes) {
        out += escapes[n];
        j += 2;
      } else if (/[0-7]/.test(n)) {
        const octal = /^[0-7]{1,3}/.exec(content.slice(j + 1, j + 4))![0];
        out += String.fromCharCode(parseInt(octal, 8));
        j += 1 + octal.length;
      } else if (n === "\r" || n === "\n") {
        j += content[j + 2] === "\n" && n === "\r" ? 3 : 2;
      } else {
        out += n;
        j += 2;
      }
      continue;
    }
    if (c === "(") depth++;
    else if (c === ")" && --depth === 0) break;
    out += c;
    j++;
  }
  return { text: out, end: j + 1 };
}

/** The text a content stream shows, or "glyphs" when it shows only hex glyph ids (no text to read). */
function textOf(content: string): string | "glyphs" {
  if (!/\bBT\b/.test(content)) return "";
  let out = "";
  let hexOnly = 0;
  let strings: string[] = [];
  let i = 0;
  while (i < content.length) {
    const c = content[i]!;
    if (c === "(") {
      const literal = literalAt(content, i);
      strings.push(literal.text);
      i = literal.end;
    } else if (c === "<" && content[i + 1] !== "<") {
      const end = content.indexOf(">", i);
      if (end < 0) break;
      hexOnly++;
      i = end + 1;
    } else if (c === "%") {
      const end = content.indexOf("\n", i);
      i = end < 0 ? content.length : end;
    } else if (/[A-Za-z'"*]/.test(c)) {
      const op = /^[A-Za-z'"*]+/.exec(content.slice(i, i + 4))![0];
      i += op.length;
      if (op === "Tj" || op === "TJ" || op === "'" || op === '"') {
        if (op !== "Tj" && op !== "TJ") out += "\n";
        out += strings.join("");
      } else if (op === "Td" || op === "TD" || op === "T*" || op === "ET") out += "\n";
      strings = [];
    } else if (c === "-" && strings.length && /^-\d{3,}/.test(content.slice(i, i + 5))) {
      // A wide negative kerning inside a TJ array is a space between words.
      strings.push(" ");
      i += /^-[\d.]+/.exec(content.slice(i))![0].length;
    } else i++;
  }
  if (!out.trim() && hexOnly > 0) return "glyphs";
  return out;
}

function clean(text: string): string {
  return text
    .replace(/[^\S\n]+/g, " ")
    .replace(/ *\n */g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .replace(/\p{Cc}/gu, (c) => (c === "\n" ? c : ""))
    .trim();
}

export function pdfText(bytes: Uint8Array): PdfText {
  if (bytes.byteLength > PDF_MAX_BYTES) return { ok: false, problem: "too_large" };
  const source = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1");
  if (!source.startsWith("%PDF-")) return { ok: false, problem: "not_pdf" };
  if (/\/Encrypt\b/.test(source)) return { ok: false, problem: "encrypted" };
  let inflated = 0;
  let glyphs = false;
  const parts: string[] = [];
  for (const match of source.matchAll(STREAM)) {
    const start = match.index + match[0].length;
    const end = source.indexOf("endstream", start);
    if (end < 0) break;
    const dictionary = dictionaryBefore(source, match.index);
    if (/\/Subtype\s*\/(Image|Type1C|CIDFontType0C|OpenType|XML)/.test(dictionary) || /\/Type\s*\/(XRef|ObjStm|Metadata)/.test(dictionary))
      continue;
    const filters = [...dictionary.matchAll(/\/(\w+Decode)\b/g)].map((f) => f[1]);
    if (filters.some((f) => f !== "FlateDecode")) continue;
    let raw = Buffer.from(source.slice(start, end).replace(/\r?\n$/, ""), "latin1");
    if (filters.length) {
      try {
        raw = inflateSync(raw, { maxOutputLength: INFLATED_MAX_BYTES - inflated });
      } catch (error) {
        if (error instanceof RangeError) return { ok: false, problem: "too_large" };
        continue;
      }
    }
    inflated += raw.byteLength;
    if (inflated >= INFLATED_MAX_BYTES) return { ok: false, problem: "too_large" };
    const text = textOf(raw.toString("latin1"));
    if (text === "glyphs") glyphs = true;
    else if (text.trim()) parts.push(text);
  }
  const text = clean(parts.join("\n\n"));
  if (text) return { ok: true, text };
  return { ok: false, problem: glyphs ? "unreadable" : "no_text" };
}
