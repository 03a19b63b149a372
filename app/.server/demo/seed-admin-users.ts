import { sql } from "drizzle-orm";
import { randomBytes } from "node:crypto";
import { db } from "../infrastructure/db/client";
import { queryRows } from "../infrastructure/db/query";
import { hashPassword } from "../domains/auth/password";
import { newBusinessId } from "../domains/auth/signup";
import { foldAnalytics } from "../domains/analytics/fold";
import { BillingHistory, seedPayment } from "./seed-billing";
import { connectTenantAccounts } from "./seed-admin-whatsapp";

/**
 * More tenants for the admin console's demo (Overview and Users): Kenyan businesses on every plan
 * and billing type, joined over the last year, with payments, this month's usage, message days and
 * activity, one pending and one suspended. None can sign in (a random password nobody knows).
 * Each pays through the billing domain (a step of the demo's billing history: the wallet credited,
 * its receipt or tax invoice issued) and sends from its own WhatsApp account's number, so every
 * message counted this month is on the WhatsApp tab and every payment has its document.
 */
const TENANTS = [
  { name: "Mama Mboga Fresh Produce", owner: ["Wambui", "Njoki"], plan: "Starter", billing: "prepaid", months: 11, paid: 3, used: 640 },
  { name: "Rift Valley Agro Supplies", owner: ["Kipchoge", "Ruto"], plan: "Growth", billing: "postpaid", months: 10, paid: 9, used: 7400 },
  { name: "Pwani Logistics Ltd", owner: ["Fatuma", "Ali"], plan: "Enterprise", billing: "postpaid", months: 9, paid: 15, used: 61000 },
  { name: "Jua Kali Hardware", owner: ["Otieno", "Ouma"], plan: "Starter", billing: "postpaid", months: 8, paid: 2, used: 1000 },
  { name: "Nairobi Dental Clinic", owner: ["Njeri", "Mwangi"], plan: "Growth", billing: "prepaid", months: 7, paid: 6, used: 3900 },
  { name: "Savannah Safaris", owner: ["Baraka", "Mutua"], plan: "Growth", billing: "postpaid", months: 5, paid: 9, used: 11200 },
  { name: "Kisumu Fish Traders", owner: ["Akinyi", "Odhiambo"], plan: "Starter", billing: "prepaid", months: 4, paid: 1, used: 180 },
  {
    name: "Eldoret Dairy Co-operative",
    owner: ["Chebet", "Kiprop"],
    plan: "Enterprise",
    billing: "prepaid",
    months: 3,
    paid: 20,
    used: 24500,
  },
  { name: "Mombasa Spice House", owner: ["Zawadi", "Hassan"], plan: "Starter", billing: "prepaid", months: 2, paid: 1, used: 90 },
  { name: "Thika Road Motors", owner: ["Kevin", "Maina"], plan: "Growth", billing: "postpaid", months: 1, paid: 9, used: 2600 },
  {
    name: "Nakuru Boda Riders Sacco",
    owner: ["Peter", "Njoroge"],
    plan: "Starter",
    billing: "prepaid",
    months: 0,
    paid: 0,
    used: 0,
    status: "pending",
  },
  {
    name: "Quick Loans Express",
    owner: ["James", "Omondi"],
    plan: "Starter",
    billing: "prepaid",
    months: 6,
    paid: 1,
    used: 950,
    status: "suspended",
    reason: "Marketing messages reported as spam by many recipients; waiting for the owner's explanation.",
  },
] as const;

const DAY = 86_400_000;

/** The tenants now, their payments as steps of `history` (run at once when none is given). */
export async function seedAdminUsers(options: { history?: BillingHistory } = {}) {
  const history = options.history ?? new BillingHistory();
  const passwordHash = await hashPassword(randomBytes(24).toString("base64url"));
  const now = Date.now();
  const made = new Map<string, string>();
  for (const [i, t] of TENANTS.entries()) {
    const joined = new Date(now - t.months * 30 * DAY - (i + 1) * 3_600_000);
    const status = "status" in t ? t.status : "active";
    const limit = t.plan === "Enterprise" ? 100000 : t.plan === "Growth" ? 10000 : 1000;
    const rows = await queryRows<{ id: string }>(
      db(),
      sql`
      insert into organizations (name, business_id, plan_type, billing_type, message_limit, status, created_at,
                                 suspended_at, suspension_reason)
      values (${t.name}, ${newBusinessId()}, ${t.plan}, ${t.billing}, ${limit}, ${status}, ${joined.toISOString()}::timestamptz,
              ${status === "suspended" ? new Date(now - 2 * DAY).toISOString() : null}::timestamptz,
              ${"reason" in t ? t.reason : null})
      returning id`,
    );
    const id = rows[0]!.id;
    made.set(t.name, id);
    const email = `${t.owner[0].toLowerCase()}.${t.owner[1].toLowerCase()}@${t.name
      .toLowerCase()
      .replace(/[^a-z]+/g, "-")
      .replace(/-$/, "")}.demo`;
    await db().execute(sql`
      insert into users (organization_id, email, first_name, last_name, phone_number, password_hash, is_verified, last_login_at, created_at)
      values (${id}, ${email}, ${t.owner[0]}, ${t.owner[1]}, ${`+2547${String(10_000_000 + i * 7_654_321).slice(0, 8)}`}, ${passwordHash},
              ${status !== "pending"}, ${status === "active" ? new Date(now - (i % 5) * DAY - 3_600_000).toISOString() : null}::timestamptz,
              ${joined.toISOString()}::timestamptz)`);
    await db().execute(sql`
      insert into activity_logs (organization_id, type, status, action, details, created_at) values
        (${id}, 'security', 'success', 'Account created', ${`Sign-up for ${email}`}, ${joined.toISOString()}::timestamptz)`);
  }
  // Each sends from its own WhatsApp account (known to the Meta sandbox: Test Connection answers).
  const accounts = await connectTenantAccounts(made, now);
  for (const [i, t] of TENANTS.entries()) {
    const id = made.get(t.name)!;
    const status = "status" in t ? t.status : "active";
    // A payment a month since joining (KES as t.paid thousands): M-Pesa, every third by card.
    for (let m = Math.min(t.months, 12) - 1; m >= 0 && t.paid; m--) {
      const at = new Date(now - m * 30 * DAY - 5 * DAY - (i + 1) * 600_000);
      const method = m % 3 === 0 ? "card" : "mpesa";
      const receipt = `${method === "card" ? "PSK_" : "T"}${t.name.replace(/[^A-Z]/g, "").slice(0, 3)}${String(i).padStart(2, "0")}${String(m).padStart(2, "0")}SEED`;
      history.step(at, () => seedPayment(id, method, t.paid * 100_000, { receipt }));
    }
    const number = accounts.get(t.name);
    if (t.used && number) {
      // This month's messages counted against the plan, spread over the month's days so far, from its number.
      await db().execute(sql`
        with days as (
          select d::date as day, row_number() over (order by d) as n, count(*) over () as total
          from generate_series(date_trunc('month', now() at time zone 'Africa/Nairobi'), now() at time zone 'Africa/Nairobi', interval '1 day') d)
        insert into billing_usage_daily (organization_id, day, phone_number_id, category, messages, amount_cents)
        select ${id}, day, ${number.phoneNumberId}, 'utility',
               ${t.used}::int / total::int + case when n <= ${t.used}::int % total::int then 1 else 0 end, 0
        from days`);
      await db().execute(sql`
        insert into message_stats_pending (organization_id, hour, phone_number_id, category, sent, received)
        select ${id}, date_trunc('hour', now()) - g * interval '1 day', ${number.phoneNumberId}, 'utility',
               ${Math.max(1, Math.round(t.used / 20))}, ${Math.round(t.used / 60)}
        from generate_series(${status === "suspended" ? 3 : 0}, 20) g`);
    }
  }
  await foldAnalytics();
  if (!options.history) await history.run();
}
