import { can } from "~/lib/permissions";
import { PDFDocument, StandardFonts, rgb, type PDFFont, type PDFPage } from "pdf-lib";
import { sql } from "drizzle-orm";
import { db } from "../../infrastructure/db/client";
import { queryRow, queryRows } from "../../infrastructure/db/query";
import { inLocale } from "../../infrastructure/http/display-zone";
import { winAnsiText } from "../billing";
import { formatAmount, formatKes } from "~/lib/invoice";
import { formatNumber } from "~/lib/dates";
import { dateTimeFormat, formatDateWords, intlLocale, numberFormat } from "~/lib/intl";
import { m } from "~/paraglide/messages";
import type { Locale } from "~/paraglide/runtime";
import type { Role } from "~/lib/permissions";

/**
 * A settlement's statement (issue 46, decision 087): an A4 PDF with the partner, the month, each
 * client organisation's transactions, revenue and share, then the month's revenue, share,
 * withholding, net, the cents carried in from earlier settlements and out to the next (M-Pesa pays
 * whole shillings, issue 72), what is paid, and the payout's reference. Drawn like invoices (pdf-lib, Helvetica, WinAnsi),
 * in the reader's language.
 */

export interface StatementReader {
  role: Role;
  organizationId: string;
}

interface SettlementHead {
  id: string;
  partner_id: string;
  organization_id: string;
  partner_name: string;
  kra_pin: string;
  period: string;
  transactions: number;
  revenue_cents: string;
  partner_cents: string;
  withholding_bps: number;
  withholding_cents: string;
  net_cents: string;
  carried_in_cents: string;
  carried_out_cents: string;
  payable_cents: string;
  status: "pending" | "processing" | "paid" | "failed";
  payout_method: "mpesa" | "bank";
  payout_reference: string | null;
  paid_at: Date | string | null;
  created_at: Date | string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The settlement `reader` may read: a platform administrator any; a partner organisation's owner or
 * admin only its own; anyone else (and an unknown id) none, so a page answers 404 alike.
 */
export async function readableSettlement(reader: StatementReader, settlementId: string) {
  if (!UUID.test(settlementId)) return null;
  // The console's money staff (owners and finance; issue 74): support staff read no statement.
  const admin = can(reader.role, "platform:money");
  if (!admin && reader.role !== "owner" && reader.role !== "admin") return null;
  const head = await queryRow<SettlementHead>(
    db(),
    sql`select s.id, s.partner_id, p.organization_id, p.name as partner_name, p.kra_pin, to_char(s.period, 'YYYY-MM-DD') as period,
               s.transactions, s.revenue_cents::text, s.partner_cents::text, s.withholding_bps, s.withholding_cents::text,
               s.net_cents::text, s.carried_in_cents::text, s.carried_out_cents::text, s.payable_cents::text, s.status, s.payout_method, s.payout_reference, s.paid_at, s.created_at
        from partner_settlements s join partners p on p.id = s.partner_id
        where s.id = ${settlementId} and (${admin} or p.organization_id = ${reader.organizationId}::uuid)`,
  );
  return head ?? null;
}

interface ClientLine {
  name: string | null;
  transactions: number;
  revenue_cents: string;
  partner_cents: string;
}

/** The settlement's transactions by client organisation, largest revenue first. */
async function clientLines(settlementId: string) {
  return queryRows<ClientLine>(
    db(),
    sql`select o.name, count(*)::int as transactions, sum(t.amount_cents)::text as revenue_cents, sum(t.partner_cents)::text as partner_cents
        from partner_transactions t left join organizations o on o.id = t.client_organization_id
        where t.settlement_id = ${settlementId}
        group by t.client_organization_id, o.name
        order by sum(t.amount_cents) desc, o.name`,
  );
}

/** The statement of `settlementId` in `locale`, or null when `reader` may not read it (404). */
export async function statementPdf(
  settlementId: string,
  locale: Locale,
  reader: StatementReader,
): Promise<{ pdf: Uint8Array; filename: string } | null> {
  const head = await readableSettlement(reader, settlementId);
  if (!head) return null;
  const lines = await clientLines(head.id);
  const pdf = await inLocale(locale, () => render(head, lines));
  return { pdf, filename: `jumbe-statement-${head.period.slice(0, 7)}-${head.id.slice(0, 8)}.pdf` };
}

const PAGE: [number, number] = [595.28, 841.89];
const MARGIN = 42;
const INK = rgb(0.059, 0.09, 0.165);
const MUTED = rgb(0.392, 0.455, 0.545);
const RULE = rgb(0.886, 0.91, 0.941);
const BRAND = rgb(0.016, 0.471, 0.341);

interface Pen {
  pdf: PDFDocument;
  page: PDFPage;
  y: number;
  regular: PDFFont;
  bold: PDFFont;
  characters: Set<number>;
}

function write(pen: Pen, value: string, x: number, options: { size?: number; bold?: boolean; colour?: typeof INK; right?: number } = {}) {
  const size = options.size ?? 9;
  const font = options.bold ? pen.bold : pen.regular;
  const text = winAnsiText(value, pen.characters);
  const at = options.right === undefined ? x : options.right - font.widthOfTextAtSize(text, size);
  pen.page.drawText(text, { x: at, y: pen.y - size, size, font, color: options.colour ?? INK });
}

function fit(pen: Pen, value: string, width: number, size = 9) {
  let text = winAnsiText(value, pen.characters);
  while (text.length > 1 && pen.regular.widthOfTextAtSize(text, size) > width) text = text.slice(0, -2) + "…";
  return text;
}

function rule(pen: Pen) {
  pen.page.drawLine({ start: { x: MARGIN, y: pen.y }, end: { x: PAGE[0] - MARGIN, y: pen.y }, thickness: 0.75, color: RULE });
}

function ensureRoom(pen: Pen, height: number, header: () => void) {
  if (pen.y - height > MARGIN + 20) return;
  pen.page = pen.pdf.addPage(PAGE);
  pen.y = PAGE[1] - MARGIN;
  header();
}

const monthWords = (period: string) =>
  dateTimeFormat(intlLocale(), { month: "long", year: "numeric", timeZone: "UTC" }).format(new Date(`${period}T00:00:00Z`));
const dayWords = (at: Date | string) =>
  formatDateWords(
    dateTimeFormat(intlLocale(), { day: "numeric", month: "long", year: "numeric", timeZone: "Africa/Nairobi" }),
    new Date(at),
  );

const STATUS = {
  pending: () => m.documents_statement_status_pending(),
  processing: () => m.documents_statement_status_processing(),
  paid: () => m.documents_statement_status_paid(),
  failed: () => m.documents_statement_status_failed(),
} as const;

// long: a PDF page drawn top to bottom: each line's position follows from the one before, so the drawing reads as the page does
async function render(head: SettlementHead, lines: ClientLine[]) {
  const pdf = await PDFDocument.create({ updateMetadata: false });
  const month = monthWords(head.period);
  pdf.setTitle(winAnsiText(m.documents_statement_title_of({ partner: head.partner_name, month }), null));
  pdf.setAuthor("Jumbe");
  pdf.setCreator("Jumbe");
  pdf.setProducer("Jumbe (pdf-lib)");
  pdf.setLanguage(intlLocale());
  pdf.setCreationDate(new Date(head.created_at));
  pdf.setModificationDate(new Date(head.created_at));
  const regular = await pdf.embedFont(StandardFonts.Helvetica);
  const bold = await pdf.embedFont(StandardFonts.HelveticaBold);
  const pen: Pen = { pdf, page: pdf.addPage(PAGE), y: PAGE[1] - MARGIN, regular, bold, characters: new Set(regular.getCharacterSet()) };
  const right = PAGE[0] - MARGIN;

  write(pen, "Jumbe", MARGIN, { size: 18, bold: true, colour: BRAND });
  write(pen, m.documents_statement_title(), MARGIN, { size: 14, bold: true, right });
  pen.y -= 30;
  const facts: [string, string][] = [
    [m.documents_statement_partner(), head.partner_name],
    [m.documents_statement_kra_pin(), head.kra_pin],
    [m.documents_statement_month(), month],
    [m.documents_statement_settlement(), head.id],
    [m.documents_statement_status(), STATUS[head.status]()],
  ];
  for (const [label, value] of facts) {
    write(pen, label, MARGIN, { colour: MUTED });
    write(pen, value, MARGIN + 130, { bold: true });
    pen.y -= 14;
  }
  pen.y -= 10;

  const columns = { client: MARGIN, count: MARGIN + 300, revenue: MARGIN + 410, share: right };
  const tableHeader = () => {
    write(pen, m.documents_statement_client(), columns.client, { bold: true, colour: MUTED });
    write(pen, m.documents_statement_transactions(), 0, { bold: true, colour: MUTED, right: columns.count });
    write(pen, m.documents_statement_revenue(), 0, { bold: true, colour: MUTED, right: columns.revenue });
    write(pen, m.documents_statement_share(), 0, { bold: true, colour: MUTED, right: columns.share });
    pen.y -= 14;
    rule(pen);
    pen.y -= 6;
  };
  tableHeader();
  for (const line of lines) {
    ensureRoom(pen, 14, tableHeader);
    pen.page.drawText(fit(pen, line.name ?? m.documents_statement_closed_client(), 250), {
      x: columns.client,
      y: pen.y - 9,
      size: 9,
      font: regular,
      color: INK,
    });
    write(pen, formatNumber(line.transactions), 0, { right: columns.count });
    write(pen, formatAmount(Number(line.revenue_cents)), 0, { right: columns.revenue });
    write(pen, formatAmount(Number(line.partner_cents)), 0, { right: columns.share });
    pen.y -= 14;
  }
  if (!lines.length) {
    write(pen, m.documents_statement_no_clients(), columns.client, { colour: MUTED });
    pen.y -= 14;
  }
  rule(pen);
  pen.y -= 10;

  const percent = numberFormat(intlLocale(), { maximumFractionDigits: 2 }).format(head.withholding_bps / 100);
  const totals: [string, string, boolean][] = [
    [m.documents_statement_total_transactions(), formatNumber(head.transactions), false],
    [m.documents_statement_total_revenue(), formatKes(Number(head.revenue_cents)), false],
    [m.documents_statement_total_share(), formatKes(Number(head.partner_cents)), false],
    [m.documents_statement_withholding({ percent }), formatKes(-Number(head.withholding_cents)), false],
    [m.documents_statement_after_withholding(), formatKes(Number(head.net_cents)), false],
    // What is paid is what the statement says: M-Pesa pays whole shillings, the cents go to the next settlement.
    [m.documents_statement_carried_in(), formatKes(Number(head.carried_in_cents)), false],
    [m.documents_statement_carried_out(), formatKes(-Number(head.carried_out_cents)), false],
    [m.documents_statement_net(), formatKes(Number(head.payable_cents)), true],
  ];
  for (const [label, value, strong] of totals) {
    ensureRoom(pen, 16, () => undefined);
    write(pen, label, MARGIN + 250, { bold: strong, colour: strong ? INK : MUTED });
    write(pen, value, 0, { bold: strong, right });
    pen.y -= 16;
  }
  if (head.payout_method === "mpesa") {
    ensureRoom(pen, 16, () => undefined);
    write(pen, m.documents_statement_carry_note(), MARGIN, { size: 8, colour: MUTED });
    pen.y -= 14;
  }
  pen.y -= 10;
  ensureRoom(pen, 40, () => undefined);
  write(pen, m.documents_statement_method(), MARGIN, { colour: MUTED });
  write(pen, head.payout_method === "mpesa" ? "M-Pesa" : m.documents_bank_transfer(), MARGIN + 130, { bold: true });
  pen.y -= 14;
  write(pen, m.documents_statement_reference(), MARGIN, { colour: MUTED });
  write(pen, head.payout_reference ?? m.documents_statement_not_paid(), MARGIN + 130, { bold: true });
  pen.y -= 14;
  if (head.paid_at) {
    write(pen, m.documents_statement_paid_on(), MARGIN, { colour: MUTED });
    write(pen, dayWords(head.paid_at), MARGIN + 130, { bold: true });
  }
  return pdf.save({ useObjectStreams: false });
}
