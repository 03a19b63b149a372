import { sql } from "drizzle-orm";
import { randomBytes } from "node:crypto";
import { db } from "../infrastructure/db/client";
import { queryRows } from "../infrastructure/db/query";
import { hashPassword } from "../domains/auth/password";
import { newBusinessId } from "../domains/auth/signup";
import { foldAnalytics } from "../domains/analytics/fold";
import { englishOf, words } from "../infrastructure/words/said";

/** A top-up's details as a payment's writer words them ("KES 3,000.00 by M-Pesa."), so the log says them in its reader's language. */
const toppedUp = (thousands: number) =>
  englishOf(
    words("app_activity_detail_payment_received", { amount: { kes: thousands * 100_000 }, method: words("app_notice_method_mpesa") }),
  );

/**
 * More tenants for the admin console's demo (Overview and Users): Kenyan businesses on every plan
 * and billing type, joined over the last year, with payments, this month's usage, message days and
 * activity, one pending and one suspended. None can sign in (a random password nobody knows).
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

export async function seedAdminUsers() {
  const passwordHash = await hashPassword(randomBytes(24).toString("base64url"));
  const now = Date.now();
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
    const email = `${t.owner[0].toLowerCase()}.${t.owner[1].toLowerCase()}@${t.name
      .toLowerCase()
      .replace(/[^a-z]+/g, "-")
      .replace(/-$/, "")}.demo`;
    await db().execute(sql`
      insert into users (organization_id, email, first_name, last_name, phone_number, password_hash, is_verified, last_login_at, created_at)
      values (${id}, ${email}, ${t.owner[0]}, ${t.owner[1]}, ${`+2547${String(10_000_000 + i * 7_654_321).slice(0, 8)}`}, ${passwordHash},
              ${status !== "pending"}, ${status === "active" ? new Date(now - (i % 5) * DAY - 3_600_000).toISOString() : null}::timestamptz,
              ${joined.toISOString()}::timestamptz)`);
    // A payment a month since joining (KES as t.paid thousands), this month's usage, and the days with messages.
    // Each a top-up that reached the wallet: the ledger entry and the wallet's balance move with it.
    let balance = 0;
    for (let m = Math.min(t.months, 12) - 1; m >= 0 && t.paid; m--) {
      const at = new Date(now - m * 30 * DAY - 5 * DAY).toISOString();
      const amount = t.paid * 100_000;
      balance += amount;
      await db().execute(sql`
        with paid as (
          insert into payments (organization_id, method, status, amount_cents, created_at, completed_at)
          values (${id}, ${m % 3 === 0 ? "card" : "mpesa"}, 'completed', ${amount}, ${at}::timestamptz, ${at}::timestamptz)
          returning id)
        insert into wallet_entries (organization_id, kind, amount_cents, balance_after_cents, held_after_cents, payment_id, description, created_at)
        select ${id}, 'topup', ${amount}, ${balance}, 0, paid.id, 'Wallet top-up', ${at}::timestamptz from paid`);
    }
    await db().execute(sql`update wallets set balance_cents = ${balance} where organization_id = ${id}`);
    if (t.used) {
      await db().execute(sql`
        insert into billing_usage_daily (organization_id, day, phone_number_id, category, messages, amount_cents)
        values (${id}, (now() at time zone 'Africa/Nairobi')::date, '', 'utility', ${t.used}, 0)`);
      await db().execute(sql`
        insert into message_stats_pending (organization_id, hour, category, sent, received)
        select ${id}, date_trunc('hour', now()) - g * interval '1 day', 'utility', ${Math.max(1, Math.round(t.used / 20))}, ${Math.round(t.used / 60)}
        from generate_series(${status === "suspended" ? 3 : 0}, 20) g`);
    }
    await db().execute(sql`
      insert into activity_logs (organization_id, type, status, action, details, created_at) values
        (${id}, 'security', 'success', 'Account created', ${`Sign-up for ${email}`}, ${joined.toISOString()}::timestamptz),
        (${id}, 'billing', 'success', 'Wallet topped up', ${toppedUp(t.paid)}, now() - ${`${i * 2 + 1} hours`}::interval)`);
  }
  await foldAnalytics();
}
