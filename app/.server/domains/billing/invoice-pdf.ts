import { PDFDocument, StandardFonts, rgb, type PDFFont, type PDFPage, type RGB } from "pdf-lib";
import { invoiceWords, unitWords } from "~/lib/invoice-words";
import { encode as encodeQr } from "uqr";
import {
  formatAmount,
  formatInvoiceDate,
  formatInvoiceDateTime,
  formatKes,
  formatQuantity,
  type InvoiceDocument,
  type InvoiceLine,
  type InvoiceStatus,
} from "~/lib/invoice";
import {
  documentTitle,
  documentStatusWords,
  documentTotalLabel,
  detailsHeading,
  numberLabel,
  isTaxDocument,
  amountDueCents,
  coveringInvoiceWords,
  reclassificationWords,
  transferReference,
  etimsPendingText,
  INVOICE_KIND_LABELS,
  vatLabel,
  documentSubtitle,
  formatPeriod,
  formatRate,
  paymentMethodLabel,
  showsBankDetails,
} from "~/lib/invoice-document";
import { intlLocale } from "~/lib/intl";
import { m } from "~/paraglide/messages";

export { sampleInvoice, sampleTopUpReceipt } from "./invoice-sample";

/**
 * An invoice as an A4 PDF, drawn with pdf-lib and the standard Helvetica fonts (nothing to ship or
 * embed). About 25 one-line items fit on the first page with everything else; more flow onto further
 * pages, each repeating the table's header, and every page has a footer with "Page n of N".
 * The output is the same bytes for the same invoice: the document's dates are the invoice's issue time,
 * and nothing else varies (pdf-lib writes no random file id).
 * The standard fonts only have WinAnsi (Windows-1252) glyphs, so every string passes `winAnsiText` first.
 * Its words are the request's language (issue 43): English, Swahili or French, all within WinAnsi; a
 * label longer than the English one it replaces wraps or shrinks where the English one fits as it is.
 */
export async function renderInvoicePdf(invoice: InvoiceDocument): Promise<Uint8Array> {
  const pdf = await PDFDocument.create({ updateMetadata: false });
  setMetadata(pdf, invoice);
  const regular = pdf.embedFont(StandardFonts.Helvetica);
  const bold = pdf.embedFont(StandardFonts.HelveticaBold);
  const sheet = newSheet(pdf, { regular: await regular, bold: await bold });
  drawHeader(sheet, invoice);
  drawParties(sheet, invoice);
  drawLineItems(sheet, invoice);
  drawTotals(sheet, invoice);
  drawPaymentPanels(sheet, invoice);
  drawFooters(sheet, invoice);
  return pdf.save({ useObjectStreams: false });
}

const PAGE_WIDTH = 595.28; // A4 in points
const PAGE_HEIGHT = 841.89;
const MARGIN_X = 42;
const MARGIN_TOP = 40;
const FOOTER_HEIGHT = 52; // the band at the bottom that only the footer uses
const CONTENT_WIDTH = PAGE_WIDTH - 2 * MARGIN_X;

const INK = rgb(0.059, 0.09, 0.165); // slate-900
const MUTED = rgb(0.392, 0.455, 0.545); // slate-500
const RULE = rgb(0.886, 0.91, 0.941); // slate-200
const SHADE = rgb(0.945, 0.961, 0.976); // slate-100
const BRAND = rgb(0.016, 0.471, 0.341); // brand-700, #047857
const STATUS_COLOURS: Record<InvoiceStatus, RGB> = {
  paid: BRAND,
  pending: rgb(0.706, 0.325, 0.035), // amber-700
  overdue: rgb(0.725, 0.11, 0.11), // red-700
  disputed: rgb(0.706, 0.325, 0.035),
  void: MUTED,
};

interface Fonts {
  regular: PDFFont;
  bold: PDFFont;
}

/** Where drawing has got to: the current page and the top of the free space on it (y counts up from the bottom). */
interface Sheet {
  pdf: PDFDocument;
  fonts: Fonts;
  page: PDFPage;
  y: number;
  characters: Set<number>;
}

interface TextStyle {
  size?: number;
  bold?: boolean;
  colour?: RGB;
}

function setMetadata(pdf: PDFDocument, invoice: InvoiceDocument) {
  const issued = new Date(invoice.issuedAt);
  pdf.setTitle(winAnsiText(m.documents_pdf_title({ number: invoice.number }), null));
  pdf.setAuthor(winAnsiText(invoice.seller.name, null));
  pdf.setSubject(winAnsiText(m.documents_pdf_subject({ kind: INVOICE_KIND_LABELS[invoice.kind], buyer: invoice.buyer.name }), null));
  pdf.setCreator("Jumbe");
  pdf.setProducer("Jumbe (pdf-lib)");
  pdf.setLanguage(intlLocale());
  if (!Number.isNaN(issued.getTime())) {
    pdf.setCreationDate(issued);
    pdf.setModificationDate(issued);
  }
}

function newSheet(pdf: PDFDocument, fonts: Fonts): Sheet {
  const page = pdf.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
  return { pdf, fonts, page, y: PAGE_HEIGHT - MARGIN_TOP, characters: new Set(fonts.regular.getCharacterSet()) };
}

/** Starts a new page when `height` more points would run into the footer; true when it did. */
function makeRoom(sheet: Sheet, height: number, invoice: InvoiceDocument): boolean {
  if (sheet.y - height >= FOOTER_HEIGHT) return false;
  sheet.page = sheet.pdf.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
  sheet.y = PAGE_HEIGHT - MARGIN_TOP;
  text(sheet, m.documents_pdf_continued({ title: documentTitle(invoice), number: invoice.number }), MARGIN_X, sheet.y, {
    size: 9,
    bold: true,
    colour: MUTED,
  });
  sheet.y -= 22;
  return true;
}

// Characters the standard fonts lack but that have a plain stand-in.
const STAND_INS: Record<string, string> = {
  "\u00a0": " ",
  "\u202f": " ",
  "\u2009": " ",
  "\u2011": "-",
  "\u2212": "-",
  "\u2044": "/",
  "\u00ad": "",
};

// Characters French writes that WinAnsi has but Latin-1 lacks: their plain forms where only Latin-1 is kept (metadata).
const LATIN1_STAND_INS: Record<string, string> = {
  "\u2018": "'",
  "\u2019": "'",
  "\u201c": '"',
  "\u201d": '"',
  "\u0153": "oe",
  "\u0152": "OE",
  "\u2013": "-",
  "\u2014": "-",
  "\u2026": "...",
};

/**
 * `value` with only characters Helvetica can draw: no-break and thin spaces become spaces, accented
 * letters outside WinAnsi lose their accents, line breaks and tabs become spaces, and anything else
 * unknown becomes "?" (other scripts) or nothing (emoji), so the invoice still renders; runs of spaces
 * become one. `characters` is the font's
 * set (null: keep printable ASCII and Latin-1 only, for metadata, where curly quotes, dashes and "œ" take
 * their plain forms). Swahili and French are drawn whole: their letters, "«»", "œ" and "’" are all WinAnsi,
 * and the no-break spaces French amounts carry (U+00A0, U+202F) become spaces.
 */
export function winAnsiText(value: string, characters: Set<number> | null): string {
  const drawable = (char: string) => {
    const code = char.codePointAt(0)!;
    return characters ? characters.has(code) && code >= 0x20 : (code >= 0x20 && code < 0x7f) || (code >= 0xa1 && code <= 0xff);
  };
  let out = "";
  for (const char of value) {
    if (char in STAND_INS) out += STAND_INS[char];
    else if (/\s/u.test(char)) out += " ";
    else if (drawable(char)) out += char;
    else if (!characters && char in LATIN1_STAND_INS) out += LATIN1_STAND_INS[char];
    else if (/\p{Extended_Pictographic}|\p{Emoji_Modifier}|\p{Regional_Indicator}|\p{M}|\p{Cf}/u.test(char)) continue;
    else {
      const plain = char.normalize("NFKD").replace(/\p{M}/gu, "");
      out += plain && [...plain].every(drawable) ? plain : "?";
    }
  }
  return out.replace(/ {2,}/g, " ").trim();
}

function fontOf(sheet: Sheet, style: TextStyle) {
  return style.bold ? sheet.fonts.bold : sheet.fonts.regular;
}

function widthOf(sheet: Sheet, value: string, style: TextStyle) {
  return fontOf(sheet, style).widthOfTextAtSize(winAnsiText(value, sheet.characters), style.size ?? 9);
}

/** Draws one line of text whose top is at `top` (pdf-lib places text by its baseline). */
function text(sheet: Sheet, value: string, x: number, top: number, style: TextStyle = {}) {
  const size = style.size ?? 9;
  sheet.page.drawText(winAnsiText(value, sheet.characters), {
    x,
    y: top - size * 0.78,
    size,
    font: fontOf(sheet, style),
    color: style.colour ?? INK,
  });
}

function textRight(sheet: Sheet, value: string, right: number, top: number, style: TextStyle = {}) {
  text(sheet, value, right - widthOf(sheet, value, style), top, style);
}

/** The size, from `style`'s down to 6 pt in half points, at which `value` fits `width` (6 if none does). */
function sizeToFit(sheet: Sheet, value: string, width: number, style: TextStyle) {
  let size = style.size ?? 9;
  while (size > 6 && widthOf(sheet, value, { ...style, size }) > width) size -= 0.5;
  return size;
}

/** `value` broken into lines no wider than `width`; a word longer than the width is broken where it must be. */
function wrap(sheet: Sheet, value: string, width: number, style: TextStyle = {}): string[] {
  const lines: string[] = [];
  let current = "";
  for (const word of winAnsiText(value, sheet.characters).split(" ").filter(Boolean)) {
    const candidate = current ? `${current} ${word}` : word;
    if (widthOf(sheet, candidate, style) <= width) {
      current = candidate;
      continue;
    }
    if (current) lines.push(current);
    current = word;
    while (widthOf(sheet, current, style) > width && current.length > 1) {
      let cut = current.length - 1;
      while (cut > 1 && widthOf(sheet, current.slice(0, cut), style) > width) cut--;
      lines.push(current.slice(0, cut));
      current = current.slice(cut);
    }
  }
  if (current) lines.push(current);
  return lines.length ? lines : [""];
}

/** Draws wrapped text from `top` down; returns the height used. */
function paragraph(sheet: Sheet, value: string, x: number, top: number, width: number, style: TextStyle = {}, leading = 1.3) {
  const size = style.size ?? 9;
  const lines = wrap(sheet, value, width, style);
  lines.forEach((line, i) => text(sheet, line, x, top - i * size * leading, style));
  return lines.length * size * leading;
}

function rule(sheet: Sheet, y: number, x = MARGIN_X, width = CONTENT_WIDTH, colour = RULE, thickness = 0.75) {
  sheet.page.drawLine({ start: { x, y }, end: { x: x + width, y }, thickness, color: colour });
}

/** The seller on the left; the title, number and status on the right; a brand-coloured band above. */
function drawHeader(sheet: Sheet, invoice: InvoiceDocument) {
  sheet.page.drawRectangle({ x: 0, y: PAGE_HEIGHT - 6, width: PAGE_WIDTH, height: 6, color: BRAND });
  const top = sheet.y;
  const right = PAGE_WIDTH - MARGIN_X;
  let left = top;
  left -= paragraph(sheet, invoice.seller.name, MARGIN_X, left, 290, { size: 14, bold: true }, 1.2) + 3;
  left -= paragraph(sheet, invoice.seller.address, MARGIN_X, left, 250, { size: 8.5, colour: MUTED });
  text(sheet, m.documents_pdf_seller_pin({ pin: invoice.seller.kraPin }), MARGIN_X, left - 2, { size: 8.5, bold: true });
  left -= 14;

  // The right-hand column has what the seller's name (290 points) and address (250) leave: a longer title or subtitle shrinks.
  const title = documentTitle(invoice);
  const titleStyle = { size: 20, bold: true, colour: BRAND };
  textRight(sheet, title, right, top, { ...titleStyle, size: sizeToFit(sheet, title, CONTENT_WIDTH - 300, titleStyle) });
  textRight(sheet, invoice.number, right, top - 26, { size: 11, bold: true });
  const status = documentStatusWords(invoice).toUpperCase();
  textRight(sheet, status, right, top - 42, { size: 9, bold: true, colour: STATUS_COLOURS[invoice.status] });
  let titleBottom = top - 54;
  const subtitle = documentSubtitle(invoice);
  if (subtitle) {
    textRight(sheet, subtitle, right, titleBottom, { size: sizeToFit(sheet, subtitle, CONTENT_WIDTH - 260, { size: 8 }), colour: MUTED });
    titleBottom -= 12;
  }
  sheet.y = Math.min(left, titleBottom) - 8;
  rule(sheet, sheet.y);
  sheet.y -= 12;
}

/**
 * Where a column of labels ends: at `labelWidth`, or further (up to 45% of `width`) when a label is
 * wider (another language's); a label wider still wraps within it.
 */
function labelColumn(sheet: Sheet, rows: [string, string][], width: number, labelWidth: number, size: number) {
  const widest = Math.max(0, ...rows.map(([label]) => widthOf(sheet, label, { size })));
  return widest + LABEL_GAP <= labelWidth ? labelWidth : Math.max(labelWidth, Math.min(widest + LABEL_GAP, width * 0.45));
}
const LABEL_GAP = 6;

/** How tall a label and value row is: its label's or its value's lines, whichever are more. */
function rowLines(sheet: Sheet, [label, value]: [string, string], column: number, width: number, size: number) {
  return Math.max(wrap(sheet, label, column - LABEL_GAP, { size }).length, wrap(sheet, value, width - column, { size }).length);
}

/** Label and value rows, the label in grey on the left; returns the height used. */
function detailRows(sheet: Sheet, rows: [string, string][], x: number, top: number, width: number, labelWidth = 78) {
  const column = labelColumn(sheet, rows, width, labelWidth, 8.5);
  let y = top;
  for (const [label, value] of rows) {
    const labelHeight = paragraph(sheet, label, x, y, column - LABEL_GAP, { size: 8.5, colour: MUTED });
    y -= Math.max(labelHeight, paragraph(sheet, value, x + column, y, width - column, { size: 8.5 })) + 2.5;
  }
  return top - y;
}

function sectionLabel(sheet: Sheet, label: string, x: number, top: number) {
  text(sheet, label.toUpperCase(), x, top, { size: 7.5, bold: true, colour: MUTED });
}

/** The buyer ("Bill to") on the left, the invoice's dates and kind on the right. */
function drawParties(sheet: Sheet, invoice: InvoiceDocument) {
  const top = sheet.y;
  const column = CONTENT_WIDTH / 2 - 10;
  const { buyer } = invoice;
  sectionLabel(sheet, m.documents_pdf_bill_to(), MARGIN_X, top);
  const nameHeight = paragraph(sheet, buyer.name, MARGIN_X, top - 13, column, { size: 10.5, bold: true }, 1.25);
  const buyerRows: [string, string][] = [[m.documents_kra_pin(), buyer.kraPin ?? m.documents_pdf_not_provided()]];
  if (buyer.address) buyerRows.push([m.documents_pdf_address(), buyer.address]);
  if (buyer.county) buyerRows.push([m.documents_pdf_county(), buyer.county]);
  buyerRows.push([m.documents_pdf_business_id(), buyer.businessId]);
  if (buyer.email) buyerRows.push([m.documents_pdf_email(), buyer.email]);
  const buyerHeight = 16 + nameHeight + detailRows(sheet, buyerRows, MARGIN_X, top - 16 - nameHeight, column, 62);

  const x = MARGIN_X + CONTENT_WIDTH / 2 + 10;
  sectionLabel(sheet, detailsHeading(invoice), x, top);
  const period = formatPeriod(invoice);
  const details: [string, string][] = [
    [numberLabel(invoice), invoice.number],
    [m.documents_pdf_issued(), `${formatInvoiceDateTime(invoice.issuedAt)} (Nairobi)`],
  ];
  if (invoice.dueAt) details.push([m.documents_pdf_due(), formatInvoiceDate(invoice.dueAt)]);
  if (period) details.push([m.documents_pdf_period(), period]);
  details.push([m.documents_pdf_type(), INVOICE_KIND_LABELS[invoice.kind]]);
  details.push([m.documents_pdf_status(), documentStatusWords(invoice)]);
  const detailsHeight = 13 + detailRows(sheet, details, x, top - 13, column);

  sheet.y = top - Math.max(buyerHeight, detailsHeight) - 6;
}

/** A column of the lines table: text columns wrap (shrinking first when `shrink`), figure columns shrink to fit. */
interface Column {
  /** In the request's language: read when the table is drawn. */
  header: () => string;
  width: number;
  kind: "text" | "figure";
  cell: (line: InvoiceLine) => string;
  shrink?: boolean;
  muted?: boolean;
}

const FIXED_COLUMNS: Column[] = [
  { header: m.documents_pdf_column_item_code, width: 66, kind: "text", shrink: true, muted: true, cell: (line) => line.itemCode },
  { header: m.documents_pdf_column_description, width: 0, kind: "text", cell: (line) => invoiceWords(line.description) },
  { header: m.documents_pdf_column_quantity, width: 40, kind: "figure", cell: (line) => formatQuantity(line.quantity) },
  { header: m.documents_pdf_column_unit, width: 42, kind: "text", shrink: true, cell: (line) => unitWords(line.unit) },
  { header: m.documents_pdf_column_unit_price, width: 52, kind: "figure", cell: (line) => formatAmount(line.unitPriceCents) },
  { header: m.documents_pdf_column_net, width: 58, kind: "figure", cell: (line) => formatAmount(line.netCents) },
  { header: vatLabel, width: 50, kind: "figure", cell: (line) => formatAmount(line.vatCents) },
  { header: m.documents_pdf_column_gross, width: 60, kind: "figure", cell: (line) => formatAmount(line.grossCents) },
];
/** The description takes whatever width the other columns leave. */
const withDescriptionWidth = (columns: Column[]) =>
  columns.map((column) =>
    column.width ? column : { ...column, width: CONTENT_WIDTH - columns.reduce((sum, other) => sum + other.width, 0) },
  );
const TAX_COLUMNS = withDescriptionWidth(FIXED_COLUMNS);
// A receipt charges no VAT (decision 050): one amount a line, no net, VAT and gross columns.
const RECEIPT_COLUMNS = withDescriptionWidth([
  ...FIXED_COLUMNS.slice(0, 5),
  { header: m.documents_column_amount, width: 60, kind: "figure", cell: (line) => formatAmount(line.grossCents) },
]);
const columnsOf = (invoice: InvoiceDocument) => (isTaxDocument(invoice) ? TAX_COLUMNS : RECEIPT_COLUMNS);
const CELL_PADDING = 4;
const ROW_SIZE = 8;
const ROW_LEADING = 9.5;
const ROW_PADDING = 5; // 3 above the text, 2 below

/** The caption above the table and its shaded header row. */
function drawTableHeader(sheet: Sheet, invoice: InvoiceDocument) {
  const note = invoice.pricesIncludeVat ? m.documents_pdf_items_note_vat_included() : m.documents_pdf_items_note_vat_excluded();
  text(sheet, m.documents_pdf_items(), MARGIN_X, sheet.y, { size: 9, bold: true });
  textRight(sheet, note, PAGE_WIDTH - MARGIN_X, sheet.y + 0.5, { size: 7.5, colour: MUTED });
  sheet.y -= 14;
  sheet.page.drawRectangle({ x: MARGIN_X, y: sheet.y - 16, width: CONTENT_WIDTH, height: 16, color: SHADE });
  let x = MARGIN_X;
  for (const column of columnsOf(invoice)) {
    const header = column.header();
    // A header longer than its column (another language's) shrinks to fit it.
    const bold = { size: 7.5, bold: true };
    const style = { ...bold, size: sizeToFit(sheet, header, column.width - 2 * CELL_PADDING, bold), colour: MUTED };
    if (column.kind === "figure") textRight(sheet, header, x + column.width - CELL_PADDING, sheet.y - 5, style);
    else text(sheet, header, x + CELL_PADDING, sheet.y - 5, style);
    x += column.width;
  }
  sheet.y -= 16;
}

interface Cell {
  column: Column;
  size: number;
  lines: string[];
}

/** A cell's text laid out in its column: a short code or unit shrinks to fit before it wraps; a description wraps. */
function layOutCell(sheet: Sheet, column: Column, line: InvoiceLine): Cell {
  const value = column.cell(line);
  const width = column.width - 2 * CELL_PADDING;
  if (column.kind === "figure") return { column, size: sizeToFit(sheet, value, width, { size: ROW_SIZE }), lines: [value] };
  const size = column.shrink ? sizeToFit(sheet, value, width, { size: ROW_SIZE }) : ROW_SIZE;
  return { column, size, lines: wrap(sheet, value, width, { size }) };
}

/** One row per line; a long description (or a very long code or unit) wraps and the row grows. */
function drawLineItems(sheet: Sheet, invoice: InvoiceDocument) {
  drawTableHeader(sheet, invoice);
  for (const line of invoice.lines) {
    const cells = columnsOf(invoice).map((column) => layOutCell(sheet, column, line));
    const height = Math.max(...cells.map((cell) => cell.lines.length)) * ROW_LEADING + ROW_PADDING;
    if (makeRoom(sheet, height, invoice)) drawTableHeader(sheet, invoice);
    drawRow(sheet, cells, height);
  }
  if (!invoice.lines.length) {
    text(sheet, m.documents_pdf_no_items(), MARGIN_X + CELL_PADDING, sheet.y - 3, { size: ROW_SIZE, colour: MUTED });
    sheet.y -= ROW_LEADING + ROW_PADDING;
  }
}

function drawRow(sheet: Sheet, cells: Cell[], height: number) {
  let x = MARGIN_X;
  for (const { column, size, lines } of cells) {
    const top = sheet.y - 3 - (ROW_SIZE - size) / 2; // a shrunken cell sits on the row's middle line
    const style = { size, colour: column.muted ? MUTED : INK };
    lines.forEach((part, i) => {
      if (column.kind === "figure") textRight(sheet, part, x + column.width - CELL_PADDING, top - i * ROW_LEADING, style);
      else text(sheet, part, x + CELL_PADDING, top - i * ROW_LEADING, style);
    });
    x += column.width;
  }
  sheet.y -= height;
  rule(sheet, sheet.y + 0.5);
}

/** A line of the totals: its label, its amount and how both are drawn. */
interface TotalRow {
  label: string;
  amount: string;
  style: TextStyle;
  labelColour?: RGB;
}

const TOTALS_WIDTH = 210;
const TOTALS_GAP = 8; // the least room between a label and its amount

/** The totals on the right; on the left, how VAT was worked out. */
function drawTotals(sheet: Sheet, invoice: InvoiceDocument) {
  makeRoom(sheet, invoice.credited?.cents ? 102 : 74, invoice);
  const top = sheet.y - 10;
  const right = PAGE_WIDTH - MARGIN_X;
  const small = { size: 9 };
  const large = { size: 11, bold: true };
  // A receipt charges no VAT of its own: it shows the amount received, and names the tax invoice that does.
  const rows: TotalRow[] = !isTaxDocument(invoice)
    ? []
    : [
        { label: m.documents_pdf_net_amount(), amount: formatKes(invoice.netCents), style: small, labelColour: MUTED },
        { label: vatLabel(), amount: formatKes(invoice.vatCents), style: small, labelColour: MUTED },
      ];
  const total: TotalRow = {
    label: documentTotalLabel(invoice),
    amount: formatKes(invoice.totalCents),
    style: large,
  };
  const after: TotalRow[] = [];
  if (invoice.credited && invoice.credited.cents > 0) {
    const notes = invoice.credited.notes.join(", ");
    after.push({
      label: m.documents_pdf_credited({ notes }),
      amount: `-${formatKes(invoice.credited.cents)}`,
      style: small,
      labelColour: MUTED,
    });
    if (invoice.status === "pending" || invoice.status === "overdue") {
      after.push({ label: m.documents_pdf_amount_due(), amount: formatKes(amountDueCents(invoice)), style: large });
    }
  }
  // 210 points, wider (up to the VAT note's edge) when a label and its amount need more; a label that still does not fit shrinks.
  const needed = [...rows, total, ...after].map(
    (row) => widthOf(sheet, row.label, row.style) + TOTALS_GAP + widthOf(sheet, row.amount, row.style),
  );
  const width = Math.min(Math.max(TOTALS_WIDTH, ...needed), CONTENT_WIDTH - 258);
  const labelX = right - width;
  const drawTotalRow = (row: TotalRow, y: number) => {
    const room = width - TOTALS_GAP - widthOf(sheet, row.amount, row.style);
    text(sheet, row.label, labelX, y, { ...row.style, size: sizeToFit(sheet, row.label, room, row.style), colour: row.labelColour });
    textRight(sheet, row.amount, right, y, row.style);
  };
  rows.forEach((row, i) => drawTotalRow(row, top - i * 14));
  const totalTop = top - rows.length * 14 - 2;
  rule(sheet, totalTop + 3, labelX, width, INK, 1);
  drawTotalRow(total, totalTop - 4);
  let bottom = totalTop - 4;
  for (const row of after) drawTotalRow(row, (bottom -= 14));

  const rate = formatRate();
  const how =
    coveringInvoiceWords(invoice) ??
    reclassificationWords(invoice) ??
    (invoice.pricesIncludeVat ? m.documents_pdf_vat_note_included({ rate }) : m.documents_pdf_vat_note_excluded({ rate }));
  const howHeight = paragraph(sheet, how, MARGIN_X, top, 250, { size: 7.5, colour: MUTED });
  // Below the totals, and below the note when it is the longer (another language's words can take a line more).
  sheet.y = Math.min(totalTop - 24, bottom - 20, top - howHeight - 6);
}

interface Panel {
  title: string;
  rows: [string, string][];
  note?: string;
  qr?: string;
}

function paymentPanel(invoice: InvoiceDocument): Panel {
  // A credit note is not paid: it names the invoice it credits (a fact of its issue).
  if (invoice.kind === "credit_note")
    return { title: m.documents_credit(), rows: [[m.documents_credits_invoice(), invoice.credits?.number ?? "-"]] };
  const rows: [string, string][] = [[m.documents_pdf_status(), documentStatusWords(invoice)]];
  rows.push([m.documents_pdf_method(), paymentMethodLabel(invoice) ?? m.documents_pdf_not_paid_yet()]);
  // While a transfer is awaited its reference is shown once, in the bank panel.
  if (invoice.payment.reference && !(showsBankDetails(invoice) && invoice.bank))
    rows.push([m.documents_pdf_reference(), invoice.payment.reference]);
  if (invoice.paidAt) rows.push([m.documents_pdf_paid_at(), formatInvoiceDateTime(invoice.paidAt)]);
  if (invoice.valueDate) rows.push([m.documents_value_date(), formatInvoiceDate(invoice.valueDate)]);
  return { title: m.documents_pdf_payment(), rows };
}

function bankPanel(invoice: InvoiceDocument): Panel | null {
  if (!showsBankDetails(invoice) || !invoice.bank) return null;
  const { bank } = invoice;
  return {
    title: m.documents_pdf_pay_by_bank(),
    rows: [
      [m.documents_pdf_bank(), bank.bank],
      [m.documents_pdf_branch(), bank.branch],
      [m.documents_pdf_account_name(), bank.accountName],
      [m.documents_pdf_account_number(), bank.accountNumber],
      [m.documents_pdf_reference(), transferReference(invoice)],
    ],
  };
}

function etimsPanel(invoice: InvoiceDocument): Panel | null {
  // A receipt is not a tax document: nothing of it goes to KRA eTIMS.
  if (!isTaxDocument(invoice)) return null;
  const { cuSerial, cuInvoiceNumber, qrUrl } = invoice.etims;
  if (!cuSerial && !cuInvoiceNumber) return { title: "KRA eTIMS", rows: [], note: etimsPendingText() };
  // KRA's names for the control unit's fields, the same in every language.
  return {
    title: "KRA eTIMS",
    rows: [
      ["CU serial no.", cuSerial ?? "-"],
      ["CU invoice no.", cuInvoiceNumber ?? "-"],
    ],
    qr: qrUrl ?? undefined,
  };
}

const QR_SIZE = 58;
const PANEL_LABEL_WIDTH = 62;
const PANEL_ROW_GAP = 1.5;

/** Payment, bank transfer (while unpaid) and eTIMS side by side in bordered boxes. */
function drawPaymentPanels(sheet: Sheet, invoice: InvoiceDocument) {
  const panels = [paymentPanel(invoice), bankPanel(invoice), etimsPanel(invoice)].filter((panel): panel is Panel => panel !== null);
  const gap = 10;
  const width = (CONTENT_WIDTH - gap * (panels.length - 1)) / panels.length;
  const height = Math.max(...panels.map((panel) => panelHeight(sheet, panel, width)));
  makeRoom(sheet, height, invoice);
  panels.forEach((panel, i) => drawPanel(sheet, panel, MARGIN_X + i * (width + gap), sheet.y, width, height));
  sheet.y -= height + 12;
}

function panelHeight(sheet: Sheet, panel: Panel, width: number) {
  const inner = width - 16;
  const column = labelColumn(sheet, panel.rows, inner, PANEL_LABEL_WIDTH, 8);
  let height = 8 + 14;
  for (const row of panel.rows) height += rowLines(sheet, row, column, inner, 8) * 8 * 1.3 + PANEL_ROW_GAP;
  if (panel.note) height += wrap(sheet, panel.note, inner, { size: 8.5, bold: true }).length * 11;
  if (panel.qr) height += QR_SIZE + 6;
  return height + 8;
}

function drawPanel(sheet: Sheet, panel: Panel, x: number, top: number, width: number, height: number) {
  sheet.page.drawRectangle({ x, y: top - height, width, height, borderColor: RULE, borderWidth: 0.75 });
  const inner = x + 8;
  const column = labelColumn(sheet, panel.rows, width - 16, PANEL_LABEL_WIDTH, 8);
  sectionLabel(sheet, panel.title, inner, top - 8);
  let y = top - 22;
  for (const [label, value] of panel.rows) {
    const labelHeight = paragraph(sheet, label, inner, y, column - LABEL_GAP, { size: 8, colour: MUTED });
    y -= Math.max(labelHeight, paragraph(sheet, value, inner + column, y, width - 16 - column, { size: 8 })) + PANEL_ROW_GAP;
  }
  if (panel.note) paragraph(sheet, panel.note, inner, y, width - 16, { size: 8.5, bold: true, colour: STATUS_COLOURS.pending });
  if (panel.qr) drawQr(sheet, panel.qr, inner, y - 4, QR_SIZE);
}

/** The eTIMS QR code drawn as rectangles, one per dark run in each row (no image to embed). */
function drawQr(sheet: Sheet, value: string, x: number, top: number, size: number) {
  const { data, size: modules } = encodeQr(value, { ecc: "M", border: 0 });
  const cell = size / modules;
  data.forEach((row, r) => {
    let c = 0;
    while (c < row.length) {
      if (!row[c]) {
        c++;
        continue;
      }
      const start = c;
      while (c < row.length && row[c]) c++;
      sheet.page.drawRectangle({ x: x + start * cell, y: top - (r + 1) * cell, width: (c - start) * cell, height: cell, color: INK });
    }
  });
}

/** On every page: who issued it and its PIN, the invoice number and "Page n of N". */
function drawFooters(sheet: Sheet, invoice: InvoiceDocument) {
  const pages = sheet.pdf.getPages();
  pages.forEach((page, index) => {
    const onPage = { ...sheet, page };
    rule(onPage, FOOTER_HEIGHT - 14);
    const top = FOOTER_HEIGHT - 20;
    const pageNumber = m.documents_pdf_page({ number: invoice.number, page: index + 1, pages: pages.length });
    textRight(onPage, pageNumber, PAGE_WIDTH - MARGIN_X, top, { size: 7, colour: MUTED });
    const seller = `${invoice.seller.name} · ${m.documents_kra_pin()} ${invoice.seller.kraPin} · ${invoice.seller.address}`;
    const room = CONTENT_WIDTH - widthOf(onPage, pageNumber, { size: 7 }) - 16;
    text(onPage, seller, MARGIN_X, top, { size: sizeToFit(onPage, seller, room, { size: 7 }), colour: MUTED });
    const thanks = m.documents_pdf_footer();
    text(onPage, thanks, MARGIN_X, top - 10, { size: sizeToFit(onPage, thanks, CONTENT_WIDTH, { size: 7 }), colour: MUTED });
  });
}
