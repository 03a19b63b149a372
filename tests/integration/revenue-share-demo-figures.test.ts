import { describe, expect, it } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { readableSettlement } from "~/.server/domains/revenue-share/statement";
import { PAYOUT_FAILURES } from "~/.server/domains/revenue-share/payouts";
import { demoData } from "../support/demo-snapshot";
import { ledgerShares, recomputedShares } from "../support/revenue-share-recompute";

// Issue 72: on the seeded demo, each partner's share recomputed from first principles (decision 102)
// from the documents alone (invoices, credit notes, who brought whom, the shares) equals the ledger,
// client by client, and every settlement equals the transactions it settled, as its statement shows.

describe("the demo's partner programme, recomputed", () => {
  it("gives every partner, client by client, what the rule gives from the documents, and settles exactly that", async () => {
    await demoData();
    const { byPartnerClient, counted } = await recomputedShares();
    expect(counted).toBeGreaterThan(5); // the demo's clients pay
    expect(await ledgerShares()).toEqual(byPartnerClient);

    // No receipt (money on account) is in the ledger: its monthly tax invoice is.
    const receipts = await rawQuery(`select 1 from partner_transactions t join invoices i on i.id = t.invoice_id where i.series = 'RCT'`);
    expect(receipts).toEqual([]);

    // Every settlement is the sum of what it settled, and its statement reads the same figures.
    const settlements = await rawQuery<{ id: string; transactions: number; revenue_cents: string; partner_cents: string }>(
      `select id, transactions, revenue_cents::text, partner_cents::text from partner_settlements`,
    );
    expect(settlements.length).toBeGreaterThan(0);
    for (const s of settlements) {
      const [sum] = await rawQuery<{ n: number; revenue: string; share: string }>(
        `select count(*)::int as n, coalesce(sum(amount_cents), 0)::text as revenue, coalesce(sum(partner_cents), 0)::text as share
         from partner_transactions where settlement_id = $1`,
        [s.id],
      );
      expect([s.transactions, s.revenue_cents, s.partner_cents]).toEqual([sum!.n, sum!.revenue, sum!.share]);
      const head = await readableSettlement({ role: "platform_admin", organizationId: "00000000-0000-4000-8000-000000000000" }, s.id);
      expect([head?.revenue_cents, head?.partner_cents]).toEqual([sum!.revenue, sum!.share]);
    }
  }, 300_000);

  it("pays each settled M-Pesa month as a payout does: one paid attempt of what the statement says, a failure in M-Pesa's words", async () => {
    await demoData();
    const settlements = await rawQuery<{
      partner: string;
      status: string;
      payout_method: string;
      payable_cents: string;
      payout_reference: string | null;
      failure_reason: string | null;
      attempts: { status: string; amount_cents: number; receipt: string | null; originator: string; id: string }[] | string;
    }>(
      `select p.name as partner, s.status, s.payout_method, s.payable_cents::text, s.payout_reference, s.failure_reason,
              coalesce((select json_agg(json_build_object('status', x.status, 'amount_cents', x.amount_cents, 'receipt', x.receipt,
                                                          'originator', x.originator_conversation_id, 'id', x.id) order by x.attempt)
                        from partner_payouts x where x.settlement_id = s.id), '[]') as attempts
       from partner_settlements s join partners p on p.id = s.partner_id order by p.name, s.period`,
    );
    const mpesa = settlements.filter((s) => s.payout_method === "mpesa" && s.status !== "pending");
    expect(mpesa.map((s) => s.status).sort()).toEqual(expect.arrayContaining(["failed", "paid"]));
    for (const s of settlements) {
      const attempts = typeof s.attempts === "string" ? (JSON.parse(s.attempts) as Exclude<typeof s.attempts, string>) : s.attempts;
      const which = `${s.partner}, ${s.status} by ${s.payout_method}`;
      if (s.payout_method === "bank" || s.status === "pending") {
        expect(attempts, which).toEqual([]);
        continue;
      }
      expect(Number(s.payable_cents) % 100, which).toBe(0); // M-Pesa sends whole shillings
      for (const a of attempts) {
        expect(a.amount_cents, which).toBe(Number(s.payable_cents));
        expect(a.originator, which).toBe(`jumbe-payout-${a.id}`);
      }
      if (s.status === "paid") {
        expect(
          attempts.map((a) => [a.status, a.receipt]),
          which,
        ).toEqual([["paid", s.payout_reference]]);
      } else {
        expect(
          attempts.map((a) => a.status),
          which,
        ).toEqual(["failed"]);
        // The reason as a failed payout stores it: a sentence the page says in its reader's language.
        expect(PAYOUT_FAILURES.read(s.failure_reason ?? ""), which).toBeDefined();
      }
    }
  }, 300_000);
});
