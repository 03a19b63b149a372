import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { db, rawQuery } from "~/.server/infrastructure/db/client";
import { env, parseEnv, setEnv } from "~/.server/infrastructure/config/env";
import { issueInvoice } from "~/.server/domains/billing/invoices";
import { lineFromGross } from "~/.server/domains/billing/vat";
import {
  configuredWithholding,
  dueSettlementPeriod,
  nairobiMonth,
  RECORD_OVERLAP_MS,
  recordDueTransactions,
  settleDueMonth,
} from "~/.server/domains/partners/schedule";
import { registeredRecurringJobs } from "~/.server/infrastructure/jobs/recurring";
import { registerJobHandlers } from "~/.server/composition/job-handlers";
import { createVerifiedUser } from "../support/accounts";

// Issue 46, decision 087: the ledger recorded every minute from a watermark with an overlap (an
// invoice committed late is still found, nothing counts twice) and the previous month settled on
// the 15th, Nairobi time, once however many instances run it, with the configured withholding.
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
      series: "RCT",
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

  it("registers the minute's recording and the settlement check as recurring jobs", () => {
    registerJobHandlers();
    const names = registeredRecurringJobs().map((job) => [job.name, job.everySeconds]);
    expect(names).toContainEqual(["partners-record", 60]);
    expect(names).toContainEqual(["partners-settle", 600]);
  });

  it("records each minute from the last run's start less an overlap: a late commit is found, nothing counts twice", async () => {
    const { partnerId, clientId } = await partnerWithClient();
    const a = await paid(clientId, "2026-10-10T10:00:00Z");
    expect(await recordDueTransactions(new Date("2026-10-10T10:01:00Z"))).toBeGreaterThanOrEqual(1);
    expect((await recorded(partnerId)).map((t) => t.invoice_id)).toEqual([a.id]);

    // Paid (its transaction began) before the last run, committed after it: within the overlap.
    const late = await paid(clientId, "2026-10-10T10:00:30Z");
    const lateByMore = await paid(clientId, new Date(Date.parse("2026-10-10T10:01:00Z") - RECORD_OVERLAP_MS - 60_000).toISOString());
    expect(await recordDueTransactions(new Date("2026-10-10T10:02:00Z"))).toBe(1);
    expect((await recorded(partnerId)).map((t) => t.invoice_id).sort()).toEqual([a.id, late.id].sort());
    // Another instance running the same minute again adds nothing.
    expect(await recordDueTransactions(new Date("2026-10-10T10:02:00Z"))).toBe(0);

    // The mark never moves back (a slower run that began earlier finishes last).
    await recordDueTransactions(new Date("2026-10-10T09:00:00Z"));
    const [mark] = await rawQuery<{ at: Date }>(`select at from partner_schedule where name = 'ledger'`);
    expect(new Date(mark!.at).toISOString()).toBe("2026-10-10T10:02:00.000Z");

    // Older than the overlap: the settlement's own recording (from the month's start) still counts it.
    expect((await recorded(partnerId)).map((t) => t.invoice_id)).not.toContain(lateByMore.id);
    await settleDueMonth(new Date("2026-11-14T21:00:00Z"));
    const all = await recorded(partnerId);
    expect(all.map((t) => t.invoice_id).sort()).toEqual([a.id, late.id, lateByMore.id].sort());
    expect(new Set(all.map((t) => t.settlement_id)).size).toBe(1);
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
