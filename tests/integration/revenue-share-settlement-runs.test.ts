import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { settleMonth } from "~/.server/domains/revenue-share/settle";
import { nextSettlementDay, settleDueMonth } from "~/.server/domains/revenue-share/schedule";
import { ownProgramme, programmeOverview } from "~/.server/domains/revenue-share/read";
import type { PlatformScope } from "~/.server/infrastructure/db/scope";
import { createVerifiedUser } from "../support/accounts";

// Issue 72: a settlement run that finds more for a pending settlement works out the withholding
// over the whole settlement (threshold and rate); settlement ids are UUIDs by the format the API
// answers; the next settlement shown moves on once the month's run has completed.

const RFC_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

async function partner(method: "mpesa" | "bank" = "bank") {
  const owner = await createVerifiedUser({ businessName: `Runs ${randomUUID().slice(0, 6)}` });
  const [p] = await rawQuery<{ id: string }>(
    `insert into partners (organization_id, code, name, category, status, share_bps, payout_method, mpesa_phone, bank_details, kra_pin, approved_at)
     values ($1, $2, 'Nyeri Systems', 'Integrator', 'active', 1000, $3, $4, $5, 'P051234567Q', now()) returning id`,
    [
      owner.organization.id,
      `R${randomUUID().slice(0, 8).toUpperCase()}`,
      method,
      method === "mpesa" ? "254712345678" : null,
      method === "bank"
        ? JSON.stringify({ bank: "KCB", branch: "Nyeri", accountName: "Nyeri Systems", accountNumber: "1234567890" })
        : null,
    ],
  );
  return { partnerId: p!.id, organizationId: owner.organization.id };
}

/** A ledger row as the recorder writes it, the partner's part `cents` (share 100%). */
const earned = (partnerId: string, organizationId: string, cents: number, at: string) =>
  rawQuery(
    `insert into partner_transactions (partner_id, client_organization_id, invoice_id, kind, amount_cents, share_bps, partner_cents, platform_cents, occurred_at)
     values ($1, $2, gen_random_uuid(), 'topup', $3, 10000, $3, 0, $4::timestamptz)`,
    [partnerId, organizationId, cents, at],
  );

const settlementOf = async (partnerId: string) =>
  (
    await rawQuery<{
      id: string;
      transactions: number;
      partner_cents: string;
      withholding_bps: number;
      withholding_cents: string;
      net_cents: string;
      payable_cents: string;
    }>(
      `select id::text, transactions, partner_cents::text, withholding_bps, withholding_cents::text, net_cents::text, payable_cents::text
       from partner_settlements where partner_id = $1`,
      [partnerId],
    )
  )[0];

const RATES = { residentBps: 500, nonResidentBps: 2000, thresholdCents: 24_000_00 };

describe("a second run of a pending settlement", () => {
  it("applies the withholding threshold to the whole settlement, not to what the run adds", async () => {
    const { partnerId, organizationId } = await partner();
    await earned(partnerId, organizationId, 20_000_00, "2026-10-05T09:00:00Z");
    await settleMonth("2026-10-01", RATES);
    // KES 20,000 is under the KES 24,000 threshold: nothing withheld.
    expect(await settlementOf(partnerId)).toMatchObject({ partner_cents: "2000000", withholding_bps: 0, withholding_cents: "0" });

    // A late invoice of October (recorded after the run) adds KES 10,000: the settlement is KES 30,000, over the threshold.
    await earned(partnerId, organizationId, 10_000_00, "2026-10-28T09:00:00Z");
    await settleMonth("2026-10-01", RATES);
    expect(await settlementOf(partnerId)).toMatchObject({
      transactions: 2,
      partner_cents: "3000000",
      withholding_bps: 500,
      withholding_cents: "150000",
      net_cents: "2850000",
      payable_cents: "2850000",
    });
  });

  it("withholds at the partner's rate now, over the whole settlement", async () => {
    const { partnerId, organizationId } = await partner();
    await earned(partnerId, organizationId, 40_000_00, "2026-10-05T09:00:00Z");
    await settleMonth("2026-10-01", RATES);
    expect(await settlementOf(partnerId)).toMatchObject({ withholding_bps: 500, withholding_cents: "200000" });
    // The partner turns out not to be resident; the next run's rate applies to the whole month.
    await rawQuery(`update partners set resident = false where id = $1`, [partnerId]);
    await earned(partnerId, organizationId, 1_000_00, "2026-10-29T09:00:00Z");
    await settleMonth("2026-10-01", RATES);
    expect(await settlementOf(partnerId)).toMatchObject({
      partner_cents: "4100000",
      withholding_bps: 2000,
      withholding_cents: "820000",
      net_cents: "3280000",
    });
  });

  it("adds nothing to a month once a later month is settled: the late transaction goes to the next settlement", async () => {
    const { partnerId, organizationId } = await partner("mpesa");
    await earned(partnerId, organizationId, 10_050, "2026-10-05T09:00:00Z");
    await earned(partnerId, organizationId, 20_050, "2026-11-05T09:00:00Z");
    await settleMonth("2026-10-01", RATES);
    await settleMonth("2026-11-01", RATES);
    await earned(partnerId, organizationId, 5_000, "2026-10-30T09:00:00Z");
    expect(await settleMonth("2026-10-01", RATES)).toEqual([]);
    const [{ n }] = (await rawQuery<{ n: number }>(
      `select count(*)::int as n from partner_transactions where partner_id = $1 and settlement_id is null`,
      [partnerId],
    )) as [{ n: number }];
    expect(n).toBe(1);
  });
});

describe("settlement ids", () => {
  it("are UUIDs (version 3, RFC variant), the same on every run, and every transaction names its settlement", async () => {
    const { partnerId, organizationId } = await partner();
    await earned(partnerId, organizationId, 1_000_00, "2026-10-05T09:00:00Z");
    const [first] = await settleMonth("2026-10-01", RATES);
    expect(first!.id).toMatch(RFC_UUID);
    expect(first!.id[14]).toBe("3");
    await earned(partnerId, organizationId, 500_00, "2026-10-06T09:00:00Z");
    const [again] = await settleMonth("2026-10-01", RATES);
    expect(again!.id).toBe(first!.id);
    const marks = await rawQuery<{ settlement_id: string }>(`select settlement_id::text from partner_transactions where partner_id = $1`, [
      partnerId,
    ]);
    expect(marks.map((m) => m.settlement_id)).toEqual([first!.id, first!.id]);
  });
});

describe("migration 0058", () => {
  it("moves an md5 settlement id to its UUID everywhere: the settlement, its transactions, payouts and undelivered events", async () => {
    const { partnerId, organizationId } = await partner("mpesa");
    const [{ old }] = (await rawQuery<{ old: string }>(`select md5($1::text || ':' || '2026-08-01')::uuid::text as old`, [partnerId])) as [
      { old: string },
    ];
    await rawQuery(
      `insert into partner_settlements (id, partner_id, period, transactions, revenue_cents, partner_cents, withholding_bps, withholding_cents, net_cents,
                                        carried_out_cents, payable_cents, payout_method, status)
       values ($1, $2, '2026-08-01', 1, 100000, 100000, 0, 0, 100000, 0, 100000, 'mpesa', 'processing')`,
      [old, partnerId],
    );
    await earned(partnerId, organizationId, 100_000, "2026-08-05T09:00:00Z");
    await rawQuery(`update partner_transactions set settlement_id = $1 where partner_id = $2`, [old, partnerId]);
    await rawQuery(
      `insert into partner_payouts (settlement_id, attempt, method, amount_cents, status, originator_conversation_id, phone)
       values ($1, 1, 'mpesa', 100000, 'accepted', $2, '254712345678')`,
      [old, `jumbe-payout-${randomUUID()}`],
    );
    const payload = (id: string) => JSON.stringify({ type: "partner.settlement.paid", data: { settlementId: id } });
    await rawQuery(
      `insert into webhook_deliveries (organization_id, event_type, payload, status) values ($1, 'partner.settlement.paid', $2::json, 'pending'),
                                                                                        ($1, 'partner.settlement.paid', $2::json, 'delivered')`,
      [organizationId, payload(old)],
    );
    const migration = readFileSync("drizzle/0058_settlement_ids_and_carried_cents.sql", "utf8").split("--> statement-breakpoint")[0]!;
    await rawQuery(migration);

    // The id the settlement run derives for that partner and month.
    await earned(partnerId, organizationId, 1_000, "2026-08-06T09:00:00Z");
    await rawQuery(`update partner_settlements set status = 'pending' where partner_id = $1`, [partnerId]);
    const [derived] = await settleMonth("2026-08-01", RATES);
    expect(derived!.id).toMatch(RFC_UUID);
    expect(derived!.id.replace(/-/g, "").slice(0, 12)).toBe(old.replace(/-/g, "").slice(0, 12));
    const ids = await rawQuery<{ what: string; id: string }>(
      `select 'settlement' as what, id::text from partner_settlements where partner_id = $1
       union all select 'transaction', settlement_id::text from partner_transactions where partner_id = $1
       union all select 'payout', p.settlement_id::text from partner_payouts p join partner_settlements s on s.id = p.settlement_id where s.partner_id = $1
       union all select 'event ' || status, payload->'data'->>'settlementId' from webhook_deliveries where organization_id = $2`,
      [partnerId, organizationId],
    );
    expect(ids.sort((a, b) => a.what.localeCompare(b.what))).toEqual([
      { what: "event delivered", id: old },
      { what: "event pending", id: derived!.id },
      { what: "payout", id: derived!.id },
      { what: "settlement", id: derived!.id },
      { what: "transaction", id: derived!.id },
      { what: "transaction", id: derived!.id },
    ]);
  });
});

describe("the next settlement shown", () => {
  beforeEach(async () => {
    await rawQuery(`delete from partner_schedule where name = 'settlement'`);
    vi.useFakeTimers({ toFake: ["Date"] });
  });
  afterEach(() => vi.useRealTimers());
  const scope: PlatformScope = { kind: "platform" };

  it("is 15 Dec on the 15th until December's run, then 15 Jan 2027, on the Overview and the partner's own page", async () => {
    const { organizationId } = await partner();
    vi.setSystemTime(new Date("2026-12-14T20:00:00Z")); // 23:00 on the 14th in Nairobi
    expect(await nextSettlementDay()).toBe("2026-12-15");
    vi.setSystemTime(new Date("2026-12-15T06:00:00Z")); // 09:00 on the 15th, before the run
    expect((await programmeOverview(scope)).nextSettlement).toBe("2026-12-15");
    expect(await settleDueMonth(new Date())).toBe("2026-11-01");
    // The same morning, after the run: the next one is January's.
    expect((await programmeOverview(scope)).nextSettlement).toBe("2027-01-15");
    expect((await ownProgramme(organizationId))!.nextSettlement).toBe("2027-01-15");
    vi.setSystemTime(new Date("2026-12-31T21:30:00Z")); // 00:30 on 1 January in Nairobi
    expect(await nextSettlementDay()).toBe("2027-01-15");
  });
});
