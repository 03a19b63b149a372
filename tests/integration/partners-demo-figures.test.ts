import { describe, expect, it } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { readableSettlement } from "~/.server/domains/partners/statement";
import { demoData } from "../support/demo-snapshot";

// Issue 72: on the seeded demo, each partner's share recomputed from first principles (decision 102)
// from the documents alone (invoices, credit notes, who brought whom, the shares) equals the ledger,
// client by client, and every settlement equals the transactions it settled, as its statement shows.

interface Doc {
  id: string;
  organization_id: string;
  series: string;
  kind: string;
  status: string;
  paid_at: Date | string | null;
  net_cents: string;
  credits_invoice_id: string | null;
}

const part = (cents: number, bps: number) => Math.sign(cents) * Math.round((Math.abs(cents) * bps) / 10_000);
const time = (value: Date | string) => new Date(value).getTime();

describe("the demo's partner programme, recomputed", () => {
  it("gives every partner, client by client, what the rule gives from the documents, and settles exactly that", async () => {
    await demoData();
    const docs = await rawQuery<Doc>(
      `select id, organization_id, series, kind, status, paid_at, net_cents::text, credits_invoice_id from invoices`,
    );
    const attributions = await rawQuery<{ partner_id: string; organization_id: string; started_at: Date; ended_at: Date | null }>(
      `select partner_id, organization_id, started_at, ended_at from partner_attributions`,
    );
    const partners = await rawQuery<{ id: string; status: string }>(`select id, status from partners`);
    const shares = await rawQuery<{ partner_id: string; share_bps: number; effective_from: Date; id: number }>(
      `select partner_id, share_bps, effective_from, id from partner_share_changes order by effective_from, id`,
    );
    const creditsOf = new Map<string, Doc[]>();
    for (const d of docs)
      if (d.kind === "credit_note" && d.credits_invoice_id)
        creditsOf.set(d.credits_invoice_id, [...(creditsOf.get(d.credits_invoice_id) ?? []), d]);

    // partner → client → { revenue, share }
    const expected = new Map<string, { revenue: number; share: number }>();
    let counted = 0;
    for (const d of docs) {
      if (d.series !== "INV" || d.kind === "credit_note" || d.status === "void" || !d.paid_at || Number(d.net_cents) <= 0) continue;
      const paid = time(d.paid_at);
      const by = attributions.find(
        (a) => a.organization_id === d.organization_id && time(a.started_at) <= paid && (!a.ended_at || time(a.ended_at) > paid),
      );
      // The demo's suspended partner brought nobody, so a partner's status now is its status then.
      if (!by || partners.find((p) => p.id === by.partner_id)!.status !== "active") continue;
      const bps = shares.filter((s) => s.partner_id === by.partner_id && time(s.effective_from) <= paid).at(-1)!.share_bps;
      const net = Number(d.net_cents);
      const taken = Math.min(
        net,
        (creditsOf.get(d.id) ?? []).filter((c) => c.paid_at && c.status !== "void").reduce((sum, c) => sum + Number(c.net_cents), 0),
      );
      const key = `${by.partner_id}:${d.organization_id}`;
      const was = expected.get(key) ?? { revenue: 0, share: 0 };
      expected.set(key, { revenue: was.revenue + net - taken, share: was.share + part(net, bps) - part(taken, bps) });
      counted++;
    }
    expect(counted).toBeGreaterThan(5); // the demo's clients pay

    const ledger = await rawQuery<{ partner_id: string; client: string; revenue: string; share: string }>(
      `select partner_id, client_organization_id as client, sum(amount_cents)::text as revenue, sum(partner_cents)::text as share
       from partner_transactions group by partner_id, client_organization_id`,
    );
    const actual = new Map(ledger.map((r) => [`${r.partner_id}:${r.client}`, { revenue: Number(r.revenue), share: Number(r.share) }]));
    expect(Object.fromEntries(actual)).toEqual(Object.fromEntries(expected));

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
