import { inflateSync } from "node:zlib";
import { PDFDocument } from "pdf-lib";
import { describe, expect, it } from "vitest";
import { db, rawQuery } from "~/.server/infrastructure/db/client";
import { issueInvoice } from "~/.server/domains/billing/invoices";
import { lineFromGross } from "~/.server/domains/billing/vat";
import { settleMonth } from "~/.server/domains/revenue-share/settle";
import { statementPdf } from "~/.server/domains/revenue-share/statement";
import { markSettlementPaidByBank } from "~/.server/domains/revenue-share/payouts";
import { loader as statementLoader } from "~/routes/app/revenue-share/settlement-statement";
import { createVerifiedUser, signedInCookie } from "../support/accounts";
import { getRequest, routeArgs } from "../support/http";

// Issue 46: a settlement's statement PDF (the partner, the month, each client's totals, revenue,
// share, withholding, net and the payout's reference), readable by the console's administrators and
// by the partner organisation's owner and admins only; anyone else gets 404.

const CP1252_HIGH = "€\x81‚ƒ„…†‡ˆ‰Š‹Œ\x8dŽ\x8f\x90‘’“”•–—˜™š›œ\x9džŸ";
const decode = (bytes: Buffer) =>
  [...bytes].map((byte) => (byte >= 0x80 && byte <= 0x9f ? CP1252_HIGH[byte - 0x80] : String.fromCharCode(byte))).join("");

/** Every line of text the PDF draws, pages joined. */
async function pdfText(bytes: Uint8Array) {
  const pdf = await PDFDocument.load(bytes);
  const drawn: string[] = [];
  for (const page of pdf.getPages()) {
    const contents = page.node.Contents();
    const streams = contents && "asArray" in contents ? contents.asArray() : [contents];
    for (const ref of streams) {
      const stream = pdf.context.lookup(ref) as unknown as { getContents(): Uint8Array };
      const source = inflateSync(stream.getContents()).toString("latin1");
      for (const [, hex] of source.matchAll(/<([0-9A-Fa-f]*)>\s*Tj/g)) drawn.push(decode(Buffer.from(hex!, "hex")));
    }
  }
  return drawn;
}

const paid = (organizationId: string, grossKes: number, at: string) =>
  db().transaction((tx) =>
    issueInvoice(tx, {
      organizationId,
      series: "INV",
      kind: "topup",
      status: "paid",
      description: "Wallet top-up",
      lines: [
        lineFromGross({ description: "Wallet top-up", itemCode: "JMB-TOPUP", quantity: 1, unit: "top-up", unitPriceCents: grossKes * 100 }),
      ],
      pricesIncludeVat: true,
      issuedAt: new Date(at),
      paidAt: new Date(at),
    }),
  );

async function settledPartner() {
  const owner = await createVerifiedUser({ businessName: "Rift Valley Resellers" });
  const [p] = await rawQuery<{ id: string }>(
    `insert into partners (organization_id, code, name, category, status, share_bps, payout_method, bank_details, kra_pin, approved_at)
     values ($1, 'RIFT' || floor(random() * 1e9)::text, 'Rift Valley Resellers', 'Reseller', 'active', 1500, 'bank',
             '{"bank":"Equity","branch":"Nakuru","accountName":"Rift Valley Resellers","accountNumber":"0123456789"}', 'P051234567Q', now())
     returning id`,
    [owner.organization.id],
  );
  await rawQuery(
    `insert into partner_share_changes (partner_id, share_bps, reason, effective_from) values ($1, 1500, 'Terms', '2026-01-01')`,
    [p!.id],
  );
  const clients = [];
  for (const name of ["Nakuru Dairy Co-op", "Eldoret Hardware"]) {
    const client = await createVerifiedUser({ businessName: name });
    await rawQuery(
      `insert into partner_attributions (partner_id, organization_id, source, started_at) values ($1, $2, 'referral', '2026-01-01')`,
      [p!.id, client.organization.id],
    );
    clients.push(client.organization.id);
  }
  await paid(clients[0]!, 11_600, "2026-08-04T09:00:00Z"); // KES 10,000 net
  await paid(clients[0]!, 5_800, "2026-08-20T09:00:00Z"); // KES 5,000 net
  await paid(clients[1]!, 2_320, "2026-08-11T09:00:00Z"); // KES 2,000 net
  const settled = await settleMonth("2026-08-01");
  const mine = settled.find((s) => s.partner_id === p!.id)!;
  return { settlementId: mine.id, owner, partnerOrg: owner.organization.id };
}

describe("a settlement's statement", () => {
  it("lists the partner, the month, each client's totals and the month's revenue, share, withholding, net and reference", async () => {
    const { settlementId, partnerOrg } = await settledPartner();
    await markSettlementPaidByBank({ userId: crypto.randomUUID() }, settlementId, "FT26245RIFT");
    const statement = await statementPdf(settlementId, "en", { role: "owner", organizationId: partnerOrg });
    const text = await pdfText(statement!.pdf);
    expect(text).toEqual(
      expect.arrayContaining([
        "REVENUE SHARE STATEMENT",
        "Rift Valley Resellers",
        "P051234567Q",
        "August 2026",
        "Paid",
        "Nakuru Dairy Co-op",
        "15,000.00",
        "2,250.00",
        "Eldoret Hardware",
        "2,000.00",
        "300.00",
        "KES 17,000.00",
        "KES 2,550.00",
        "Withholding tax (5%)",
        "-KES 127.50",
        "Net payable",
        "KES 2,422.50",
        "FT26245RIFT",
      ]),
    );
    // The clients, largest revenue first.
    expect(text.indexOf("Nakuru Dairy Co-op")).toBeLessThan(text.indexOf("Eldoret Hardware"));

    const swahili = await pdfText(
      (await statementPdf(settlementId, "sw", { role: "platform_admin", organizationId: crypto.randomUUID() }))!.pdf,
    );
    expect(swahili).toEqual(expect.arrayContaining(["TAARIFA YA MGAO WA MAPATO", "Kiasi halisi cha kulipwa"]));
  });

  it("opens to a platform administrator and the partner's owner and admins; anyone else, another tenant and an unknown id get 404", async () => {
    const { settlementId, owner, partnerOrg } = await settledPartner();
    const get = async (cookie: string, id = settlementId) => {
      try {
        return (await statementLoader(routeArgs(getRequest(`/revenue-share/settlements/${id}/statement`, { cookie }), { id }))) as Response;
      } catch (thrown) {
        return thrown as Response;
      }
    };
    const ownerAnswer = await get(await signedInCookie(owner.user.email, owner.password));
    expect(ownerAnswer.status).toBe(200);
    expect(ownerAnswer.headers.get("content-type")).toBe("application/pdf");
    expect(ownerAnswer.headers.get("content-disposition")).toMatch(/^attachment; filename="jumbe-statement-2026-08-[0-9a-f]{8}\.pdf"$/);
    expect(
      Buffer.from(await ownerAnswer.arrayBuffer())
        .subarray(0, 5)
        .toString(),
    ).toBe("%PDF-");

    // A platform administrator reads any partner's.
    const admin = await createVerifiedUser({ businessName: "Jumbe Ops", usertype: "admin" });
    expect((await get(await signedInCookie(admin.user.email, admin.password))).status).toBe(200);

    // The partner's agent: 404, as for another tenant's owner.
    const agent = await createVerifiedUser({ businessName: "Agent's own" });
    await rawQuery(`update users set organization_id = $1, org_role = 'agent' where id = $2`, [partnerOrg, agent.user.id]);
    expect((await get(await signedInCookie(agent.user.email, agent.password))).status).toBe(404);
    const stranger = await createVerifiedUser({ businessName: "Another tenant" });
    const strangerCookie = await signedInCookie(stranger.user.email, stranger.password);
    expect((await get(strangerCookie)).status).toBe(404);
    // The partner's owner: an unknown id and a malformed one are 404 too.
    const ownerCookie = await signedInCookie(owner.user.email, owner.password);
    expect((await get(ownerCookie, crypto.randomUUID())).status).toBe(404);
    expect((await get(ownerCookie, "not-an-id")).status).toBe(404);
  });

  it("shows the cents carried in and out and the whole shillings M-Pesa pays, in en, sw and fr (issue 72)", async () => {
    const owner = await createVerifiedUser({ businessName: "Kitale Agents" });
    const [p] = await rawQuery<{ id: string }>(
      `insert into partners (organization_id, code, name, category, status, share_bps, payout_method, mpesa_phone, kra_pin, approved_at)
       values ($1, 'KITALE' || floor(random() * 1e9)::text, 'Kitale Agents', 'Agency', 'active', 1500, 'mpesa', '254712345678', 'P051234567Q', now())
       returning id`,
      [owner.organization.id],
    );
    const row = (cents: number, at: string) =>
      rawQuery(
        `insert into partner_transactions (partner_id, client_organization_id, invoice_id, kind, amount_cents, share_bps, partner_cents, platform_cents, occurred_at)
         values ($1, $2, gen_random_uuid(), 'topup', $3, 10000, $3, 0, $4::timestamptz)`,
        [p!.id, owner.organization.id, cents, at],
      );
    // 653.36 - 32.67 withheld = 620.69 in June (M-Pesa pays 620); 100.34 - 5.02 = 95.32 in July, with June's 0.69: 96.01, pays 96.
    await row(65_336, "2026-06-10T09:00:00Z");
    await row(10_034, "2026-07-10T09:00:00Z");
    await settleMonth("2026-06-01");
    const [july] = (await settleMonth("2026-07-01")).filter((s) => s.partner_id === p!.id);
    const reader = { role: "owner" as const, organizationId: owner.organization.id };
    const english = await pdfText((await statementPdf(july!.id, "en", reader))!.pdf);
    expect(english).toEqual(
      expect.arrayContaining([
        "After withholding",
        "KES 95.32",
        "Carried in from earlier months",
        "KES 0.69",
        "Carried to next month",
        "-KES 0.01",
        "Net payable",
        "KES 96.00",
        "M-Pesa pays whole shillings: the cents are carried to your next settlement.",
      ]),
    );
    const swahili = await pdfText((await statementPdf(july!.id, "sw", reader))!.pdf);
    expect(swahili).toEqual(expect.arrayContaining(["Iliyobebwa kutoka miezi iliyopita", "Inabebwa hadi mwezi ujao"]));
    const french = await pdfText((await statementPdf(july!.id, "fr", reader))!.pdf);
    expect(french).toEqual(expect.arrayContaining(["Report des mois précédents", "Reporté au mois suivant"]));
  });
});
