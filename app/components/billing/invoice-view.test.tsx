import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { sampleInvoice, sampleTopUpReceipt } from "~/.server/domains/billing/invoice-sample";
import { InvoiceView } from "./invoice-view";

/** The markup with tags removed and spaces collapsed: what a reader sees, in order. */
function visibleText(html: string) {
  return html
    .replace(/<[^>]+>/g, " ")
    .replace(/&amp;/g, "&")
    .replace(/&quot;/g, '"')
    .replace(/&#x27;/g, "'")
    .replace(/\s+/g, " ")
    .trim();
}

describe("InvoiceView", () => {
  const html = renderToStaticMarkup(<InvoiceView invoice={sampleInvoice()} />);
  const text = visibleText(html);

  it("titles the article with the document and its number", () => {
    expect(html).toMatch(/<article[^>]*aria-labelledby="invoice-INV-2026-000184-title"/);
    expect(html).toMatch(/<h2 id="invoice-INV-2026-000184-title"[^>]*>TAX INVOICE <span[^>]*>INV-2026-000184<\/span><\/h2>/);
    expect(text).toContain("Awaiting payment");
  });

  it("shows both parties with their KRA PINs and the dates on Nairobi's clock", () => {
    expect(text).toContain("Jumbe Technologies Limited");
    expect(text).toContain("KRA PIN: P000000000A");
    expect(text).toContain("Ufanisi Wakulima SACCO Society Ltd KRA PIN P051987654M");
    expect(text).toContain("Business ID JMB-7KQ2M9XD");
    expect(html).toContain('<time dateTime="2026-10-31T21:05:00.000Z">01/11/2026 00:05 (Nairobi)</time>');
    expect(text).toContain("Due 15/11/2026");
    expect(text).toContain("Period 01/10/2026 - 31/10/2026");
  });

  it("lists the lines in a table with a caption and column headers, every figure in its cell", () => {
    expect(html).toMatch(/<table[^>]*><caption[^>]*>.*Items.*unit prices exclude VAT.*<\/caption>/);
    const headers = [...html.matchAll(/<th scope="col"[^>]*>([^<]*)<\/th>/g)].map((match) => match[1]);
    expect(headers).toEqual(["Item code", "Description", "Qty", "Unit", "Unit price", "Net", "VAT 16%", "Gross"]);
    const rows = [...html.matchAll(/<tr class="break-inside-avoid[^"]*">(.*?)<\/tr>/g)].map((match) =>
      [...match[1]!.matchAll(/<td[^>]*>([^<]*)<\/td>/g)].map((cell) => cell[1]),
    );
    expect(rows).toEqual([
      [
        "JMB-PLAN-ENT",
        "Enterprise plan, postpaid: monthly fee for October 2026 (100,000 messages included)",
        "1",
        "month",
        "15,000.00",
        "15,000.00",
        "2,400.00",
        "17,400.00",
      ],
      [
        "JMB-MSG-OVER",
        "WhatsApp messages beyond the plan&#x27;s 100,000 (October 2026)",
        "12,480",
        "message",
        "0.20",
        "2,496.00",
        "399.36",
        "2,895.36",
      ],
    ]);
  });

  it("gives the totals as a definition list", () => {
    const totals = [...html.matchAll(/<dt[^>]*>([^<]*)<\/dt><dd[^>]*>(KES [^<]*)<\/dd>/g)].map((match) => [match[1], match[2]]);
    expect(totals).toEqual([
      ["Net (taxable) amount", "KES 17,496.00"],
      ["VAT 16%", "KES 2,799.36"],
      ["Total due (KES)", "KES 20,295.36"],
    ]);
  });

  it("shows how to pay by bank while unpaid, and that eTIMS has not been reached yet", () => {
    expect(text).toContain(
      "Pay by bank transfer Bank NCBA Bank Kenya Branch Upper Hill Account name Jumbe Technologies Limited Account no. 1002345678 Reference INV-2026-000184",
    );
    expect(text).toContain("KRA eTIMS Pending transmission to KRA eTIMS");
    expect(html).not.toContain("<svg");
  });

  it("shows a paid top-up's receipt: payment, eTIMS fields and QR code, no bank details", () => {
    const receipt = renderToStaticMarkup(<InvoiceView invoice={sampleTopUpReceipt()} />);
    const seen = visibleText(receipt);
    expect(seen).toContain("Receipt for a wallet top-up, paid in full");
    expect(seen).toContain("Method M-Pesa Reference TK3H7Q2XAB Paid 03/11/2026 09:42");
    expect(seen).toContain("CU serial no. KRACU0300001234 CU invoice no. 0300001234/185");
    expect(seen).toContain("Total paid (KES) KES 1,000.00");
    expect(seen).toContain("unit prices include VAT");
    expect(receipt).toMatch(/<svg[^>]*role="img"[^>]*aria-label="KRA eTIMS QR code for INV-2026-000185"/);
    expect(seen).not.toContain("Pay by bank transfer");
    expect(seen).not.toContain("Pending transmission");
  });

  it("says when there is no buyer PIN and when there are no lines", () => {
    const bare = sampleInvoice({
      lines: [],
      netCents: 0,
      vatCents: 0,
      totalCents: 0,
      buyer: { name: "Mama Mboga Traders", kraPin: null, address: null, county: null, businessId: "JMB-ABCDEFGH", email: null },
    });
    const seen = visibleText(renderToStaticMarkup(<InvoiceView invoice={bare} />));
    expect(seen).toContain("Mama Mboga Traders KRA PIN Not provided Business ID JMB-ABCDEFGH");
    expect(seen).toContain("No items.");
  });
});
