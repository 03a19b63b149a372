import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { db, rawQuery } from "../infrastructure/db/client";
import { organizations, users } from "../infrastructure/db/schema";
import { hashPassword } from "../domains/auth/password";
import { newBusinessId } from "../domains/auth/signup";
import { startBankTransfer } from "../domains/billing/bank";
import { issueInvoice } from "../domains/billing/invoices";
import { disputeInvoice } from "../domains/billing/settings";
import { lineFromGross, lineFromNet } from "../domains/billing/vat";
import { nairobiMidnight, periodAt, previousPeriod } from "../domains/billing/periods";
import { NOTIFICATION_MAIL_QUEUE } from "../domains/notifications/notify";
import { BillingHistory, seedPayment } from "./seed-billing";

/**
 * Other tenants for the admin console's Billing tab (issue 19), so it looks like a platform with
 * customers: postpaid businesses with monthly invoices (paid by M-Pesa, card or the paybill, one
 * overdue, one disputed), prepaid ones topping up, and a bank transfer awaiting reconciliation. Made
 * by the billing domain's own functions as steps of the demo's billing history (BillingHistory, with
 * the demo Sacco's, seed-billing.ts), run in date order and moved back to when they happened, so
 * every wallet equals its ledger and every document's number is the one it was issued with.
 */
interface SeedTenant {
  name: string;
  owner: [first: string, last: string, email: string, phone: string];
  plan: "Starter" | "Growth" | "Enterprise";
  billingType: "prepaid" | "postpaid";
  county: string;
}

const TENANTS: SeedTenant[] = [
  {
    name: "Mwangaza Microfinance Bank",
    owner: ["Wanjiru", "Kamau", "finance@mwangaza.co.ke", "+254722410001"],
    plan: "Enterprise",
    billingType: "postpaid",
    county: "Nairobi",
  },
  {
    name: "Coastline Beach Hotels Ltd",
    owner: ["Hassan", "Omar", "accounts@coastlinehotels.co.ke", "+254733410002"],
    plan: "Growth",
    billingType: "postpaid",
    county: "Mombasa",
  },
  {
    name: "Tuko Pamoja Matatu Sacco",
    owner: ["Peter", "Otieno", "admin@tukopamoja.co.ke", "+254711410003"],
    plan: "Growth",
    billingType: "prepaid",
    county: "Kisumu",
  },
  {
    name: "Savannah Fresh Dairies",
    owner: ["Grace", "Chepkoech", "grace@savannahdairies.co.ke", "+254720410004"],
    plan: "Starter",
    billingType: "prepaid",
    county: "Uasin Gishu",
  },
  {
    name: "Eldoret Agrovet Supplies",
    owner: ["Kiprono", "Rotich", "orders@eldoretagrovet.co.ke", "+254701410005"],
    plan: "Starter",
    billingType: "postpaid",
    county: "Uasin Gishu",
  },
];

const FEES: Record<SeedTenant["plan"], number> = { Starter: 200_000, Growth: 900_000, Enterprise: 1_500_000 };

const receipt = (prefix: string) => `${prefix}${randomBytes(6).toString("hex").toUpperCase().slice(0, 9)}`;

/** A payment that reached Jumbe, with a receipt as M-Pesa or Paystack would give it. */
async function pay(organizationId: string, method: "mpesa" | "c2b" | "card", amountCents: number) {
  await seedPayment(organizationId, method, amountCents, { receipt: receipt(method === "card" ? "PSK_" : "T") });
}

/**
 * A dispute of an overdue invoice, upheld in part: a credit note for KES 500 lowers what is due (decision
 * 050), the rest still overdue, the wallet untouched. Written as the console's resolution writes it.
 */
async function partlyCredit(organizationId: string, ownerId: string, invoice: { id: string; number: string }, at: Date) {
  const creditCents = 50_000;
  const note = await db().transaction(async (tx) => {
    const crn = await issueInvoice(tx, {
      organizationId,
      series: "CRN",
      kind: "credit_note",
      status: "paid",
      description: `Credit note for ${invoice.number}`,
      lines: [
        lineFromGross({
          description: `Credit for ${invoice.number}`,
          itemCode: "JMB-CREDIT",
          quantity: 1,
          unit: "credit",
          unitPriceCents: creditCents,
        }),
      ],
      pricesIncludeVat: true,
      issuedAt: at,
      paidAt: at,
      planType: "Starter",
      billingType: "postpaid",
    });
    await tx.execute(sql`update invoices set credits_invoice_id = ${invoice.id} where id = ${crn.id}`);
    return crn;
  });
  const [admin] = await rawQuery<{ id: string }>(`select id from users where usertype = 'admin' order by created_at limit 1`);
  await rawQuery(
    `insert into invoice_disputes (organization_id, invoice_id, reason, status, previous_status, raised_by, created_at, resolved_at, resolved_by,
                                   resolution, outcome, credit_note_id)
     values ($1, $2, $3, 'resolved', 'overdue', $4, $5, $6, $7, $8, 'credited', $9)`,
    [
      organizationId,
      invoice.id,
      "Two of the delivery-day broadcasts were sent twice; we should not pay for the repeats.",
      ownerId,
      new Date(at.getTime() - 2 * 86_400_000).toISOString(),
      at.toISOString(),
      admin?.id ?? null,
      "Credited the repeated broadcasts; the rest of the invoice is still due.",
      note.id,
    ],
  );
}

/**
 * The tenants now, their billing as steps of `history` (run at once when none is given: its caller
 * runs it with the other tenants').
 */
// long: demo data: the console's tenants and their billing history as one script in the order it happens
export async function seedAdminBilling(options: { history?: BillingHistory; now?: number } = {}) {
  const now = options.now ?? Date.now();
  const history = options.history ?? new BillingHistory();
  const passwordHash = await hashPassword(randomBytes(18).toString("base64url"));
  const current = periodAt(new Date(now));
  const months = [previousPeriod(previousPeriod(current)), previousPeriod(current), current];
  const day = (date: string, days: number, hour = 10) => new Date(nairobiMidnight(date).getTime() + days * 86_400_000 + hour * 3_600_000);
  const methods = ["mpesa", "card", "c2b"] as const;
  const seeded: string[] = [];
  for (const [n, t] of TENANTS.entries()) {
    const [org] = await db()
      .insert(organizations)
      .values({
        name: t.name,
        businessId: newBusinessId(),
        status: "active",
        planType: t.plan,
        county: t.county,
        billingType: t.billingType,
      })
      .returning({ id: organizations.id });
    const organizationId = org!.id;
    seeded.push(organizationId);
    const [owner] = await db()
      .insert(users)
      .values({
        organizationId,
        email: t.owner[2],
        firstName: t.owner[0],
        lastName: t.owner[1],
        phoneNumber: t.owner[3],
        passwordHash,
        isVerified: true,
      })
      .returning({ id: users.id });
    await rawQuery(`update organizations set created_at = $2 where id = $1`, [organizationId, day(months[0]!.start, -20).toISOString()]);
    if (t.billingType === "prepaid") {
      for (const [i, month] of months.entries()) {
        const at = day(month.start, 4 + n);
        // This month's top-up only once its day has come.
        if (at.getTime() < now) history.step(at, () => pay(organizationId, methods[(n + i) % 3]!, (i + 2) * 250_000));
      }
      continue;
    }
    // Postpaid: the month's invoice on the 1st of each past month, paid days later; this month's is still open.
    for (const [i, month] of months.slice(0, 2).entries()) {
      const last = i === 1;
      let invoice: { id: string; number: string; totalCents: number } | undefined;
      history.step(day(month.start, 0, 6), async () => {
        invoice = await db().transaction((tx) =>
          issueInvoice(tx, {
            organizationId,
            series: "INV",
            kind: "subscription",
            status: "pending",
            description: `${t.plan} plan, postpaid`,
            lines: [
              lineFromNet({
                description: `${t.plan} plan (month)`,
                itemCode: "JMB-PLAN",
                quantity: 1,
                unit: "month",
                unitPriceCents: FEES[t.plan],
              }),
            ],
            pricesIncludeVat: false,
            issuedAt: day(month.start, 0, 6),
            dueAt: day(month.start, 14),
            periodStart: month.start,
            periodEnd: month.end,
            planType: t.plan,
            billingType: "postpaid",
          }),
        );
      });
      if (last && n === 4) {
        // Overdue once its due day passed, then partly credited.
        history.step(day(month.start, 15), () => rawQuery(`update invoices set status = 'overdue' where id = $1`, [invoice!.id]));
        history.step(day(month.start, 16), () => partlyCredit(organizationId, owner!.id, invoice!, day(month.start, 16)));
        continue;
      }
      history.step(day(month.start, 3 + i), () => pay(organizationId, methods[(n + i) % 3]!, invoice!.totalCents));
      if (last && n === 1)
        history.step(day(month.start, 5 + i), () =>
          disputeInvoice(
            { organizationId, userId: owner!.id },
            invoice!.id,
            "We were billed for the Growth plan, but we moved to Starter in the middle of last month as agreed with your sales team.",
          ),
        );
    }
  }
  // A bank transfer a prepaid dairy started two days ago: on the statement, not yet reconciled.
  const [dairy] = await rawQuery<{ id: string; owner: string }>(
    `select o.id, u.id as owner from organizations o join users u on u.organization_id = o.id where o.name = $1`,
    ["Savannah Fresh Dairies"],
  );
  if (dairy)
    history.step(new Date(now - 2 * 86_400_000), () =>
      startBankTransfer({ organizationId: dairy.id, userId: dairy.owner }, { amount: "15000" }),
    );
  // History e-mails nobody: the mail its notifications queued, and any wallet alert, are dropped.
  history.finally(() =>
    rawQuery(
      `delete from jobs where (queue = $1 and payload ->> 'notificationId' in (select id::text from notifications where organization_id = any($2::uuid[])))
          or (queue like 'billing.%' and payload ->> 'organizationId' = any($2::text[]))`,
      [NOTIFICATION_MAIL_QUEUE, seeded],
    ),
  );
  if (!options.history) await history.run();
}
