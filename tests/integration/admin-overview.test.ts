import { describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { db } from "~/.server/infrastructure/db/client";
import { loader as overviewLoader } from "~/routes/admin/overview";
import { loader as exportLoader } from "~/routes/admin/overview-export";
import { nairobiDate, nairobiMidnight } from "~/lib/dates";
import { foldAnalytics } from "~/.server/domains/analytics/fold";
import { getRequest, run } from "../support/http";
import { createVerifiedUser, signedInCookie } from "../support/accounts";

// Issue 19, the Overview tab: its KPIs, revenue metrics (decision 038), charts, recent activity and
// open alerts against rows this test writes, each figure worked out by hand below.

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** The current and the last complete Africa/Nairobi month's first instants. */
function months(now = new Date()) {
  const local = new Date(now.getTime() + 3 * HOUR);
  const y = local.getUTCFullYear();
  const m = local.getUTCMonth();
  return { monthStart: new Date(Date.UTC(y, m, 1) - 3 * HOUR), prevStart: new Date(Date.UTC(y, m - 1, 1) - 3 * HOUR) };
}

async function admin() {
  const account = await createVerifiedUser({ usertype: "admin", businessName: "Jumbe Platform" });
  return { ...account, cookie: await signedInCookie(account.email, account.password) };
}

async function tenant(
  name: string,
  o: { plan: string; billing: "prepaid" | "postpaid"; status: "active" | "pending" | "suspended"; createdAt: Date; suspendedAt?: Date },
) {
  const account = await createVerifiedUser({ businessName: name, status: o.status });
  await db().execute(sql`
    update organizations set plan_type = ${o.plan}, billing_type = ${o.billing}, created_at = ${o.createdAt.toISOString()}::timestamptz,
           suspended_at = ${o.suspendedAt?.toISOString() ?? null}::timestamptz
    where id = ${account.organization.id}`);
  return account.organization.id;
}

async function payment(organizationId: string, cents: number, status: "completed" | "pending" | "failed", completedAt: Date | null) {
  await db().execute(sql`
    insert into payments (organization_id, method, status, amount_cents, created_at, completed_at)
    values (${organizationId}, 'mpesa', ${status}, ${cents}, ${(completedAt ?? new Date()).toISOString()}::timestamptz,
            ${completedAt?.toISOString() ?? null}::timestamptz)`);
}

/** Messages of a Nairobi day as the messages' trigger records them; foldAnalytics() adds them into the rollups. */
async function dayStats(organizationId: string, day: string, sent: number, received = 0, phoneNumberId = "6101") {
  const noon = new Date(nairobiMidnight(day).getTime() + 12 * HOUR);
  await db().execute(sql`
    insert into message_stats_pending (organization_id, hour, phone_number_id, category, sent, received)
    values (${organizationId}, ${noon.toISOString()}::timestamptz, ${phoneNumberId}, 'utility', ${sent}, ${received})`);
  // What the plan's charges count: "Messages this month" reads it.
  await db().execute(sql`
    insert into billing_usage_daily (organization_id, day, phone_number_id, category, messages, amount_cents)
    values (${organizationId}, ${day}::date, ${phoneNumberId}, 'utility', ${sent}, 0)
    on conflict (organization_id, day, phone_number_id, category) do update set messages = billing_usage_daily.messages + excluded.messages`);
}

describe("the admin Overview", () => {
  it("answers 404 to a visitor and to a member of a tenant", async () => {
    expect((await run(overviewLoader, getRequest("/admin"))).status).toBe(404);
    const member = await createVerifiedUser({ businessName: "Duka la Mama" });
    const cookie = await signedInCookie(member.email, member.password);
    expect((await run(overviewLoader, getRequest("/admin", { cookie }))).status).toBe(404);
    expect((await run(exportLoader, getRequest("/admin/export.csv", { cookie }))).status).toBe(404);
  });

  it("shows the KPIs, MRR, ARPU and churn computed from the ledger and the price list", async () => {
    const { monthStart, prevStart } = months();
    const now = new Date();
    const platform = await admin();
    // A: Growth postpaid (KES 9,000 a month), joined two months back, last signed in 40 days ago.
    const a = await tenant("Amani Traders", {
      plan: "Growth",
      billing: "postpaid",
      status: "active",
      createdAt: new Date(prevStart.getTime() - 10 * DAY),
    });
    // B: Starter postpaid (KES 2,000 a month), a member signed in two days ago.
    const b = await tenant("Baraka Foods", {
      plan: "Starter",
      billing: "postpaid",
      status: "active",
      createdAt: new Date(prevStart.getTime() - 5 * DAY),
    });
    // C: Growth prepaid (no monthly fee), joined during last month, messaged today.
    const c = await tenant("Chai Sacco", {
      plan: "Growth",
      billing: "prepaid",
      status: "active",
      createdAt: new Date(prevStart.getTime() + 2 * DAY),
    });
    // D: pending, joined now. E: Starter postpaid, suspended during last month (churned).
    await tenant("Dala Farm", { plan: "Starter", billing: "prepaid", status: "pending", createdAt: now });
    const e = await tenant("Eldoret Hardware", {
      plan: "Starter",
      billing: "postpaid",
      status: "suspended",
      createdAt: new Date(prevStart.getTime() - 20 * DAY),
      suspendedAt: new Date(prevStart.getTime() + 3 * DAY),
    });
    await db().execute(sql`update users set last_login_at = now() - interval '40 days' where organization_id = ${a}`);
    await db().execute(sql`update users set last_login_at = now() - interval '2 days' where organization_id = ${b}`);
    // Payments: last month A KES 5,000 and C KES 1,000; this month B KES 2,500; pending and failed ones never count.
    await payment(a, 500_000, "completed", new Date(prevStart.getTime() + DAY));
    await payment(c, 100_000, "completed", new Date(prevStart.getTime() + 4 * DAY));
    await payment(b, 250_000, "completed", new Date(Math.max(monthStart.getTime() + 60_000, now.getTime() - 1000)));
    await payment(b, 999_900, "pending", null);
    await payment(e, 777_700, "failed", null);
    // Messages: C today 5 sent and 2 received, and 7 sent on the 1st from another number; A 100 sent 40 days ago.
    const today = nairobiDate(now);
    const first = nairobiDate(monthStart);
    await dayStats(c, today, 5, 2);
    await dayStats(c, first, 7, 0, "6102");
    await dayStats(a, nairobiDate(new Date(now.getTime() - 40 * DAY)), 100);
    // Free replies C sent today: in the analytics, not counted against its plan, so on neither the card nor the chart.
    await db().execute(sql`
      insert into message_stats_pending (organization_id, hour, phone_number_id, category, sent, received)
      values (${c}, date_trunc('hour', now()), '6101', 'service', 50, 0)`);
    await foldAnalytics();
    // Activity across tenants, and two alerts of which one is resolved.
    await db().execute(sql`
      insert into activity_logs (organization_id, type, status, action, details, created_at) values
        (${a}, 'billing', 'success', 'Wallet topped up', 'KES 5,000 by M-Pesa', now() - interval '2 hours'),
        (${b}, 'message', 'success', 'Campaign started', 'Black Friday', now() - interval '1 hour')`);
    await db().execute(sql`
      insert into system_alerts (rule, key, level, title, details, resolved_at) values
        ('queue_lag', 'messages', 'warning', 'The messages queue is behind', 'Oldest job 6 minutes', null),
        ('instance_missing', 'web-2', 'error', 'Instance web-2 stopped reporting', null, now())`);

    const page = await run(overviewLoader, getRequest("/admin", { cookie: platform.cookie }));
    expect(page.status).toBe(200);
    const { kpis, metrics, growth, volume, activity, alerts } = page.data;
    expect(kpis).toEqual({
      organizations: 5,
      byStatus: { active: 3, pending: 1, suspended: 1 },
      active30: 2,
      messagesThisMonth: 12,
      revenueThisMonthCents: 250_000,
    });
    // MRR: A 900,000 + B 200,000 (C is prepaid, E suspended). ARPU: 600,000 ÷ 3 (A, B, C active and joined by the month's end).
    // Churn: E of A, B, E (customers at the month's start) = 1 ÷ 3.
    expect(metrics).toMatchObject({
      mrrCents: 1_100_000,
      monthRevenueCents: 600_000,
      payingBase: 3,
      arpuCents: 200_000,
      startBase: 3,
      churned: 1,
      churnPercent: 33.3,
    });
    expect(growth).toHaveLength(12);
    expect(growth.map((g: { value: number }) => g.value).slice(-3)).toEqual([3, 1, 1]);
    // Issue 72: the chart is the card's figure day by day (the card said 326,382 while its chart's days added up to 119,464).
    expect(volume).toHaveLength(31);
    expect(volume.at(-1)).toMatchObject({ day: today, sent: first === today ? 12 : 5 });
    const sinceFirst = volume.filter((v: { day: string }) => v.day >= first);
    expect(sinceFirst[0].day).toBe(first);
    expect(sinceFirst.reduce((n: number, v: { sent: number }) => n + v.sent, 0)).toBe(kpis.messagesThisMonth);
    expect(activity.map((r: { organizationName: string; action: string }) => `${r.organizationName}: ${r.action}`)).toEqual([
      "Baraka Foods: Campaign started",
      "Amani Traders: Wallet topped up",
    ]);
    expect(activity[0].organizationId).toBe(b);
    expect(alerts.map((x: { title: string }) => x.title)).toEqual(["The messages queue is behind"]);
  });

  it("exports the recent activity across tenants as CSV, newest first", async () => {
    const platform = await admin();
    const a = await tenant("Amani Traders", { plan: "Starter", billing: "prepaid", status: "active", createdAt: new Date() });
    await db().execute(sql`
      insert into activity_logs (organization_id, type, status, action, details, created_at) values
        (${a}, 'security', 'success', 'Signed in', '=HYPERLINK("x")', now() - interval '2 hours'),
        (${a}, 'message', 'success', 'Template submitted', 'order_update', now() - interval '1 hour'),
        (${a}, 'message', 'success', 'Too old', '', now() - interval '40 days')`);
    const csv = await run(exportLoader, getRequest("/admin/export.csv", { cookie: platform.cookie }));
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toContain("text/csv");
    const lines = String(csv.data)
      .replace(/^\uFEFF/, "")
      .trim()
      .split(/\r?\n/);
    expect(lines[0]).toBe('"When","Organisation ID","Organisation","Type","Status","Action","Details"');
    expect(lines).toHaveLength(3);
    expect(lines[1]).toContain("Template submitted");
    expect(lines[2]).toContain("Signed in");
    expect(lines[2]).toContain(`"'=HYPERLINK(""x"")"`);
  });
});
