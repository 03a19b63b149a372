import { describe, expect, it } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { DEMO_ACCOUNTS, seedDemoData } from "~/.server/demo/seed";
import { loader as usersLoader } from "~/routes/admin/users";
import { loader as whatsappLoader } from "~/routes/admin/whatsapp";
import { loader as overviewLoader } from "~/routes/admin/overview";
import { loader as systemLoader } from "~/routes/admin/system";
import { nairobiDate } from "~/lib/dates";
import { getRequest, run } from "../support/http";
import { signedInCookie } from "../support/accounts";

// Issue 40: the demo's console figures. Every organisation's message limit is its plan's (nine
// Growth and Enterprise organisations showed 1,000), and "Messages this month" is one figure on
// every tab (Mama Mboga Fresh showed 0 on Users and 15,000 on WhatsApp).

describe("the demo console's figures", () => {
  it("gives every organisation its plan's limit and the same messages this month on Users and WhatsApp", async () => {
    expect(await seedDemoData()).toBe(true);
    const wrong = await rawQuery<{ name: string; plan_type: string; message_limit: number }>(
      `select o.name, o.plan_type, o.message_limit from organizations o
       join billing_plans p on p.code = lower(o.plan_type) and p.billing_type = o.billing_type
       where o.message_limit <> coalesce(o.message_limit_override, p.message_limit)`,
    );
    expect(wrong).toEqual([]);
    const [counts] = await rawQuery<{ growth: number; enterprise: number }>(
      `select count(*) filter (where plan_type = 'Growth' and message_limit = 10000)::int as growth,
              count(*) filter (where plan_type = 'Enterprise' and message_limit = 100000)::int as enterprise
       from organizations`,
    );
    expect(counts!.growth).toBeGreaterThan(0);
    expect(counts!.enterprise).toBeGreaterThan(0);

    const admin = DEMO_ACCOUNTS.find((a) => a.usertype === "admin")!;
    const cookie = await signedInCookie(admin.email, admin.password);
    const users = await run(usersLoader, getRequest("/admin/users?q=Mama%20Mboga%20Fresh%20Ltd", { cookie }));
    const user = users.data.rows.find((r: { businessName: string }) => r.businessName === "Mama Mboga Fresh Ltd");
    const whatsapp = await run(whatsappLoader, getRequest("/admin/whatsapp?q=Mama%20Mboga%20Fresh", { cookie }));
    const accounts = whatsapp.data.accounts.filter((a: { business: string }) => a.business === "Mama Mboga Fresh Ltd");
    const onWhatsapp = accounts.reduce((n: number, a: { messagesThisMonth: number }) => n + a.messagesThisMonth, 0);
    expect(user.messagesUsed).toBeGreaterThan(0);
    expect(onWhatsapp).toBe(user.messagesUsed);
  });

  // Issue 72: the demo's Overview said 326,382 messages this month, its chart's days 119,464 and the
  // WhatsApp tab's accounts 212,922. One figure: the card, the chart's bars since the 1st, and the
  // WhatsApp tab's accounts together (every counted message was sent from an account's number).
  it("shows one messages this month on the Overview's card, its chart and the WhatsApp tab's accounts together", async () => {
    expect(await seedDemoData()).toBe(true);
    const admin = DEMO_ACCOUNTS.find((a) => a.usertype === "admin")!;
    const cookie = await signedInCookie(admin.email, admin.password);
    const overview = await run(overviewLoader, getRequest("/admin", { cookie }));
    const first = `${nairobiDate(new Date()).slice(0, 8)}01`;
    const chart = overview.data.volume
      .filter((v: { day: string }) => v.day >= first)
      .reduce((n: number, v: { sent: number }) => n + v.sent, 0);
    let onWhatsapp = 0;
    let accounts = 0;
    for (let after: string | null = ""; after !== null;) {
      const page: { data: { accounts: { messagesThisMonth: number }[]; next: string | null } } = await run(
        whatsappLoader,
        getRequest(`/admin/whatsapp${after ? `?after=${after}` : ""}`, { cookie }),
      );
      for (const a of page.data.accounts as { messagesThisMonth: number }[]) onWhatsapp += a.messagesThisMonth;
      accounts += page.data.accounts.length;
      after = page.data.next;
    }
    expect(overview.data.kpis.messagesThisMonth).toBeGreaterThan(10_000);
    expect(accounts).toBeGreaterThan(5);
    expect({ chart, whatsapp: onWhatsapp }).toEqual({
      chart: overview.data.kpis.messagesThisMonth,
      whatsapp: overview.data.kpis.messagesThisMonth,
    });
  });

  it("draws the System tab's week from the demo's samples: every hour's sums the samples' own", async () => {
    expect(await seedDemoData()).toBe(true);
    const differing = await rawQuery<{ n: number }>(
      `select count(*)::int as n from (
         (select name, instance_id, date_trunc('hour', at, 'UTC') as hour, sum(value) as total, max(value) as peak, count(*)::int as samples
          from metric_samples group by 1, 2, 3
          except select name, instance_id, hour, total, peak, samples from metric_hours)
         union all
         (select name, instance_id, hour, total, peak, samples from metric_hours
          except select name, instance_id, date_trunc('hour', at, 'UTC'), sum(value), max(value), count(*)::int from metric_samples group by 1, 2, 3)) d`,
    );
    expect(differing[0]!.n).toBe(0);
    const admin = DEMO_ACCOUNTS.find((a) => a.usertype === "admin")!;
    const cookie = await signedInCookie(admin.email, admin.password);
    const week = await run(systemLoader, getRequest("/admin/system?range=7d", { cookie }));
    const [raw] = await rawQuery<{ n: number }>(
      `select coalesce(sum(value), 0)::float8 as n from metric_samples
       where name = 'http_requests' and instance_id <> '' and at >= to_timestamp((floor(extract(epoch from now()) / 14400) - 41) * 14400)`,
    );
    const drawn = week.data.series.requests.reduce((n: number, p: { value: number }) => n + p.value, 0);
    expect(raw!.n).toBeGreaterThan(0);
    expect(drawn).toBeCloseTo(raw!.n, 0);
  });
});
