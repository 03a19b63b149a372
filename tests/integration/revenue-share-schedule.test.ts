import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { db, rawQuery } from "~/.server/infrastructure/db/client";
import { env, parseEnv, setEnv } from "~/.server/infrastructure/config/env";
import { issueInvoice } from "~/.server/domains/billing/invoices";
import { lineFromGross } from "~/.server/domains/billing/vat";
import { configuredWithholding, dueSettlementPeriod, nairobiMonth, settleDueMonth } from "~/.server/domains/revenue-share/schedule";
import { registeredRecurringJobs } from "~/.server/infrastructure/jobs/recurring";
import { registerJobHandlers } from "~/.server/composition/job-handlers";
import { createVerifiedUser } from "../support/accounts";

// Issue 46, decision 087: the previous month settled on the 15th, Nairobi time, once however many
// instances run it, with the configured withholding. Issue 72, decision 102: the ledger has no job
// and no watermark: a payment is recorded when it commits, however long after its date.
// The clock is the test's: each run is handed its "now".

async function partnerWithClient() {
  const owner = await createVerifiedUser({ businessName: "Savannah CRM" });
  const client = await createVerifiedUser({ businessName: "Mombasa Spices" });
  const [p] = await rawQuery<{ id: string }>(
    `insert into partners (organization_id, code, name, category, status, share_bps, payout_method, mpesa_phone, kra_pin, approved_at)
     values ($1, 'SAVANNAH' || floor(random() * 1e9)::text, 'Savannah CRM', 'CRM', 'active', 2000, 'mpesa', '254712345678', 'P051234567Q', now())
     returning id`,
    [owner.organization.id],
  );
  await rawQuery(
    `insert into partner_share_changes (partner_id, share_bps, reason, effective_from) values ($1, 2000, 'Programme terms', '2026-01-01')`,
    [p!.id],
  );
  await rawQuery(
    `insert into partner_attributions (partner_id, organization_id, source, started_at) values ($1, $2, 'referral', '2026-01-01')`,
    [p!.id, client.organization.id],
  );
  return { partnerId: p!.id, clientId: client.organization.id };
}

/** A top-up of KES 1,160 (1,000 net of VAT) paid at `paidAt`, written now (as a late commit would be). */
const paid = (organizationId: string, paidAt: string) =>
  db().transaction((tx) =>
    issueInvoice(tx, {
      organizationId,
      series: "INV",
      kind: "topup",
      status: "paid",
      description: "Wallet top-up",
      lines: [lineFromGross({ description: "Wallet top-up", itemCode: "JMB-TOPUP", quantity: 1, unit: "top-up", unitPriceCents: 1160_00 })],
      pricesIncludeVat: true,
      issuedAt: new Date(paidAt),
      paidAt: new Date(paidAt),
    }),
  );

const recorded = (partnerId: string) =>
  rawQuery<{ invoice_id: string; settlement_id: string | null }>(
    `select invoice_id, settlement_id from partner_transactions where partner_id = $1 order by occurred_at`,
    [partnerId],
  );

beforeEach(async () => {
  await rawQuery(`delete from partner_schedule`);
});

describe("the programme's schedule", () => {
  const saved = env();
  afterEach(() => setEnv(saved));

  it("registers the settlement check as a recurring job, and no job to record the ledger", () => {
    registerJobHandlers();
    const names = registeredRecurringJobs().map((job) => [job.name, job.everySeconds]);
    expect(names).toContainEqual(["partners-settle", 600]);
    expect(names.map(([name]) => name)).not.toContain("partners-record");
  });

  it("records a payment when it commits, however long after its date, and settles it once", async () => {
    const { partnerId, clientId } = await partnerWithClient();
    const a = await paid(clientId, "2026-10-10T10:00:00Z");
    expect((await recorded(partnerId)).map((t) => t.invoice_id)).toEqual([a.id]);
    // Dated an hour before it was written (a slow transaction, another instance's clock, a late commit):
    // no look-back decides whether it is found.
    const late = await paid(clientId, "2026-10-10T09:00:00Z");
    expect((await recorded(partnerId)).map((t) => t.invoice_id).sort()).toEqual([a.id, late.id].sort());
    await settleDueMonth(new Date("2026-11-14T21:00:00Z"));
    const all = await recorded(partnerId);
    expect(all).toHaveLength(2);
    expect(new Set(all.map((t) => t.settlement_id)).size).toBe(1);
    expect(all[0]!.settlement_id).not.toBeNull();
  });

  it("knows the Nairobi month and which settlement is due", () => {
    // 23:59 on 31 October in Nairobi is 20:59 UTC; a minute later it is November there.
    expect(nairobiMonth(new Date("2026-10-31T20:59:00Z"))).toBe("2026-10-01");
    expect(nairobiMonth(new Date("2026-10-31T21:00:00Z"))).toBe("2026-11-01");
    expect(nairobiMonth(new Date("2026-01-20T12:00:00Z"), 1)).toBe("2025-12-01");
    expect(dueSettlementPeriod(new Date("2026-11-14T20:59:59Z"))).toBe("2026-09-01");
    expect(dueSettlementPeriod(new Date("2026-11-14T21:00:00Z"))).toBe("2026-10-01");
    expect(dueSettlementPeriod(new Date("2027-01-15T09:00:00Z"))).toBe("2026-12-01");
  });

  it("settles the previous month on the 15th (Nairobi) with the configured withholding, once, and again safely", async () => {
    setEnv(parseEnv({ ...process.env, PARTNER_WITHHOLDING_RESIDENT_BPS: "1000" }));
    expect(configuredWithholding()).toEqual({ residentBps: 1000, nonResidentBps: 2000, thresholdCents: 0 });
    const { partnerId, clientId } = await partnerWithClient();
    await paid(clientId, "2026-12-03T08:00:00Z");
    await paid(clientId, "2026-12-31T20:59:00Z"); // 23:59 on 31 December in Nairobi
    await paid(clientId, "2026-12-31T21:00:00Z"); // January in Nairobi: the next settlement's

    const settlements = () =>
      rawQuery<{
        period: string;
        transactions: number;
        partner_cents: string;
        withholding_bps: number;
        withholding_cents: string;
        net_cents: string;
      }>(
        `select to_char(period, 'YYYY-MM-DD') as period, transactions, partner_cents::text, withholding_bps, withholding_cents::text, net_cents::text
         from partner_settlements where partner_id = $1`,
        [partnerId],
      );
    // The 14th at 23:59 in Nairobi: December is not due yet (November's check finds nothing to settle).
    await settleDueMonth(new Date("2027-01-14T20:59:00Z"));
    expect(await settlements()).toEqual([]);

    // Midnight of the 15th: December is settled, recorded first (nothing ran the minute's job).
    expect(await settleDueMonth(new Date("2027-01-14T21:00:00Z"))).toBe("2026-12-01");
    const expected = {
      period: "2026-12-01",
      transactions: 2,
      partner_cents: "40000",
      withholding_bps: 1000,
      withholding_cents: "4000",
      net_cents: "36000",
    };
    expect(await settlements()).toEqual([expected]);
    // Later checks that day, on any instance, find it done.
    expect(await settleDueMonth(new Date("2027-01-15T09:00:00Z"))).toBeNull();
    // Re-run (a lost mark, a crash before it): nothing is settled twice.
    await rawQuery(`delete from partner_schedule where name = 'settlement'`);
    expect(await settleDueMonth(new Date("2027-01-15T09:10:00Z"))).toBe("2026-12-01");
    expect(await settlements()).toEqual([expected]);
    const rows = await recorded(partnerId);
    expect(rows).toHaveLength(3);
    expect(rows.filter((t) => t.settlement_id === null)).toHaveLength(1);
  });
});
