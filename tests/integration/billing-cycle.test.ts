import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { db, rawQuery } from "~/.server/infrastructure/db/client";
import { issueInvoice } from "~/.server/domains/billing/invoices";
import { lineFromGross } from "~/.server/domains/billing/vat";
import { runBillingCycle } from "~/.server/domains/billing/cycle";
import { changePlan, disputeInvoice, saveWalletAlerts } from "~/.server/domains/billing/settings";
import { changeWallet } from "~/.server/domains/billing/ledger";
import { checkWalletAlerts } from "~/.server/domains/billing/alerts";
import { walletSummary } from "~/.server/domains/billing/summary";
import { drainJobs } from "~/.server/infrastructure/jobs/worker";
import { noticeIn } from "~/.server/domains/notifications/words";
import { createVerifiedUser } from "../support/accounts";
import { testDatabaseUrl } from "../support/database";
import { registerJobHandlers } from "~/.server/composition/job-handlers";

registerJobHandlers();

// The billing cycle (issue 17) with a controlled clock: invoice numbers without gaps under
// concurrency, the month's postpaid invoice with its VAT, issued once across two processes, plan
// changes from the next period, overdue reminders, disputes and the wallet's alerts.

async function business(name: string, createdAt = "2026-09-15T08:00:00Z") {
  const user = await createVerifiedUser({ businessName: name });
  await rawQuery(
    `update organizations set created_at = $2, kra_pin = 'P051874263K', postal_address = 'P.O. Box 2145-20100, Nakuru' where id = $1`,
    [user.organization.id, createdAt],
  );
  return { organizationId: user.organization.id, userId: user.user.id };
}

/** Messages counted in the usage rollup on a Nairobi day. */
const used = (organizationId: string, day: string, messages: number) =>
  rawQuery(
    `insert into billing_usage_daily (organization_id, day, phone_number_id, category, messages, amount_cents) values ($1, $2, '1099', 'marketing', $3, 0)`,
    [organizationId, day, messages],
  );

const invoicesOf = (organizationId: string) =>
  rawQuery<{
    number: string;
    status: string;
    net_cents: string;
    vat_cents: string;
    total_cents: string;
    period_start: string;
    lines: { description: string }[];
  }>(
    `select number, status, net_cents::text, vat_cents::text, total_cents::text, period_start::text, lines from invoices
     where organization_id = $1 and kind = 'subscription' order by number`,
    [organizationId],
  );

describe("invoice numbers", () => {
  it("are given without gaps per year, even when transactions fail and run at once", async () => {
    const b = await business("Nyota Savings Sacco");
    const line = lineFromGross({
      description: "Wallet top-up",
      itemCode: "JMB-TOPUP",
      quantity: 1,
      unit: "top-up",
      unitPriceCents: 100_000,
    });
    const attempts = Array.from({ length: 40 }, (_, i) =>
      db()
        .transaction(async (tx) => {
          await issueInvoice(tx, {
            organizationId: b.organizationId,
            series: "INV",
            kind: "topup",
            status: "paid",
            description: "Top-up",
            lines: [line],
            pricesIncludeVat: true,
            issuedAt: new Date("2026-11-20T10:00:00Z"),
          });
          // Every fourth fails after taking its number: the number goes back.
          if (i % 4 === 3) throw new Error("rolled back");
        })
        .then(
          () => true,
          () => false,
        ),
    );
    expect((await Promise.all(attempts)).filter(Boolean)).toHaveLength(30);
    const numbers = (await rawQuery<{ number: string }>(`select number from invoices order by number`)).map((r) => r.number);
    expect(numbers).toEqual(Array.from({ length: 30 }, (_, i) => `INV-2026-${String(i + 1).padStart(6, "0")}`));
    // A new year starts again at 1 (Nairobi's new year begins at 21:00 UTC on 31 December).
    await db().transaction((tx) =>
      issueInvoice(tx, {
        organizationId: b.organizationId,
        series: "INV",
        kind: "topup",
        status: "paid",
        description: "Top-up",
        lines: [line],
        pricesIncludeVat: true,
        issuedAt: new Date("2026-12-31T21:30:00Z"),
      }),
    );
    expect((await rawQuery<{ number: string }>(`select number from invoices order by issued_at desc limit 1`))[0]!.number).toBe(
      "INV-2027-000001",
    );
  });
});

describe("the monthly cycle", () => {
  it("invoices a postpaid month on the 1st: the plan's fee and the overage, VAT 16% on top, due in 14 days", async () => {
    // Joined at the start of October in Nairobi (21:00 UTC the day before): a whole month.
    const b = await business("Nyota Savings Sacco", "2026-09-30T21:00:00Z");
    await rawQuery(`update organizations set plan_type = 'Enterprise', billing_type = 'postpaid' where id = $1`, [b.organizationId]);
    await used(b.organizationId, "2026-10-01", 60_000);
    await used(b.organizationId, "2026-10-31", 52_480);
    await used(b.organizationId, "2026-11-01", 999); // November's: not on October's invoice.
    // Before midnight in Nairobi on 31 October it is still October: nothing to issue yet.
    expect((await runBillingCycle(new Date("2026-10-31T20:59:00Z"))).issued).toBe(0);
    expect((await runBillingCycle(new Date("2026-10-31T21:05:00Z"))).issued).toBe(1);
    const [invoice] = await invoicesOf(b.organizationId);
    // KES 15,000 + 12,480 messages beyond the 100,000 included at KES 0.20 = 17,496.00; VAT 2,799.36; total 20,295.36.
    expect(invoice).toMatchObject({
      status: "pending",
      net_cents: "1749600",
      vat_cents: "279936",
      total_cents: "2029536",
      period_start: "2026-10-01",
    });
    expect(invoice!.lines.map((l) => l.description)).toEqual([
      "Enterprise plan (postpaid), October 2026",
      "Messages beyond the 100,000 included (112,480 sent)",
    ]);
    const [due] = await rawQuery<{ due_at: Date }>(`select due_at from invoices where organization_id = $1`, [b.organizationId]);
    expect(new Date(due!.due_at).toISOString()).toBe("2026-11-14T21:05:00.000Z");
    // Running again changes nothing.
    expect((await runBillingCycle(new Date("2026-11-01T09:00:00Z"))).issued).toBe(0);
    expect(await invoicesOf(b.organizationId)).toHaveLength(1);
  });

  it("prorates a first month, leaves prepaid organisations alone, and pays from money on account", async () => {
    const newcomer = await business("Kilimo Fresh Ltd", "2026-10-20T05:00:00Z");
    await rawQuery(`update organizations set plan_type = 'Growth', billing_type = 'postpaid' where id = $1`, [newcomer.organizationId]);
    await db().transaction((tx) =>
      changeWallet(tx, { organizationId: newcomer.organizationId, kind: "adjustment", amountCents: 500_000, description: "On account" }),
    );
    const prepaid = await business("Duka la Mama");
    await rawQuery(`update organizations set billing_type = 'prepaid' where id = $1`, [prepaid.organizationId]);
    await runBillingCycle(new Date("2026-11-01T06:00:00Z"));
    const [invoice] = await invoicesOf(newcomer.organizationId);
    // Growth KES 9,000 for 12 of 31 days (20–31 October) = 3,483.87; VAT 557.42.
    expect(invoice).toMatchObject({ net_cents: "348387", vat_cents: "55742", total_cents: "404129", status: "paid" });
    expect(invoice!.lines[0]!.description).toBe("Growth plan (postpaid), 20 October 2026 to 31 October 2026 (12 of 31 days)");
    expect((await walletSummary(newcomer.organizationId)).balanceCents).toBe(500_000 - 404_129);
    expect(await invoicesOf(prepaid.organizationId)).toEqual([]);
  });

  it.skipIf(!process.env.TEST_DATABASE_URL)(
    "issues each month's invoice once when two processes run the cycle at the same moment",
    async () => {
      const orgs = await Promise.all(["Acacia Bank", "Baraka Sacco", "Chui Logistics", "Dafina Foods"].map((name) => business(name)));
      for (const org of orgs) await used(org.organizationId, "2026-10-15", 1_500);
      const run = () =>
        new Promise<string>((resolve, reject) => {
          const child = spawn(process.execPath, ["--import", "tsx", "tests/support/billing-cycle-process.ts"], {
            env: { ...process.env, DATABASE_URL: testDatabaseUrl()!, BILLING_NOW: "2026-11-01T00:00:00Z", LOG_LEVEL: "silent" },
            stdio: ["ignore", "pipe", "pipe"],
          });
          let out = "";
          let err = "";
          child.stdout.on("data", (c: Buffer) => (out += c.toString()));
          child.stderr.on("data", (c: Buffer) => (err += c.toString()));
          child.on("exit", (code) => (code === 0 ? resolve(out) : reject(new Error(`cycle process failed: ${err}`))));
        });
      const outputs = await Promise.all([run(), run()]);
      // The CYCLE line alone: the process's log lines may reach stdout after it (pino writes asynchronously).
      const issued = outputs.map(
        (o) =>
          JSON.parse(
            o
              .split("\n")
              .find((line) => line.startsWith("CYCLE "))!
              .slice(6),
          ).issued as number,
      );
      expect(issued.reduce((a, b) => a + b, 0)).toBe(4);
      for (const org of orgs) expect(await invoicesOf(org.organizationId)).toHaveLength(1);
      const numbers = (await rawQuery<{ number: string }>(`select number from invoices order by number`)).map((r) => r.number);
      expect(numbers).toEqual(["INV-2026-000001", "INV-2026-000002", "INV-2026-000003", "INV-2026-000004"]);
    },
  );

  it("marks an unpaid invoice overdue after 14 days and reminds each week, and a dispute stops the reminders", async () => {
    const b = await business("Nyota Savings Sacco", "2026-08-01T00:00:00Z");
    await runBillingCycle(new Date("2026-10-01T06:00:00Z"));
    const [invoice] = await rawQuery<{ id: string }>(`select id from invoices where organization_id = $1`, [b.organizationId]);
    expect(await runBillingCycle(new Date("2026-10-14T06:00:00Z"))).toMatchObject({ overdue: 0, reminded: 0 });
    expect(await runBillingCycle(new Date("2026-10-16T06:00:00Z"))).toMatchObject({ overdue: 1, reminded: 1 });
    expect(await runBillingCycle(new Date("2026-10-18T06:00:00Z"))).toMatchObject({ reminded: 0 });
    expect(await runBillingCycle(new Date("2026-10-23T07:00:00Z"))).toMatchObject({ reminded: 1 });
    const bell = await rawQuery<{ title: string }>(`select title from notifications where event = 'invoice_overdue' order by created_at`);
    expect(bell).toHaveLength(2);
    expect(bell[0]!.title).toMatch(/^Invoice INV-2026-\d{6} is overdue: KES 2,320.00$/);
    // Issue 40: the reminder words the date as it is (was due), written out.
    const [body] = await rawQuery<{ body: string }>(
      `select body from notifications where event = 'invoice_overdue' order by created_at limit 1`,
    );
    expect(body!.body).toMatch(/^It was due on 15 October 2026\. Pay it on the Billing page/);
    // Issue 43: a reader in Swahili or French sees it in their language, the amount and the day theirs.
    const [stored] = await rawQuery<{ title: string; body: string; words: unknown }>(
      `select title, body, words from notifications where event = 'invoice_overdue' order by created_at limit 1`,
    );
    expect(noticeIn("sw", stored!).title).toMatch(/^Muda wa kulipa ankara INV-2026-\d{6} umepita: KES\u00a02,320.00$/);
    expect(noticeIn("sw", stored!).body).toMatch(/^Ilipaswa kulipwa tarehe 15 Oktoba 2026\. Ilipe kwenye ukurasa wa Malipo na ankara/);
    expect(noticeIn("fr", stored!).body).toMatch(/^Elle était à régler le 15 octobre 2026\. /);
    await drainJobs();
    expect((await rawQuery(`select count(*)::int as n from mail_outbox where subject like '%overdue%'`))[0]).toEqual({ n: 2 });

    await disputeInvoice(b, invoice!.id, "We were on Starter for only part of September.");
    expect(await runBillingCycle(new Date("2026-11-02T06:00:00Z"))).toMatchObject({ reminded: 0 });
    expect(await rawQuery(`select status from invoices where id = $1`, [invoice!.id])).toEqual([{ status: "disputed" }]);
    await expect(disputeInvoice(b, invoice!.id, "Again, please look at it.")).rejects.toMatchObject({ status: 409 });
    await expect(disputeInvoice(b, invoice!.id, "short")).rejects.toMatchObject({ status: 422, field: "reason" });
    const other = await business("Mombasa Traders Ltd");
    await expect(disputeInvoice(other, invoice!.id, "Not my invoice but let me try.")).rejects.toMatchObject({ status: 404 });
  });

  it("changes the plan from the next period, and the month is invoiced on the old plan", async () => {
    const b = await business("Nyota Savings Sacco");
    const asked = await changePlan(b, { plan: "growth", billingType: "postpaid" }, new Date("2026-11-10T09:00:00Z"));
    expect(asked).toEqual({ plan: "Growth", billingType: "postpaid", from: "2026-12-01" });
    await expect(changePlan(b, { plan: "platinum", billingType: "postpaid" })).rejects.toMatchObject({ field: "plan" });
    expect(await runBillingCycle(new Date("2026-11-20T09:00:00Z"))).toMatchObject({ issued: 1, planChanges: 0 });
    expect(await runBillingCycle(new Date("2026-11-30T21:01:00Z"))).toMatchObject({ issued: 1, planChanges: 1 });
    const [, invoice] = await invoicesOf(b.organizationId);
    expect(invoice!.lines[0]!.description).toBe("Starter plan (postpaid), November 2026");
    expect(
      await rawQuery(`select plan_type, billing_type, message_limit, next_plan_type from organizations where id = $1`, [b.organizationId]),
    ).toEqual([{ plan_type: "Growth", billing_type: "postpaid", message_limit: 10_000, next_plan_type: null }]);
  });
});

describe("the wallet's alerts", () => {
  it("notifies once when the balance falls below the alert, and refuses alerts it could not keep", async () => {
    const b = await business("Nyota Savings Sacco");
    await saveWalletAlerts(b, { lowBalance: "500", autoTopupBelow: "", autoTopupAmount: "", autoTopupPhone: "" });
    await expect(
      saveWalletAlerts(b, { lowBalance: "lots", autoTopupBelow: "", autoTopupAmount: "", autoTopupPhone: "" }),
    ).rejects.toMatchObject({
      field: "lowBalance",
    });
    await expect(
      saveWalletAlerts(b, { lowBalance: "", autoTopupBelow: "200", autoTopupAmount: "1000", autoTopupPhone: "020 222 2222" }),
    ).rejects.toMatchObject({
      field: "autoTopupPhone",
    });
    const spend = (cents: number) =>
      db().transaction((tx) =>
        changeWallet(tx, { organizationId: b.organizationId, kind: "adjustment", amountCents: cents, description: "Test" }),
      );
    await spend(100_000);
    await spend(-40_000);
    await drainJobs();
    expect(await rawQuery(`select count(*)::int as n from notifications where event = 'low_balance'`)).toEqual([{ n: 0 }]);
    await spend(-21_000); // KES 390 left, below KES 500.
    await drainJobs();
    await spend(-1_000);
    await drainJobs();
    await checkWalletAlerts(b.organizationId);
    const alerts = await rawQuery<{ title: string }>(`select title from notifications where event = 'low_balance'`);
    expect(alerts.map((a) => a.title)).toEqual(["Wallet balance low: KES 390.00"]);
  });
});
