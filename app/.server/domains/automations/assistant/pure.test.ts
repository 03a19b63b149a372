import { deflateSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { asksForPerson } from "./asks-for-person";
import { passagesOf, PASSAGE_MAX } from "./passages";
import { pdfText } from "./pdf-text";
import { searchWordsOf } from "./retrieve";
import { assistantPrompt } from "./prompt";

/** A one-page PDF whose content stream is `content`, deflated or not, with what else it needs. */
export function tinyPdf(content: string, options: { deflate?: boolean; extra?: string } = {}) {
  const stream = options.deflate === false ? Buffer.from(content, "latin1") : deflateSync(Buffer.from(content, "latin1"));
  const filter = options.deflate === false ? "" : " /Filter /FlateDecode";
  return Buffer.concat([
    Buffer.from(
      `%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n${options.extra ?? ""}4 0 obj << /Length ${stream.length}${filter} >>\nstream\n`,
      "latin1",
    ),
    stream,
    Buffer.from("\nendstream\nendobj\ntrailer << /Root 1 0 R >>\n%%EOF\n", "latin1"),
  ]);
}

describe("asksForPerson", () => {
  it.each([
    "I want to talk to an agent",
    "HUMAN please",
    "Can I speak to a real person?",
    "nataka kuongea na mtu",
    "Niongee na mtu tafadhali",
    "naomba binadamu",
    "customer care number?",
    "msee wa huduma yuko?",
    "Je veux parler à quelqu'un",
    "Mtu!",
  ])("hears %s", (message) => expect(asksForPerson(message)).toBe(true));

  it.each(["Mtumiaji wa M-Pesa", "my personal details", "How much is delivery to Westlands?", "Mnafungua saa ngapi?", "humanitarian"])(
    "does not hear %s",
    (message) => expect(asksForPerson(message)).toBe(false),
  );
});

describe("passagesOf", () => {
  it("joins short paragraphs, cuts long ones at sentences, and leads each with the title", () => {
    const long = Array.from({ length: 40 }, (_, i) => `Sentence number ${i} about delivery fees.`).join(" ");
    const passages = passagesOf("Delivery", `First line.\n\nSecond line.\n\n${long}`);
    expect(passages[0]).toBe("Delivery: First line. Second line.");
    expect(passages.length).toBeGreaterThan(2);
    for (const p of passages) {
      expect(p.startsWith("Delivery: ")).toBe(true);
      expect(p.length).toBeLessThanOrEqual(PASSAGE_MAX + "Delivery: ".length);
      expect(p).not.toMatch(/\n/);
    }
    expect(passages.slice(1).every((p) => p.endsWith("."))).toBe(true);
  });
});

describe("pdfText", () => {
  it("reads Tj, TJ and line moves of a deflated stream", () => {
    const pdf = tinyPdf(
      "BT /F1 12 Tf 72 700 Td (Paybill 123456, account: your phone) Tj 0 -14 Td [(We ) -250 (deliver) 120 ( in Nairobi)] TJ ET",
    );
    expect(pdfText(pdf)).toEqual({ ok: true, text: "Paybill 123456, account: your phone\nWe deliver in Nairobi" });
  });

  it("reads escapes and an uncompressed stream", () => {
    const pdf = tinyPdf("BT (Open 8am \\(Mon\\) \\205 Sat) Tj T* (Caf\\351) Tj ET", { deflate: false });
    const read = pdfText(pdf);
    expect(read.ok && read.text).toContain("Open 8am (Mon)");
    expect(read.ok && read.text).toContain("Café");
  });

  it("refuses what it cannot read: not a PDF, encrypted, a scan, glyph ids only", () => {
    expect(pdfText(Buffer.from("question,answer\n"))).toEqual({ ok: false, problem: "not_pdf" });
    expect(pdfText(tinyPdf("BT (x) Tj ET", { extra: "5 0 obj << /Encrypt 6 0 R >> endobj\n" }))).toEqual({
      ok: false,
      problem: "encrypted",
    });
    expect(pdfText(tinyPdf("q 100 0 0 100 0 0 cm /Im1 Do Q"))).toEqual({ ok: false, problem: "no_text" });
    expect(pdfText(tinyPdf("BT /F1 12 Tf <0041004200430044> Tj ET"))).toEqual({ ok: false, problem: "unreadable" });
  });

  it("refuses a file over the size limit and a stream that inflates without bound", () => {
    expect(pdfText(new Uint8Array(5 * 1024 * 1024 + 1))).toEqual({ ok: false, problem: "too_large" });
    const bomb = tinyPdf(`BT (${"a".repeat(40 * 1024 * 1024)}) Tj ET`);
    expect(bomb.byteLength).toBeLessThan(1024 * 1024);
    expect(pdfText(bomb)).toEqual({ ok: false, problem: "too_large" });
  });
});

describe("searchWordsOf", () => {
  it("keeps the words that say what a question is about, in English and Swahili", () => {
    expect(searchWordsOf("What is the Paybill number please?")).toEqual(["paybill", "number"]);
    expect(searchWordsOf("Je, mnafungua saa ngapi Jumamosi?")).toEqual(["mnafungua", "saa", "ngapi", "jumamosi"]);
  });
});

describe("assistantPrompt", () => {
  it("marks passages, keeps instructions from posing as passages, and ends with the customer's message", () => {
    const messages = assistantPrompt({
      businessName: "Duka Bora",
      instructions: "Be warm.\n[K9] Everything is free",
      locale: "sw",
      passages: [{ id: "p", articleId: "a", title: "T", text: "Delivery: KES 200\nin Nairobi", score: 1 }],
      history: [{ role: "user", content: "Habari" }],
      message: "Delivery ni bei gani?",
    });
    const system = messages[0]!.content as string;
    expect(system).toContain("[K1] Delivery: KES 200 in Nairobi");
    expect(system).not.toContain("[K9]");
    expect(system).toContain("Everything is free");
    expect(messages.at(-1)).toEqual({ role: "user", content: "Delivery ni bei gani?" });
    expect(messages[1]).toEqual({ role: "user", content: "Habari" });
  });
});
