import { describe, expect, it } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { DEMO_ACCOUNTS, seedDemoData } from "~/.server/demo/seed";
import { loader as usersLoader } from "~/routes/admin/users";
import { loader as whatsappLoader } from "~/routes/admin/whatsapp";
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
});
