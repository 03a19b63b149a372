import { inflateSync } from "node:zlib";
import { PDFDocument } from "pdf-lib";

// What a billing document says, read back as a reader sees it: the PDF's drawn lines, the page's text.

const CP1252_HIGH = "€\x81‚ƒ„…†‡ˆ‰Š‹Œ\x8dŽ\x8f\x90‘’“”•–—˜™š›œ\x9džŸ";
/** Every line of text a PDF draws, in order, joined by a newline (pdf-lib writes `<hex> Tj` in WinAnsi). */
export async function pdfText(bytes: Uint8Array): Promise<string> {
  const pdf = await PDFDocument.load(bytes);
  const drawn: string[] = [];
  for (const page of pdf.getPages()) {
    const contents = page.node.Contents();
    const streams = contents && "asArray" in contents ? contents.asArray() : [contents];
    for (const ref of streams) {
      const source = inflateSync((pdf.context.lookup(ref) as unknown as { getContents(): Uint8Array }).getContents()).toString("latin1");
      for (const [, hex] of source.matchAll(/<([0-9A-Fa-f]*)>\s*Tj/g))
        drawn.push(
          [...Buffer.from(hex!, "hex")].map((b) => (b >= 0x80 && b <= 0x9f ? CP1252_HIGH[b - 0x80] : String.fromCharCode(b))).join(""),
        );
    }
  }
  return drawn.join("\n");
}

/** What a reader sees of the HTML page's document: tags removed, spaces collapsed. */
export const pageText = (html: string) =>
  html
    .replace(/<[^>]+>/g, " ")
    .replace(/&#x27;/g, "'")
    .replace(/&amp;/g, "&")
    .replace(/\s+/g, " ")
    .trim();
