import { describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { db } from "~/.server/infrastructure/db/client";
import { loader as overviewLoader } from "~/routes/admin/overview";
import { loader as usersLoader } from "~/routes/admin/users";
import { loader as userLoader } from "~/routes/admin/user";
import { loader as whatsappLoader } from "~/routes/admin/whatsapp";
import { loader as dashboardLoader } from "~/routes/app/dashboard";
import { walletSummary } from "~/.server/domains/billing/summary";
import { getRequest, run } from "../support/http";
import { createVerifiedUser, signedInCookie } from "../support/accounts";
import { connectedNumber } from "../support/whatsapp";

// Issue 40: "Messages this month" has one definition (the messages counted against the plan this
// Nairobi month) and one SQL, so every console tab and the tenant's own pages show the same figure
// (the demo's Mama Mboga showed 0 on Users and 15,000 on WhatsApp).

async function usageToday(organizationId: string, phoneNumberId: string, messages: number) {
  await db().execute(sql`
    insert into billing_usage_daily (organization_id, day, phone_number_id, category, messages, amount_cents)
    values (${organizationId}, (now() at time zone 'Africa/Nairobi')::date, ${phoneNumberId}, 'utility', ${messages}, ${messages * 200})`);
}

describe("Messages this month", () => {
  it("is the same figure on the Overview, Users, a user's page, WhatsApp, the tenant's dashboard and billing usage", async () => {
    const admin = await createVerifiedUser({ usertype: "admin", businessName: "Jumbe Platform" });
    const adminCookie = await signedInCookie(admin.email, admin.password);
    const mama = await createVerifiedUser({ businessName: "Mama Mboga Groceries" });
    const mamaCookie = await signedInCookie(mama.email, mama.password);
    const number = await connectedNumber(mama.organization.id, { wabaId: "740001", phoneNumberId: "840001", display: "+254 700 400 100" });
    // Traffic the plan does not count (received messages, free replies) is in the analytics rollup only.
    await db().execute(sql`
      insert into message_stats_daily (organization_id, day, phone_number_id, category, sent, received)
      values (${mama.organization.id}, (now() at time zone 'Africa/Nairobi')::date, '840001', 'utility', 15000, 4000)`);
    await usageToday(mama.organization.id, "840001", 1200);
    // Last month's messages are not this month's.
    await db().execute(sql`
      insert into billing_usage_daily (organization_id, day, phone_number_id, category, messages, amount_cents)
      values (${mama.organization.id}, (date_trunc('month', now() at time zone 'Africa/Nairobi') - interval '1 day')::date, '840001',
              'marketing', 900, 0)`);

    const users = await run(usersLoader, getRequest("/admin/users", { cookie: adminCookie }));
    const row = users.data.rows.find((r: { id: string }) => r.id === mama.organization.id);
    const detail = await run(
      (args: Parameters<typeof userLoader>[0]) => userLoader({ ...args, params: { id: mama.organization.id } } as never),
      getRequest(`/admin/users/${mama.organization.id}`, { cookie: adminCookie }),
    );
    const whatsapp = await run(whatsappLoader, getRequest("/admin/whatsapp", { cookie: adminCookie }));
    const account = whatsapp.data.accounts.find((a: { id: string }) => a.id === number.account.id);
    const overview = await run(overviewLoader, getRequest("/admin", { cookie: adminCookie }));
    const dashboard = await run(dashboardLoader, getRequest("/dashboard", { cookie: mamaCookie }));
    const billing = await walletSummary(mama.organization.id);

    expect({
      users: row.messagesUsed,
      user: detail.data.messagesUsed,
      whatsapp: account.messagesThisMonth,
      overview: overview.data.kpis.messagesThisMonth,
      dashboard: dashboard.data.overview.messagesSent,
      billing: billing.usage.messages,
    }).toEqual({ users: 1200, user: 1200, whatsapp: 1200, overview: 1200, dashboard: 1200, billing: 1200 });
  });
});
