import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { db, rawQuery } from "../infrastructure/db/client";
import { organizations, users } from "../infrastructure/db/schema";
import { hashPassword } from "../domains/auth/password";
import { newBusinessId } from "../domains/auth/signup";
import { completePayment, createPayment } from "../domains/billing/payments";
import { startBankTransfer } from "../domains/billing/bank";
import { issueInvoice } from "../domains/billing/invoices";
import { disputeInvoice } from "../domains/billing/settings";
import { lineFromGross, lineFromNet } from "../domains/billing/vat";
import { nairobiMidnight, periodAt, previousPeriod } from "../domains/billing/periods";
import { NOTIFICATION_MAIL_QUEUE } from "../domains/notifications/notify";
import { numberInIssueOrder } from "./seed-billing";

/**
 * Other tenants for the admin console's Billing tab (issue 19), so it looks like a platform with
 * customers: postpaid businesses with monthly invoices (paid by M-Pesa, card or the paybill, one
 * overdue, one disputed), prepaid ones topping up, and a bank transfer awaiting reconciliation. Made
 * by the billing domain's own functions, then moved back to when they happened, so every wallet
 * equals its ledger. The demo Sacco's own billing is seed-billing.ts.
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

/** Moves a completed payment, its ledger rows and its documents back to `at`. */
async function backdate(paymentId: string, at: Date) {
  const when = at.toISOString();
  await rawQuery(`update payments set created_at = $2, completed_at = $2 where id = $1`, [paymentId, when]);
  await rawQuery(`update wallet_entries set created_at = $2 where payment_id = $1`, [paymentId, when]);
  await rawQuery(`update invoices set paid_at = $2 where payment_id = $1 and status = 'paid'`, [paymentId, when]);
  await rawQuery(`update invoices set issued_at = $2 where payment_id = $1 and kind = 'topup'`, [paymentId, when]);
}

async function pay(
  organizationId: string,
  method: "mpesa" | "c2b" | "card",
  amountCents: number,
  at: Date,
  invoiceId: string | null = null,
) {
  const { payment } = await db().transaction((tx) =>
    createPayment(tx, { organizationId, method, amountCents, invoiceId, reference: receipt("REF") }),
  );
  await completePayment(payment.id, { receipt: receipt(method === "card" ? "PSK_" : "T"), via: "the seed" });
  await backdate(payment.id, at);
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

export async function seedAdminBilling(now = Date.now()) {
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
      for (const [i, month] of months.entries())
        await pay(organizationId, methods[(n + i) % 3]!, (i + 2) * 250_000, day(month.start, 4 + n));
      continue;
    }
    // Postpaid: the month's invoice on the 1st of each past month, paid days later; this month's is still open.
    for (const [i, month] of months.slice(0, 2).entries()) {
      const invoice = await db().transaction((tx) =>
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
      const last = i === 1;
      if (last && n === 4) {
        await rawQuery(`update invoices set status = 'overdue' where id = $1`, [invoice.id]);
        await partlyCredit(organizationId, owner!.id, invoice, day(month.start, 16));
        continue;
      }
      await pay(organizationId, methods[(n + i) % 3]!, invoice.totalCents, day(month.start, 3 + i));
      if (last && n === 1)
        await disputeInvoice(
          { organizationId, userId: owner!.id },
          invoice.id,
          "We were billed for the Growth plan, but we moved to Starter in the middle of last month as agreed with your sales team.",
        );
    }
  }
  // A bank transfer a prepaid dairy started two days ago: on the statement, not yet reconciled.
  const [dairy] = await rawQuery<{ id: string; owner: string }>(
    `select o.id, u.id as owner from organizations o join users u on u.organization_id = o.id where o.name = $1`,
    ["Savannah Fresh Dairies"],
  );
  if (dairy) {
    const { payment, invoiceId } = await startBankTransfer({ organizationId: dairy.id, userId: dairy.owner }, { amount: "15000" });
    const at = new Date(now - 2 * 86_400_000).toISOString();
    await db().execute(sql`update payments set created_at = ${at} where id = ${payment.id}`);
    await db().execute(sql`update invoices set issued_at = ${at} where id = ${invoiceId}`);
  }
  // History e-mails nobody: the mail its notifications queued, and any wallet alert, are dropped.
  await rawQuery(
    `delete from jobs where (queue = $1 and payload ->> 'notificationId' in (select id::text from notifications where organization_id = any($2::uuid[])))
        or (queue like 'billing.%' and payload ->> 'organizationId' = any($2::text[]))`,
    [NOTIFICATION_MAIL_QUEUE, seeded],
  );
  // Their documents were issued after the demo Sacco's but are dated earlier: every number again in issue order.
  await numberInIssueOrder();
}
