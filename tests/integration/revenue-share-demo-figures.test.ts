import { describe, expect, it } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { readableSettlement } from "~/.server/domains/revenue-share/statement";
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
});
