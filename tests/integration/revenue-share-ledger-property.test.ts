import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { db, rawQuery } from "~/.server/infrastructure/db/client";
import { organizations } from "~/.server/infrastructure/db/schema";
import { newBusinessId } from "~/.server/domains/auth/signup";
import { issueInvoice } from "~/.server/domains/billing/invoices";
import { lineFromGross, lineFromNet } from "~/.server/domains/billing/vat";
import { recordUnrecordedInvoices } from "~/.server/domains/revenue-share/ledger";
import { settleMonth } from "~/.server/domains/revenue-share/settle";
import { nairobiMonth } from "~/.server/domains/revenue-share/schedule";

// Issue 72: every shilling once. Random sequences of prepaid top-ups, postpaid receipts, monthly
// invoices paid later, credit notes (before and after payment, partial and whole), share changes,
// referrals that start and end, a partner suspended and restored, settlement runs and repeated
// recording, in any order and at any time. After each sequence the ledger must equal what the rule
// (decision 102) gives from first principles, computed here from the model alone: each paid tax
// invoice counted once, net of VAT, at the share of its payment, if its organisation was the
// partner's and the partner active then; less what credit notes took back, never more than it gave.

type Op =
  | { op: "topup"; org: number; grossKes: number }
  | { op: "receipt"; org: number; grossKes: number }
  | { op: "monthly"; org: number; netKes: number }
  | { op: "payMonthly"; pick: number }
  | { op: "credit"; pick: number; fraction: number }
  | { op: "share"; bps: number }
  | { op: "attribute"; org: number }
  | { op: "endAttribution"; org: number }
  | { op: "suspend" }
  | { op: "restore" }
  | { op: "settle"; monthsBack: number }
  | { op: "recordAgain" }
  | { op: "wait"; minutes: number };

const ORGS = 2;
const op: fc.Arbitrary<Op> = fc.oneof(
  {
    arbitrary: fc.record({ op: fc.constant("topup" as const), org: fc.nat(ORGS - 1), grossKes: fc.integer({ min: 1, max: 60_000 }) }),
    weight: 4,
  },
  {
    arbitrary: fc.record({ op: fc.constant("receipt" as const), org: fc.nat(ORGS - 1), grossKes: fc.integer({ min: 1, max: 60_000 }) }),
    weight: 3,
  },
  {
    arbitrary: fc.record({ op: fc.constant("monthly" as const), org: fc.nat(ORGS - 1), netKes: fc.integer({ min: 1, max: 50_000 }) }),
    weight: 3,
  },
  { arbitrary: fc.record({ op: fc.constant("payMonthly" as const), pick: fc.nat() }), weight: 3 },
  {
    arbitrary: fc.record({ op: fc.constant("credit" as const), pick: fc.nat(), fraction: fc.double({ min: 0.01, max: 1.2, noNaN: true }) }),
    weight: 4,
  },
  { arbitrary: fc.record({ op: fc.constant("share" as const), bps: fc.integer({ min: 0, max: 5000 }) }), weight: 1 },
  { arbitrary: fc.record({ op: fc.constant("attribute" as const), org: fc.nat(ORGS - 1) }), weight: 2 },
  { arbitrary: fc.record({ op: fc.constant("endAttribution" as const), org: fc.nat(ORGS - 1) }), weight: 1 },
  { arbitrary: fc.constant({ op: "suspend" as const }), weight: 1 },
  { arbitrary: fc.constant({ op: "restore" as const }), weight: 1 },
  { arbitrary: fc.record({ op: fc.constant("settle" as const), monthsBack: fc.integer({ min: 0, max: 2 }) }), weight: 2 },
  { arbitrary: fc.constant({ op: "recordAgain" as const }), weight: 1 },
  { arbitrary: fc.record({ op: fc.constant("wait" as const), minutes: fc.integer({ min: 1, max: 60 * 24 * 20 }) }), weight: 3 },
);

interface ModelInvoice {
  id: string;
  org: number;
  series: "INV" | "RCT";
  netCents: number;
  grossCents: number;
  paidAt: number | null;
  void: boolean;
  /** Credit notes against it: net, gross and when issued. */
  credits: { netCents: number; grossCents: number }[];
}

/** Round half away from zero, as the ledger does (numeric round). */
const part = (cents: number, bps: number) => Math.sign(cents) * Math.round((Math.abs(cents) * bps) / 10_000);

async function runSequence(ops: Op[], tag: number) {
  let clock = Date.parse("2026-09-01T06:00:00Z");
  const tick = () => (clock += 1000); // every event its own instant
  const orgIds: string[] = [];
  for (let n = 0; n < ORGS + 1; n++) {
    const [org] = await db()
      .insert(organizations)
      .values({ name: `Property ${tag}-${n}`, businessId: newBusinessId(), status: "active", planType: "Growth", county: "Nairobi" })
      .returning({ id: organizations.id });
    orgIds.push(org!.id);
  }
  const [partner] = await rawQuery<{ id: string }>(
    `insert into partners (organization_id, code, name, category, status, share_bps, payout_method, mpesa_phone, kra_pin, approved_at)
     values ($1, $2, 'Property partner', 'Agency', 'active', 1500, 'mpesa', '254712345678', 'P051234567Q', now()) returning id`,
    [orgIds[ORGS], `PROP${tag}X${Date.now() % 1e6}`],
  );
  const partnerId = partner!.id;
  // The model's history: shares, attributions and the partner's status, each from an instant.
  const shares: { from: number; bps: number }[] = [{ from: clock, bps: 1500 }];
  await rawQuery(`insert into partner_share_changes (partner_id, share_bps, reason, effective_from) values ($1, 1500, 'terms', $2)`, [
    partnerId,
    new Date(clock).toISOString(),
  ]);
  // Organisation 0 is the partner's from the start (so most sequences have something to count).
  const attributions: { org: number; from: number; to: number | null }[] = [{ org: 0, from: tick(), to: null }];
  await rawQuery(`insert into partner_attributions (partner_id, organization_id, source, started_at) values ($1, $2, 'referral', $3)`, [
    partnerId,
    orgIds[0],
    new Date(clock).toISOString(),
  ]);
  const status: { from: number; active: boolean }[] = [{ from: clock, active: true }];
  await rawQuery(`insert into partner_status_changes (partner_id, status, effective_from) values ($1, 'active', $2)`, [
    partnerId,
    new Date(clock).toISOString(),
  ]);
  const invoices: ModelInvoice[] = [];

  const issue = async (
    org: number,
    series: "INV" | "RCT",
    kind: "topup" | "subscription",
    line: ReturnType<typeof lineFromGross>,
    paid: boolean,
  ) => {
    const at = tick();
    const doc = await db().transaction((tx) =>
      issueInvoice(tx, {
        organizationId: orgIds[org]!,
        series,
        kind,
        status: paid ? "paid" : "pending",
        description: kind === "topup" ? "Wallet top-up" : "Monthly invoice",
        lines: [line],
        pricesIncludeVat: series === "INV" && kind === "topup",
        issuedAt: new Date(at),
        paidAt: paid ? new Date(at) : null,
      }),
    );
    const [row] = await rawQuery<{ net_cents: string; total_cents: string }>(`select net_cents, total_cents from invoices where id = $1`, [
      doc.id,
    ]);
    invoices.push({
      id: doc.id,
      org,
      series,
      netCents: Number(row!.net_cents),
      grossCents: Number(row!.total_cents),
      paidAt: paid ? at : null,
      void: false,
      credits: [],
    });
  };

  for (const step of ops) {
    switch (step.op) {
      case "topup": {
        const gross = step.grossKes * 100 + (step.grossKes % 97);
        await issue(
          step.org,
          "INV",
          "topup",
          lineFromGross({ description: "Wallet top-up", itemCode: "JMB-TOPUP", quantity: 1, unit: "top-up", unitPriceCents: gross }),
          true,
        );
        break;
      }
      case "receipt": {
        // Postpaid money on account: a receipt, no VAT of its own (payments.ts issueTopupDocument).
        const line = lineFromNet({
          description: "Wallet top-up",
          itemCode: "JMB-TOPUP",
          quantity: 1,
          unit: "top-up",
          unitPriceCents: step.grossKes * 100,
        });
        await issue(step.org, "RCT", "topup", { ...line, vatCents: 0, grossCents: step.grossKes * 100 }, true);
        break;
      }
      case "monthly":
        await issue(
          step.org,
          "INV",
          "subscription",
          lineFromNet({
            description: "Growth plan",
            itemCode: "JMB-PLAN",
            quantity: 1,
            unit: "month",
            unitPriceCents: step.netKes * 100 + 33,
          }),
          false,
        );
        break;
      case "payMonthly": {
        const open = invoices.filter((i) => i.paidAt === null && !i.void);
        if (!open.length) break;
        const invoice = open[step.pick % open.length]!;
        const at = tick();
        // As payOpenInvoicesFromWallet and creditPayment write it.
        await rawQuery(`update invoices set status = 'paid', paid_at = $2 where id = $1`, [invoice.id, new Date(at).toISOString()]);
        invoice.paidAt = at;
        break;
      }
      case "credit": {
        const creditable = invoices.filter((i) => !i.void);
        if (!creditable.length) break;
        const invoice = creditable[step.pick % creditable.length]!;
        const creditedGross = invoice.credits.reduce((sum, c) => sum + c.grossCents, 0);
        const left = invoice.grossCents - creditedGross;
        let gross = Math.min(invoice.grossCents, Math.max(1, Math.round(invoice.grossCents * step.fraction)));
        // An unpaid invoice is credited at most what is still due; its whole due voids it (disputes.ts).
        if (invoice.paidAt === null) gross = Math.min(gross, left);
        if (gross <= 0) break;
        const at = tick();
        const note = await db().transaction(async (tx) => {
          const issued = await issueInvoice(tx, {
            organizationId: orgIds[invoice.org]!,
            series: "CRN",
            kind: "credit_note",
            status: "paid",
            description: "Credit note",
            lines: [lineFromGross({ description: "Credit", itemCode: "JMB-CREDIT", quantity: 1, unit: "credit", unitPriceCents: gross })],
            pricesIncludeVat: true,
            issuedAt: new Date(at),
            paidAt: new Date(at),
          });
          await tx.execute(`update invoices set credits_invoice_id = '${invoice.id}' where id = '${issued.id}'`);
          if (invoice.paidAt === null && gross === left) await tx.execute(`update invoices set status = 'void' where id = '${invoice.id}'`);
          return issued;
        });
        const [row] = await rawQuery<{ net_cents: string }>(`select net_cents from invoices where id = $1`, [note.id]);
        invoice.credits.push({ netCents: Number(row!.net_cents), grossCents: gross });
        if (invoice.paidAt === null && gross === left) invoice.void = true;
        break;
      }
      case "share": {
        const at = tick();
        await rawQuery(`insert into partner_share_changes (partner_id, share_bps, reason, effective_from) values ($1, $2, 'terms', $3)`, [
          partnerId,
          step.bps,
          new Date(at).toISOString(),
        ]);
        await rawQuery(`update partners set share_bps = $2 where id = $1`, [partnerId, step.bps]);
        shares.push({ from: at, bps: step.bps });
        break;
      }
      case "attribute": {
        if (attributions.some((a) => a.org === step.org && a.to === null)) break;
        const at = tick();
        await rawQuery(`insert into partner_attributions (partner_id, organization_id, source, started_at) values ($1, $2, 'admin', $3)`, [
          partnerId,
          orgIds[step.org],
          new Date(at).toISOString(),
        ]);
        attributions.push({ org: step.org, from: at, to: null });
        break;
      }
      case "endAttribution": {
        const current = attributions.find((a) => a.org === step.org && a.to === null);
        if (!current) break;
        const at = tick();
        await rawQuery(
          `update partner_attributions set ended_at = $3 where partner_id = $1 and organization_id = $2 and ended_at is null`,
          [partnerId, orgIds[step.org], new Date(at).toISOString()],
        );
        current.to = at;
        break;
      }
      case "suspend":
      case "restore": {
        const active = step.op === "restore";
        // As changePartnerStatus writes it: the status and, in its history, from when.
        const at = tick();
        await rawQuery(`update partners set status = $2 where id = $1`, [partnerId, active ? "active" : "suspended"]);
        await rawQuery(`insert into partner_status_changes (partner_id, status, effective_from) values ($1, $2, $3)`, [
          partnerId,
          active ? "active" : "suspended",
          new Date(at).toISOString(),
        ]);
        status.push({ from: at, active });
        break;
      }
      case "settle":
        await settleMonth(nairobiMonth(new Date(clock), step.monthsBack));
        break;
      case "recordAgain":
        await recordUnrecordedInvoices();
        await rawQuery(`select partner_ledger_record(id) from invoices where organization_id = any($1::uuid[])`, [orgIds]);
        break;
      case "wait":
        clock += step.minutes * 60_000;
        break;
    }
  }

  // First principles, from the model alone.
  const at = <T extends { from: number }>(history: T[], t: number) => history.filter((h) => h.from <= t).at(-1);
  let expectedAmount = 0;
  let expectedPart = 0;
  const counted = new Set<string>();
  for (const invoice of invoices) {
    if (invoice.series !== "INV" || invoice.paidAt === null || invoice.void || invoice.netCents <= 0) continue;
    const t = invoice.paidAt;
    const theirs = attributions.some((a) => a.org === invoice.org && a.from <= t && (a.to === null || a.to > t));
    if (!theirs || !at(status, t)!.active) continue;
    const bps = at(shares, t)!.bps;
    const taken = Math.min(
      invoice.netCents,
      invoice.credits.reduce((sum, c) => sum + c.netCents, 0),
    );
    expectedAmount += invoice.netCents - taken;
    expectedPart += part(invoice.netCents, bps) - part(taken, bps);
    counted.add(invoice.id);
  }

  const rows = await rawQuery<{
    invoice_id: string;
    credits: string | null;
    amount_cents: string;
    partner_cents: string;
    platform_cents: string;
    settlement_id: string | null;
  }>(
    `select t.invoice_id, i.credits_invoice_id as credits, t.amount_cents, t.partner_cents, t.platform_cents, t.settlement_id
     from partner_transactions t join invoices i on i.id = t.invoice_id where t.partner_id = $1`,
    [partnerId],
  );
  const sum = (key: "amount_cents" | "partner_cents") => rows.reduce((total, r) => total + Number(r[key]), 0);
  expect({ amount: sum("amount_cents"), part: sum("partner_cents") }).toEqual({ amount: expectedAmount, part: expectedPart });
  // Each document once; only the counted invoices and credit notes against them.
  expect(new Set(rows.map((r) => r.invoice_id)).size).toBe(rows.length);
  for (const r of rows) expect(counted.has(r.credits ?? r.invoice_id)).toBe(true);
  for (const r of rows) expect(Number(r.partner_cents) + Number(r.platform_cents)).toBe(Number(r.amount_cents));
  // Each settlement is exactly the transactions it marked.
  const settlements = await rawQuery<{ id: string; transactions: number; revenue_cents: string; partner_cents: string }>(
    `select id, transactions, revenue_cents, partner_cents from partner_settlements where partner_id = $1`,
    [partnerId],
  );
  for (const s of settlements) {
    const mine = rows.filter((r) => r.settlement_id === s.id);
    expect([s.transactions, Number(s.revenue_cents), Number(s.partner_cents)]).toEqual([
      mine.length,
      mine.reduce((total, r) => total + Number(r.amount_cents), 0),
      mine.reduce((total, r) => total + Number(r.partner_cents), 0),
    ]);
  }
}

describe("every shilling once (property)", () => {
  it("counts each payment and credit note once, whatever the sequence and the job runs", async () => {
    let tag = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 40 }), async (ops) => {
        await runSequence(ops, tag++);
      }),
      { numRuns: Number(process.env.LEDGER_PROPERTY_RUNS ?? 100), endOnFailure: true },
    );
  }, 600_000);
});
