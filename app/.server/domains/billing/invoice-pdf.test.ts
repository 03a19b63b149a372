import { inflateSync } from "node:zlib";
import { PDFDocument } from "pdf-lib";
import { describe, expect, it } from "vitest";
import { inLocale } from "~/.server/infrastructure/http/display-zone";
import { formatAmount, type InvoiceLine } from "~/lib/invoice";
import { renderInvoicePdf, sampleInvoice, sampleTopUpReceipt, winAnsiText } from "./invoice-pdf";
import { lineFromGross, lineFromNet, totalsOf } from "./vat";

// Windows-1252's 0x80-0x9F (Node's TextDecoder reads them as Latin-1's control characters); undefined bytes stay as they are.
const CP1252_HIGH = "€\x81‚ƒ„…†‡ˆ‰Š‹Œ\x8dŽ\x8f\x90‘’“”•–—˜™š›œ\x9džŸ";

function decodeWinAnsi(bytes: Buffer) {
  return [...bytes].map((byte) => (byte >= 0x80 && byte <= 0x9f ? CP1252_HIGH[byte - 0x80] : String.fromCharCode(byte))).join("");
}

/**
 * The text a PDF draws, page by page, one string per drawn line: each page's content stream inflated and
 * its `<hex> Tj` operands decoded from WinAnsi (how pdf-lib writes standard-font text).
 */
async function pdfText(bytes: Uint8Array): Promise<string[][]> {
  const pdf = await PDFDocument.load(bytes);
  return pdf.getPages().map((page) => {
    const contents = page.node.Contents();
    const streams = contents && "asArray" in contents ? contents.asArray() : [contents];
    const drawn: string[] = [];
    for (const ref of streams) {
      const stream = pdf.context.lookup(ref) as unknown as { getContents(): Uint8Array };
      const source = inflateSync(stream.getContents()).toString("latin1");
      for (const [, hex] of source.matchAll(/<([0-9A-Fa-f]*)>\s*Tj/g)) drawn.push(decodeWinAnsi(Buffer.from(hex!, "hex")));
    }
    return drawn;
  });
}

function itemLines(count: number): InvoiceLine[] {
  return Array.from({ length: count }, (_, i) =>
    lineFromNet({
      description: `Marketing: "Loan reminder ${i + 1}"`,
      itemCode: `JMB-MSG-${String(i + 1).padStart(3, "0")}`,
      quantity: 1_000 + i * 37,
      unit: "message",
      unitPriceCents: 200,
    }),
  );
}

function withLines(lines: InvoiceLine[]) {
  return sampleInvoice({ lines, ...totalsOf(lines) });
}

describe("renderInvoicePdf", () => {
  it("writes a one-page A4 PDF", async () => {
    const bytes = await renderInvoicePdf(sampleInvoice());
    expect(Buffer.from(bytes.subarray(0, 5)).toString("latin1")).toBe("%PDF-");
    const pdf = await PDFDocument.load(bytes);
    expect(pdf.getPageCount()).toBe(1);
    const { width, height } = pdf.getPage(0).getSize();
    expect([Math.round(width), Math.round(height)]).toEqual([595, 842]);
    expect(pdf.getTitle()).toBe("Tax invoice INV-2026-000184");
    expect(pdf.getCreationDate()?.toISOString()).toBe("2026-10-31T21:05:00.000Z");
  });

  it("shows the parties, dates, every line's figures and the totals of a postpaid invoice", async () => {
    const invoice = sampleInvoice();
    const [page] = await pdfText(await renderInvoicePdf(invoice));
    expect(page).toEqual(
      expect.arrayContaining([
        "TAX INVOICE",
        "INV-2026-000184",
        "AWAITING PAYMENT",
        "Jumbe Technologies Limited",
        "KRA PIN: P000000000A",
        "Ufanisi Wakulima SACCO Society Ltd",
        "P051987654M",
        "JMB-7KQ2M9XD",
        "accounts@ufanisisacco.co.ke",
        "01/11/2026 00:05 (Nairobi)",
        "15/11/2026",
        "01/10/2026 - 31/10/2026",
        "Postpaid subscription",
      ]),
    );
    // each line: code, quantity, unit, unit price, net, VAT, gross
    expect(page).toEqual(expect.arrayContaining(["JMB-PLAN-ENT", "1", "month", "15,000.00", "2,400.00", "17,400.00"]));
    expect(page).toEqual(expect.arrayContaining(["JMB-MSG-OVER", "12,480", "message", "0.20", "2,496.00", "399.36", "2,895.36"]));
    expect(page).toEqual(expect.arrayContaining(["VAT 16%", "KES 17,496.00", "KES 2,799.36", "Total due (KES)", "KES 20,295.36"]));
    // unpaid: how to pay by bank; not transmitted: says so
    expect(page).toEqual(expect.arrayContaining(["NCBA Bank Kenya", "Upper Hill", "1002345678", "Pending transmission to KRA eTIMS"]));
    expect(page).toContain("INV-2026-000184 · Page 1 of 1");
  });

  it("makes a paid top-up its own receipt, with the M-Pesa reference and the eTIMS fields, and no bank details", async () => {
    const [page] = await pdfText(await renderInvoicePdf(sampleTopUpReceipt()));
    expect(page).toEqual(
      expect.arrayContaining([
        "PAID",
        "Receipt for a wallet top-up, paid in full",
        "Wallet top-up",
        "M-Pesa",
        "TK3H7Q2XAB",
        "03/11/2026 09:42",
        "KRACU0300001234",
        "0300001234/185",
        "862.07",
        "137.93",
        "1,000.00",
        "Total paid (KES)",
        "KES 1,000.00",
        "Amounts in KES; unit prices include VAT",
      ]),
    );
    expect(page).not.toContain("Pending transmission to KRA eTIMS");
    expect(page).not.toContain("NCBA Bank Kenya");
    expect(page).not.toContain("Due");
  });

  it("fits 25 one-line items and everything else on one page", async () => {
    const pdf = await PDFDocument.load(await renderInvoicePdf(withLines(itemLines(25))));
    expect(pdf.getPageCount()).toBe(1);
  });

  it("flows more lines onto further pages, repeating the table header, each line once and in order", async () => {
    const lines = itemLines(60);
    const pages = await pdfText(await renderInvoicePdf(withLines(lines)));
    expect(pages).toHaveLength(2);
    expect(pages[1]).toContain("TAX INVOICE INV-2026-000184 (continued)");
    pages.forEach((page, i) => {
      expect(page).toContain("Item code");
      expect(page).toContain(`INV-2026-000184 · Page ${i + 1} of 2`);
    });
    const codes = pages.flat().filter((drawn) => drawn.startsWith("JMB-MSG-"));
    expect(codes).toEqual(lines.map((line) => line.itemCode));
    const last = lines.at(-1)!;
    expect(pages[1]).toEqual(expect.arrayContaining([formatAmount(last.netCents), formatAmount(last.grossCents)]));
    expect(pages[1]).toContain(`KES ${formatAmount(totalsOf(lines).totalCents)}`);
  });

  it("is the same bytes for the same invoice", async () => {
    const [first, second] = await Promise.all([renderInvoicePdf(sampleInvoice()), renderInvoicePdf(sampleInvoice())]);
    expect(Buffer.from(first).equals(Buffer.from(second))).toBe(true);
  });

  it("draws text the standard fonts cannot, rather than failing", async () => {
    const lines = [
      lineFromGross({
        description: "Top-up 🎉 for Chama\u00a0ya Akiba — “Ω” 中",
        itemCode: "JMB-TOPUP",
        quantity: 1,
        unit: "top-up",
        unitPriceCents: 100_000,
      }),
    ];
    const invoice = sampleTopUpReceipt({
      lines,
      ...totalsOf(lines),
      buyer: { name: "Café Ngũgĩ\u202fLtd", kraPin: null, address: null, county: null, businessId: "JMB-ABCDEFGH", email: null },
    });
    const page = (await pdfText(await renderInvoicePdf(invoice)))[0]!;
    expect(page).toContain("Café Ngugi Ltd");
    expect(page).toContain("Not provided"); // no buyer PIN
    expect(page.join(" ")).toContain("Top-up for Chama ya Akiba — “?” ?");
  });

  it("draws a table with no lines", async () => {
    const [page] = await pdfText(await renderInvoicePdf(withLines([])));
    expect(page).toEqual(expect.arrayContaining(["No items.", "KES 0.00"]));
  });
});

describe("issue 40: one reference, partial credit, receipts", () => {
  it("shows a bank transfer's one reference (the tenant's JMB-BT-…) and not a second one", async () => {
    const page = (
      await pdfText(
        await renderInvoicePdf(sampleInvoice({ kind: "bank_transfer", payment: { method: "bank", reference: "JMB-BT-7QK2MX" } })),
      )
    )[0]!;
    expect(page.filter((t) => t === "JMB-BT-7QK2MX")).toHaveLength(1);
    const reference = page.indexOf("Reference");
    expect(page[reference + 1]).toBe("JMB-BT-7QK2MX");
    expect(page.filter((t) => t === "Reference")).toHaveLength(1);
  });

  it("says Partly credited and the amount still due after a partial credit note", async () => {
    const invoice = sampleInvoice({ credited: { cents: 150_000, notes: ["CRN-2026-000004"] } });
    const [page] = await pdfText(await renderInvoicePdf(invoice));
    expect(page).toEqual(
      expect.arrayContaining([
        "PARTLY CREDITED",
        "Partly credited",
        "Credited (CRN-2026-000004)",
        "-KES 1,500.00",
        "Amount due (KES)",
        "KES 18,795.36",
      ]),
    );
    const [paid] = await pdfText(await renderInvoicePdf({ ...invoice, status: "paid", paidAt: "2026-11-20T09:00:00.000Z" }));
    expect(paid).toEqual(expect.arrayContaining(["Paid · credit note", "Credited (CRN-2026-000004)"]));
    expect(paid).not.toContain("Amount due (KES)");
  });

  it("titles money on account a receipt, with no taxable amount or VAT, naming the tax invoice that covers it", async () => {
    const receipt = sampleTopUpReceipt({ number: "RCT-2026-000012", coveredBy: { number: "INV-2026-000190", month: "2026-11-01" } });
    const page = (await pdfText(await renderInvoicePdf(receipt)))[0]!;
    expect(page).toEqual(expect.arrayContaining(["RECEIPT", "Amount received (KES)", "Payment received on account: not a tax invoice"]));
    expect(page).not.toContain("TAX INVOICE");
    expect(page).not.toContain("Net (taxable) amount");
    expect(page.join(" ")).toContain("charged on tax invoice INV-2026-000190, for November 2026.");
    const [tax] = await pdfText(await renderInvoicePdf(sampleTopUpReceipt()));
    expect(tax).toEqual(expect.arrayContaining(["TAX INVOICE", "Net (taxable) amount"]));
  });
});

describe("issue 43: the PDF in the language of the request that downloads it", () => {
  // French letters, guillemets, "œ" and the curly apostrophe are all WinAnsi: drawn as they are.
  const frenchBuyer = { ...sampleInvoice().buyer, name: "Coopérative d’Épargne « Kôlô » & Sœurs" };

  it("writes a French invoice whole: its words, accents, amounts and page numbers, nothing replaced", async () => {
    const bytes = await inLocale("fr", () => renderInvoicePdf(sampleInvoice({ buyer: frenchBuyer })));
    const page = (await pdfText(bytes))[0]!;
    expect(page).toEqual(
      expect.arrayContaining([
        "FACTURE FISCALE",
        "EN ATTENTE DE PAIEMENT",
        "KRA PIN : P000000000A",
        "FACTURÉ À",
        "Coopérative d’Épargne « Kôlô » & Sœurs",
        "Identifiant d'entreprise",
        "DÉTAILS DE LA FACTURE",
        "Numéro de facture",
        "Date d'émission",
        "Échéance",
        "Période",
        "Abonnement postpayé",
        "Montants en KES ; prix unitaires HT",
        "Code article",
        "Qté",
        "Prix unit.",
        "TVA 16 %",
        "TTC",
      ]),
    );
    // amounts by Intl for French, their no-break spaces (U+202F, U+00A0) drawn as spaces
    expect(page).toEqual(expect.arrayContaining(["12 480", "0,20", "2 496,00", "399,36", "2 895,36", "15 000,00"]));
    expect(page).toEqual(
      expect.arrayContaining(["Montant HT (imposable)", "17 496,00 KES", "2 799,36 KES", "Total dû (KES)", "20 295,36 KES"]),
    );
    expect(page).toEqual(
      expect.arrayContaining(["PAYER PAR VIREMENT BANCAIRE", "N° de compte", "Référence", "En attente de transmission à KRA"]),
    );
    expect(page).toContain("INV-2026-000184 · Page 1 sur 1");
    expect(page).toContain("Montants en shillings kényans (KES). Dates et heures à l'heure de Nairobi (EAT). Merci de votre confiance.");
    expect(page.join(" ")).toContain("La TVA de 16 % est calculée sur chaque ligne");
    expect(page.join(" ")).not.toContain("?");
    const pdf = await PDFDocument.load(bytes);
    expect(pdf.getTitle()).toBe("Facture fiscale INV-2026-000184");
    expect(pdf.getSubject()).toBe("Abonnement postpayé pour Coopérative d'Épargne « Kôlô » & Soeurs");
  });

  it("writes a French top-up receipt with its words agreeing and its unit in French (issue 74)", async () => {
    const page = (await pdfText(await inLocale("fr", () => renderInvoicePdf(sampleTopUpReceipt()))))[0]!;
    expect(page).toEqual(
      expect.arrayContaining(["Reçu de recharge du portefeuille, payé intégralement", "Date d'émission", "Date de paiement", "recharge"]),
    );
    expect(page.join(" ")).not.toContain("payée intégralement");
    expect(page).not.toContain("top-up");
  });

  it("writes a Swahili receipt and tax invoice, with Kenya shillings as Swahili writes them", async () => {
    const page = (await pdfText(await inLocale("sw", () => renderInvoicePdf(sampleTopUpReceipt()))))[0]!;
    expect(page).toEqual(
      expect.arrayContaining([
        "ANKARA YA KODI",
        "IMELIPWA",
        "Risiti ya kuongeza salio la pochi, imelipwa kikamilifu",
        "KRA PIN: P000000000A",
        "ANKARA KWA",
        "Nambari ya ankara",
        "Uongezaji wa salio la pochi",
        "Kiasi kwa KES; bei za kipimo zinajumuisha VAT",
        "Kiasi kinachotozwa kodi",
        "VAT 16%",
        "Jumla iliyolipwa (KES)",
        "KES 1,000.00",
        "uongezaji",
        "MALIPO",
        "Njia",
        "M-Pesa",
        "CU serial no.",
        "KRACU0300001234",
      ]),
    );
    expect(page).toContain("INV-2026-000185 · Ukurasa 1 kati ya 1");
    expect(page.join(" ")).not.toContain("?");
    const receipt = sampleTopUpReceipt({ number: "RCT-2026-000012", coveredBy: { number: "INV-2026-000190", month: "2026-11-01" } });
    const onAccount = (await pdfText(await inLocale("sw", () => renderInvoicePdf(receipt))))[0]!;
    expect(onAccount).toEqual(
      expect.arrayContaining(["RISITI", "Kiasi kilichopokelewa (KES)", "Malipo yaliyopokelewa kwenye akaunti: si ankara ya kodi"]),
    );
    expect(onAccount.join(" ")).toContain("inatozwa kwenye ankara ya kodi INV-2026-000190, ya Novemba 2026.");
  });

  it("repeats the French title on a further page", async () => {
    const pages = await pdfText(await inLocale("fr", () => renderInvoicePdf(withLines(itemLines(60)))));
    expect(pages[1]).toContain("FACTURE FISCALE INV-2026-000184 (suite)");
    expect(pages[1]).toContain("INV-2026-000184 · Page 2 sur 2");
  });
});

describe("winAnsiText", () => {
  const latin = null;
  it("keeps WinAnsi, swaps spaces and dashes it lacks, strips accents it lacks, drops emoji, marks the rest", () => {
    expect(winAnsiText("KES\u00a015,000.00", latin)).toBe("KES 15,000.00");
    expect(winAnsiText("Line\none\ttwo", latin)).toBe("Line one two");
    expect(winAnsiText("Ngũgĩ", latin)).toBe("Ngugi");
    expect(winAnsiText("Paid 👍🏽 ✅ 🇰🇪 in full", latin)).toBe("Paid in full");
    expect(winAnsiText("Ω 中", latin)).toBe("? ?");
    expect(winAnsiText("naïve", latin)).toBe("naïve");
    expect(winAnsiText("in\u00advoice \u200bdue\u200d", latin)).toBe("invoice due");
    expect(winAnsiText("Coopérative d’épargne « Œuvre » — 15\u202f000,00\u00a0KES", latin)).toBe(
      "Coopérative d'épargne « OEuvre » - 15 000,00 KES",
    );
  });
});
