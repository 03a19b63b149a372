import pg from "pg";
import { describe, expect, it, vi } from "vitest";
import { db, rawQuery } from "~/.server/infrastructure/db/client";
import { issueInvoice } from "~/.server/domains/billing/invoices";
import { lineFromGross } from "~/.server/domains/billing/vat";
import { partnerPart } from "~/.server/domains/revenue-share/ledger";
import { monthBounds, settleMonth } from "~/.server/domains/revenue-share/settle";
import { completePayment, createPayment } from "~/.server/domains/billing/payments";
import { issueMonthlyInvoices } from "~/.server/domains/billing/cycle";
import { createVerifiedUser } from "../support/accounts";
import { testDatabaseUrl } from "../support/database";

// The partner programme's ledger (issue 46; issue 72, decision 102): each paid tax invoice of a referred
// organisation becomes one transaction, net of VAT, split at the share in effect when it was paid, in
// the transaction that pays it (no job, no time window); a credit note reverses its part; recording
// again counts nothing twice; a suspended partner accrues nothing.

async function organisation(name: string) {
  const user = await createVerifiedUser({ businessName: name });
  return user.organization.id;
}

async function partner(organizationId: string, code: string, shares: { bps: number; from: string }[]) {
  const [row] = await rawQuery<{ id: string }>(
    `insert into partners (organization_id, code, name, category, status, share_bps, payout_method, mpesa_phone, kra_pin, approved_at)
     values ($1, $2, $3, 'Agency', 'active', $4, 'mpesa', '254712345678', 'P051234567Q', now()) returning id`,
    [organizationId, code, `Partner ${code}`, shares.at(-1)!.bps],
  );
  for (const share of shares)
    await rawQuery(
      `insert into partner_share_changes (partner_id, share_bps, reason, effective_from) values ($1, $2, 'Programme terms', $3)`,
      [row!.id, share.bps, share.from],
    );
  return row!.id;
}

const attribute = (partnerId: string, organizationId: string, from: string) =>
  rawQuery(`insert into partner_attributions (partner_id, organization_id, source, started_at) values ($1, $2, 'referral', $3)`, [
    partnerId,
    organizationId,
    from,
  ]);

/** A prepaid organisation's paid top-up, its tax invoice, of `grossKes` (VAT included) on `paidAt`. */
async function paidTopUp(organizationId: string, grossKes: number, paidAt: string, status: "paid" | "void" = "paid") {
  return db().transaction((tx) =>
    issueInvoice(tx, {
      organizationId,
      series: "INV",
      kind: "topup",
      status,
      description: "Wallet top-up",
      lines: [
        lineFromGross({ description: "Wallet top-up", itemCode: "JMB-TOPUP", quantity: 1, unit: "top-up", unitPriceCents: grossKes * 100 }),
      ],
      pricesIncludeVat: true,
      issuedAt: new Date(paidAt),
      paidAt: new Date(paidAt),
    }),
  );
}

async function creditNote(organizationId: string, invoiceId: string, grossKes: number, at: string) {
  const note = await db().transaction((tx) =>
    issueInvoice(tx, {
      organizationId,
      series: "CRN",
      kind: "credit_note",
      status: "paid",
      description: "Credit note",
      lines: [
        lineFromGross({
          description: "Credit",
          itemCode: "JMB-CREDIT",
          quantity: 1,
          unit: "credit",
          unitPriceCents: Math.round(grossKes * 100),
        }),
      ],
      pricesIncludeVat: true,
      issuedAt: new Date(at),
      paidAt: new Date(at),
    }),
  );
  await rawQuery(`update invoices set credits_invoice_id = $2 where id = $1`, [note.id, invoiceId]);
  return note;
}

/** Every paid invoice and credit note through the recorder once more: answers how many it added. */
const recordAgain = async () => {
  const [row] = await rawQuery<{ n: number }>(`select coalesce(sum(partner_ledger_record(id)), 0)::int as n from invoices`);
  return row!.n;
};

const ledger = () =>
  rawQuery<{ kind: string; amount_cents: string; share_bps: number; partner_cents: string; platform_cents: string; number: string }>(
    `select t.kind, t.amount_cents::text, t.share_bps, t.partner_cents::text, t.platform_cents::text, i.number
     from partner_transactions t join invoices i on i.id = t.invoice_id order by t.occurred_at, t.id`,
  );

describe("the partner programme's ledger", () => {
  it("splits each paid invoice net of VAT at the share of its day, reverses credit notes, and counts nothing twice", async () => {
    const agency = await organisation("Savannah Digital Agency");
    const client = await organisation("Kilimo Fresh Produce");
    const stranger = await organisation("Mombasa Spice Traders");
    const partnerId = await partner(agency, "SAVANNAH", [
      { bps: 1500, from: "2026-09-01T00:00:00Z" },
      { bps: 2000, from: "2026-11-10T00:00:00Z" },
    ]);
    await attribute(partnerId, client, "2026-10-05T09:00:00Z");

    await paidTopUp(client, 5_800, "2026-10-01T10:00:00Z"); // before the referral: not the partner's
    const october = await paidTopUp(client, 11_600, "2026-10-20T10:00:00Z"); // net 10,000 at 15%
    await paidTopUp(client, 11_600, "2026-11-12T10:00:00Z"); // net 10,000 at 20%: the new share, not retroactive
    await paidTopUp(client, 2_320, "2026-11-13T10:00:00Z", "void"); // void: nothing
    await paidTopUp(stranger, 11_600, "2026-11-12T10:00:00Z"); // nobody's client
    await creditNote(client, october.id, 5_800, "2026-11-14T10:00:00Z"); // net 5,000 back at October's 15%

    const rows = await ledger();
    expect(rows.map((r) => [r.kind, r.amount_cents, r.share_bps, r.partner_cents, r.platform_cents])).toEqual([
      ["topup", "1000000", 1500, "150000", "850000"],
      ["topup", "1000000", 2000, "200000", "800000"],
      ["credit_note", "-500000", 1500, "-75000", "-425000"],
    ]);
    // Again (a retry, a second look): nothing more.
    expect(await recordAgain()).toBe(0);
    expect(await ledger()).toHaveLength(3);

    // A second credit note cannot take back more than the invoice counted.
    await creditNote(client, october.id, 11_600, "2026-11-20T10:00:00Z");
    expect(await ledger()).toHaveLength(4);
    expect((await ledger()).at(-1)).toMatchObject({ kind: "credit_note", amount_cents: "-500000", partner_cents: "-75000" });
  });

  it("counts a postpaid client's money once: its receipts earn nothing, the monthly tax invoice they pay earns its net", async () => {
    const agency = await organisation("Nairobi CRM Works");
    const client = await organisation("Mwangaza Microfinance Bank");
    await rawQuery(`update organizations set plan_type = 'Growth', billing_type = 'postpaid', created_at = '2026-09-01' where id = $1`, [
      client,
    ]);
    const partnerId = await partner(agency, "NBOCRM", [{ bps: 1800, from: "2026-09-01T00:00:00Z" }]);
    await attribute(partnerId, client, "2026-09-01T00:00:00Z");
    // Two M-Pesa payments on account (the audit's 1,160 + 5,866): receipts, money held for the month's invoice.
    for (const [amount, receipt] of [
      [1_160_00, "SKA1160"],
      [5_866_00, "SKB5866"],
    ] as const) {
      const { payment } = await createPayment(db(), {
        organizationId: client,
        method: "mpesa",
        amountCents: amount,
        phone: "254712345678",
      });
      await completePayment(payment.id, { receipt, via: "M-Pesa" });
    }
    const receipts = await rawQuery<{ number: string }>(`select number from invoices where organization_id = $1 and series = 'RCT'`, [
      client,
    ]);
    expect(receipts).toHaveLength(2);
    expect(await ledger()).toEqual([]);
    // The month's tax invoice is issued; that money and one more payment pay it: it alone earns, net of VAT, once.
    await issueMonthlyInvoices(new Date());
    const [due] = await rawQuery<{ rest: string }>(
      `select (i.total_cents - w.balance_cents)::text as rest from invoices i join wallets w on w.organization_id = i.organization_id
       where i.organization_id = $1 and i.kind = 'subscription'`,
      [client],
    );
    expect(Number(due!.rest)).toBeGreaterThan(0);
    const { payment } = await createPayment(db(), {
      organizationId: client,
      method: "mpesa",
      amountCents: Number(due!.rest),
      phone: "254712345678",
    });
    await completePayment(payment.id, { receipt: "SKC0001", via: "M-Pesa" });
    const [monthly] = await rawQuery<{ number: string; status: string; net_cents: string }>(
      `select number, status, net_cents::text from invoices where organization_id = $1 and kind = 'subscription'`,
      [client],
    );
    expect(monthly!.status).toBe("paid");
    const rows = await ledger();
    expect(rows.map((r) => [r.number, r.kind, r.amount_cents, r.partner_cents])).toEqual([
      [monthly!.number, "subscription", monthly!.net_cents, String(partnerPart(Number(monthly!.net_cents), 1800))],
    ]);
    expect(await recordAgain()).toBe(0);
  });

  it("reverses a credit note issued before its invoice was paid, when it is paid, and a whole credit in parts to the cent", async () => {
    const agency = await organisation("Rift Valley Resellers");
    const client = await organisation("Eldoret Agrovet Supplies");
    const partnerId = await partner(agency, "RIFTV", [{ bps: 1800, from: "2026-09-01T00:00:00Z" }]);
    await attribute(partnerId, client, "2026-09-01T00:00:00Z");
    const monthly = await db().transaction((tx) =>
      issueInvoice(tx, {
        organizationId: client,
        series: "INV",
        kind: "subscription",
        status: "pending",
        description: "Growth plan (postpaid), October 2026",
        lines: [lineFromGross({ description: "Growth plan", itemCode: "JMB-PLAN", quantity: 1, unit: "month", unitPriceCents: 2_320_00 })],
        pricesIncludeVat: false,
        issuedAt: new Date("2026-11-01T06:00:00Z"),
      }),
    );
    // Credited 500 (gross) on the 2nd; paid weeks later: the reversal follows the payment, whatever the gap.
    await creditNote(client, monthly.id, 500, "2026-11-02T10:00:00Z");
    expect(await ledger()).toEqual([]);
    await rawQuery(`update invoices set status = 'paid', paid_at = '2026-11-29T10:00:00Z' where id = $1`, [monthly.id]);
    const rows = await ledger();
    // 2,000 net at 18% = 360.00, less 431.03 net credited at 18% = 77.59: 282.41 due.
    expect(rows.map((r) => [r.kind, r.amount_cents, r.partner_cents])).toEqual([
      ["subscription", "200000", "36000"],
      ["credit_note", "-43103", "-7759"],
    ]);
    expect(rows.reduce((sum, r) => sum + Number(r.partner_cents), 0)).toBe(28241);
    // The rest credited in three parts (net 258.62, 431.03, 879.32): rounded one by one they would take
    // back 360.01 in all; rounded on the running total, exactly the 360.00 the invoice gave.
    for (const gross of [300, 500, 1020.01]) await creditNote(client, monthly.id, gross, "2026-11-30T10:00:00Z");
    const after = await ledger();
    expect(after.reduce((sum, r) => sum + Number(r.amount_cents), 0)).toBe(0);
    expect(after.reduce((sum, r) => sum + Number(r.partner_cents), 0)).toBe(0);
  });

  it("accrues nothing for a suspended partner, and keeps what it earned before", async () => {
    const agency = await organisation("Lakeside Integrators");
    const client = await organisation("Kisumu Fish Cooperative");
    const partnerId = await partner(agency, "LAKESIDE", [{ bps: 1200, from: "2026-09-01T00:00:00Z" }]);
    await attribute(partnerId, client, "2026-09-02T00:00:00Z");
    await paidTopUp(client, 1_160, "2026-10-03T10:00:00Z");
    await rawQuery(`update partners set status = 'suspended' where id = $1`, [partnerId]);
    await paidTopUp(client, 1_160, "2026-10-04T10:00:00Z");
    expect(await recordAgain()).toBe(0);
    expect((await ledger()).map((r) => r.partner_cents)).toEqual(["12000"]);
  });

  it("rounds a partner's part half away from zero, to the cent", () => {
    expect(partnerPart(333, 1500)).toBe(50); // 49.95
    expect(partnerPart(-333, 1500)).toBe(-50);
    expect(partnerPart(1_000_000, 1800)).toBe(180_000);
  });

  it("settles a month to the cent with withholding (5% resident, 20% non-resident), once however often it runs", async () => {
    const local = await partner(await organisation("Nairobi CRM Consultants"), "NBICRM", [{ bps: 1800, from: "2026-09-01T00:00:00Z" }]);
    const abroad = await partner(await organisation("Kampala Commerce Partners"), "KLACOM", [{ bps: 1200, from: "2026-09-01T00:00:00Z" }]);
    await rawQuery(`update partners set resident = false where id = $1`, [abroad]);
    const [a1, a2, b1] = [
      await organisation("Eldoret Agro Dealers"),
      await organisation("Nyeri Dairy Farmers"),
      await organisation("Busia Cross-Border Traders"),
    ];
    await attribute(local, a1, "2026-09-10T00:00:00Z");
    await attribute(local, a2, "2026-09-10T00:00:00Z");
    await attribute(abroad, b1, "2026-09-10T00:00:00Z");
    await paidTopUp(a1, 3_471, "2026-10-01T00:30:00+03:00"); // just inside October in Nairobi
    await paidTopUp(a2, 12_345, "2026-10-31T23:59:00+03:00");
    await paidTopUp(b1, 7_777, "2026-10-15T12:00:00+03:00");
    await paidTopUp(a1, 9_999, "2026-11-01T00:01:00+03:00"); // November's: not in October's settlement

    const settled = await settleMonth("2026-10-01");
    expect(settled).toHaveLength(2);
    const sums = await rawQuery<{ settlement_id: string; partner: string; n: number }>(
      `select settlement_id, sum(partner_cents)::text as partner, count(*)::int as n from partner_transactions
       where settlement_id is not null group by settlement_id`,
    );
    for (const s of settled) {
      const sum = sums.find((r) => r.settlement_id === s.id)!;
      expect([s.partner_cents, s.transactions]).toEqual([sum.partner, sum.n]);
      expect(Number(s.withholding_cents) + Number(s.net_cents)).toBe(Number(s.partner_cents));
    }
    const byPartner = Object.fromEntries(settled.map((s) => [s.partner_id, s]));
    // 18% of the two invoices' net (2,992.24 + 10,642.24): 538.60 + 1,915.60; 5% withheld.
    expect(byPartner[local]).toMatchObject({ transactions: 2, partner_cents: "245420", withholding_cents: "12271", net_cents: "233149" });
    // 12% of 6,704.31 = 804.52; 20% withheld.
    expect(byPartner[abroad]).toMatchObject({ transactions: 1, partner_cents: "80452", withholding_cents: "16090", net_cents: "64362" });
    expect(await settleMonth("2026-10-01")).toEqual([]);
    expect(await rawQuery(`select 1 from partner_settlements`)).toHaveLength(2);
    const { start, end } = monthBounds("2026-10-01");
    expect([start.toISOString(), end.toISOString()]).toEqual(["2026-09-30T21:00:00.000Z", "2026-10-31T21:00:00.000Z"]);
  });

  it("carries a month whose credit notes outweigh it into the next, and a late invoice into the next settlement", async () => {
    const partnerId = await partner(await organisation("Coast Resellers"), "COASTR", [{ bps: 1000, from: "2026-09-01T00:00:00Z" }]);
    const client = await organisation("Malindi Beach Hotels");
    await attribute(partnerId, client, "2026-09-01T00:00:00Z");
    const september = await paidTopUp(client, 11_600, "2026-09-20T10:00:00+03:00");
    expect(await settleMonth("2026-09-01")).toHaveLength(1);
    await rawQuery(`update partner_settlements set status = 'paid'`);
    await creditNote(client, september.id, 11_600, "2026-10-02T10:00:00+03:00"); // -1,000 in October
    await paidTopUp(client, 5_800, "2026-10-20T10:00:00+03:00"); // +500 in October
    expect(await settleMonth("2026-10-01")).toEqual([]);
    await paidTopUp(client, 23_200, "2026-11-05T10:00:00+03:00"); // +2,000 in November
    const [november] = await settleMonth("2026-11-01");
    // October's -1,000 + 500 carried: 1,500 in November's settlement.
    expect(november).toMatchObject({ transactions: 3, partner_cents: "150000" });
  });
});

// PostgreSQL only: PGlite has one connection, so no other transaction can be open at the same time.
describe.skipIf(!process.env.TEST_DATABASE_URL)("a payment and a credit note of one invoice at the same moment", () => {
  it("records the reversal once, whichever commits first", async () => {
    const partnerId = await partner(await organisation("Lake Basin Integrators"), "LAKEB", [{ bps: 2000, from: "2026-09-01T00:00:00Z" }]);
    const client = await organisation("Kisumu Fish Cooperative");
    await attribute(partnerId, client, "2026-09-01T00:00:00Z");
    const pending = () =>
      db().transaction((tx) =>
        issueInvoice(tx, {
          organizationId: client,
          series: "INV",
          kind: "subscription",
          status: "pending",
          description: "Growth plan (postpaid)",
          lines: [
            lineFromGross({ description: "Growth plan", itemCode: "JMB-PLAN", quantity: 1, unit: "month", unitPriceCents: 1_160_00 }),
          ],
          pricesIncludeVat: false,
        }),
      );
    for (const paymentFirst of [true, false]) {
      const invoice = await pending();
      const other = new pg.Client({ connectionString: testDatabaseUrl() });
      await other.connect();
      try {
        await other.query("begin");
        if (paymentFirst) await other.query(`update invoices set status = 'paid', paid_at = now() where id = $1`, [invoice.id]);
        else await other.query(`select 1 from invoices where id = $1 for update`, [invoice.id]); // a dispute's lock, as disputes.ts takes it
        const second = paymentFirst
          ? creditNote(client, invoice.id, 580, new Date().toISOString())
          : rawQuery(`update invoices set status = 'paid', paid_at = now() where id = $1`, [invoice.id]);
        if (!paymentFirst)
          await other.query(
            `insert into invoices (organization_id, number, series, kind, status, paid_at, description, net_cents, vat_cents, total_cents,
                                   prices_include_vat, seller, buyer, lines, credits_invoice_id)
             values ($1, 'CRN-TEST-' || floor(random() * 1e9)::text, 'CRN', 'credit_note', 'paid', now(), 'Credit', 50000, 8000, 58000, true,
                     '{}', '{}', '[]', $2) returning id`,
            [client, invoice.id],
          );
        await vi.waitFor(
          async () => {
            const [waiting] = await rawQuery<{ n: number }>(`select count(*)::int as n from pg_locks where not granted`);
            expect(waiting!.n).toBeGreaterThanOrEqual(1);
          },
          { timeout: 30_000, interval: 20 },
        );
        await other.query("commit");
        await second;
        const rows = await rawQuery<{ kind: string; amount_cents: string; partner_cents: string }>(
          `select t.kind, t.amount_cents::text, t.partner_cents::text from partner_transactions t join invoices i on i.id = t.invoice_id
           where i.id = $1 or i.credits_invoice_id = $1 order by t.id`,
          [invoice.id],
        );
        expect(rows, paymentFirst ? "payment first" : "credit note first").toEqual([
          { kind: "subscription", amount_cents: "100000", partner_cents: "20000" },
          { kind: "credit_note", amount_cents: "-50000", partner_cents: "-10000" },
        ]);
      } finally {
        await other.end();
      }
    }
  });
});
