import { Refusal } from "~/.server/infrastructure/refusal";
import { describe, expect, it } from "vitest";
import { db, rawQuery } from "~/.server/infrastructure/db/client";
import { changeWallet } from "~/.server/domains/billing/ledger";
import { billingPageData, openDisputeOf, paymentPageData, spendBreakdown } from "~/.server/domains/billing/page";
import { periodAt } from "~/.server/domains/billing/periods";
import { startBankTransfer } from "~/.server/domains/billing/bank";
import { amountWords, parseTopupAmount, TOPUP_MAX_KES, TOPUP_MIN_KES } from "~/.server/domains/billing/payments";
import { disputeInvoice, DISPUTE_REASON_MAX } from "~/.server/domains/billing/settings";
import { BILLING_MESSAGES, DISPUTE_REASON_LIMIT, TOPUP_LIMITS_KES, topupAmountKes } from "~/lib/schemas/billing";
import { createVerifiedUser } from "../support/accounts";
import { connectedNumber } from "../support/whatsapp";

// Issue 17: what the /billing pages read (app/.server/domains/billing/page.ts), and the browser's checks
// saying what the server says.

async function tenant(name: string) {
  const user = await createVerifiedUser({ businessName: name });
  return { organizationId: user.organization.id, userId: user.user.id };
}

async function usage(organizationId: string, day: string, phoneNumberId: string, category: string, messages: number, amountCents: number) {
  await rawQuery(
    `insert into billing_usage_daily (organization_id, day, phone_number_id, category, messages, amount_cents) values ($1, $2, $3, $4, $5, $6)`,
    [organizationId, day, phoneNumberId, category, messages, amountCents],
  );
}

describe("the /billing page's data", () => {
  it("breaks this period's spend down by template category and by number, leaving other periods and tenants out", async () => {
    const t = await tenant("Nyota Savings Sacco");
    const other = await tenant("Duka la Mama Ltd");
    await connectedNumber(t.organizationId, { wabaId: "201", phoneNumberId: "301", display: "+254 700 100 200" });
    await connectedNumber(t.organizationId, { wabaId: "202", phoneNumberId: "302", display: "+254 711 222 333" });
    const now = new Date("2026-11-20T09:00:00Z");
    const period = periodAt(now);
    await usage(t.organizationId, "2026-11-02", "301", "marketing", 100, 20_000);
    await usage(t.organizationId, "2026-11-03", "301", "utility", 40, 8_000);
    await usage(t.organizationId, "2026-11-04", "302", "marketing", 10, 2_000);
    // October, and another organisation's November: neither counts.
    await usage(t.organizationId, "2026-10-31", "301", "marketing", 999, 199_800);
    await usage(other.organizationId, "2026-11-05", "301", "marketing", 5, 1_000);

    const spend = await spendBreakdown(t.organizationId, period);
    expect(spend.byCategory).toEqual([
      { label: "marketing", messages: 110, amountCents: 22_000 },
      { label: "utility", messages: 40, amountCents: 8_000 },
    ]);
    expect(spend.byNumber).toEqual([
      { label: "+254 700 100 200", messages: 140, amountCents: 28_000 },
      { label: "+254 711 222 333", messages: 10, amountCents: 2_000 },
    ]);
    expect(await spendBreakdown(t.organizationId, periodAt(new Date("2026-12-05T09:00:00Z")))).toEqual({ byCategory: [], byNumber: [] });

    const page = await billingPageData(t.organizationId, now);
    expect(page.summary.usage).toMatchObject({ messages: 150, spentCents: 30_000, periodStart: "2026-11-01", periodEnd: "2026-11-30" });
    expect(page.spend).toEqual(spend);
    expect(page.plans.map((p) => `${p.code}/${p.billingType}`)).toContain("growth/postpaid");
    expect(page.alerts).toEqual({ lowBalanceCents: null, autoTopupBelowCents: null, autoTopupAmountCents: null, autoTopupPhone: null });
    expect(page.invoices).toEqual([]);
  });

  it("reads a payment with its invoice and the balance, and answers null for another organisation's", async () => {
    const t = await tenant("Nyota Savings Sacco");
    const other = await tenant("Duka la Mama Ltd");
    await db().transaction((tx) =>
      changeWallet(tx, { organizationId: t.organizationId, kind: "adjustment", amountCents: 12_345, description: "Opening" }),
    );
    const { payment, invoiceId } = await startBankTransfer(t, { amount: "2,500" });
    const page = await paymentPageData(t.organizationId, payment.id);
    expect(page).toMatchObject({
      payment: { id: payment.id, method: "bank", status: "pending", amountCents: 250_000 },
      reference: expect.stringMatching(/^JMB-BT-[A-Z2-9]{6}$/),
      invoice: { id: invoiceId, status: "pending", number: expect.stringMatching(/^(INV|RCT)-\d{4}-\d{6}$/) },
      balanceCents: 12_345,
    });
    expect(await paymentPageData(other.organizationId, payment.id)).toBeNull();
    expect(await paymentPageData(t.organizationId, "not-an-id")).toBeNull();

    const listed = await billingPageData(t.organizationId);
    expect(listed.invoices.map((i) => i.id)).toEqual([invoiceId]);

    // A dispute shows with its reason; another organisation sees none.
    await disputeInvoice({ organizationId: t.organizationId, userId: t.userId }, invoiceId!, "We paid this by M-Pesa already.");
    expect(await openDisputeOf(t.organizationId, invoiceId!)).toMatchObject({ reason: "We paid this by M-Pesa already." });
    expect(await openDisputeOf(other.organizationId, invoiceId!)).toBeNull();
    expect((await billingPageData(t.organizationId)).invoices[0]).toMatchObject({
      status: "disputed",
      disputeReason: "We paid this by M-Pesa already.",
    });
  });
});

describe("the billing forms' checks in the browser", () => {
  it("use the server's bounds and words", async () => {
    expect(TOPUP_LIMITS_KES).toEqual({ min: TOPUP_MIN_KES, max: TOPUP_MAX_KES });
    expect(BILLING_MESSAGES.amount).toBe(amountWords());
    expect(DISPUTE_REASON_LIMIT).toBe(DISPUTE_REASON_MAX);
    for (const typed of ["5", "abc", "300000", "10.5", "", "1e3", "-10", "9"]) {
      expect(topupAmountKes(typed), typed).toBeNull();
      expect(() => parseTopupAmount(typed), typed).toThrow(Refusal);
    }
    for (const typed of ["10", "1,000", "250000", "2500.00"]) expect(topupAmountKes(typed), typed).toBe(parseTopupAmount(typed));
    const t = await tenant("Nyota Savings Sacco");
    const refusal = await disputeInvoice(t, "6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f", "short").catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(Refusal);
    expect((refusal as Refusal).message).toBe(BILLING_MESSAGES.reasonShort);
    const long = await disputeInvoice(t, "6f1c0d2e-8a4b-4c3d-9e5f-1a2b3c4d5e6f", "x".repeat(1001)).catch((error: unknown) => error);
    expect((long as Refusal).message).toBe(BILLING_MESSAGES.reasonLong);
  });
});
