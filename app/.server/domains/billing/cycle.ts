import { messagesUsedThisMonthSql } from "./month-usage";
import { sql } from "drizzle-orm";
import { db, rawQuery, type Executor } from "../../infrastructure/db/client";
import { queryRow, queryRows } from "../../infrastructure/db/query";
import { notify } from "../notifications";
import { englishOf, words } from "../../infrastructure/words/said";
import { billingTypeInWords, recordActivity } from "../activity";
import type { InvoiceLine } from "~/lib/invoice";
import { issueInvoice } from "./invoices";
import { lineFromNet } from "./vat";
import { SMS_PART_PRICE_CENTS } from "~/lib/sms-price";
import { payOpenInvoicesFromWallet } from "./settle-invoices";
import { reclassifyWallet } from "./switch";
import type { BillingType } from "../../infrastructure/db/schema/billing";
import { dayWords, daysBetween, monthWords, nairobiDate, nairobiMidnight, periodAt, previousPeriod, type Period } from "./periods";

/**
 * The billing cycle, run by a recurring job every few minutes on whichever instance claims it
 * (decision 035). Each step is idempotent, so running it twice, or on two instances at once, does
 * each thing once: the month's invoice of every postpaid organisation on the 1st (one per
 * organisation and period: a per-organisation lock and the unique index), plan changes that take
 * effect, and overdue invoices with their weekly reminders.
 */
export const BILLING_CYCLE_QUEUE = "billing.cycle";
export const BILLING_CYCLE_EVERY_SECONDS = 300;
/** Postpaid invoices are due this many days after they are issued. */
export const INVOICE_DUE_DAYS = 14;
/** An overdue invoice is reminded of again after this many days. */
export const REMINDER_EVERY_DAYS = 7;

export async function runBillingCycle(now = new Date()) {
  const issued = await issueMonthlyInvoices(now);
  const planChanges = await applyPlanChanges(now);
  const overdue = await markOverdue(now);
  const reminded = await remindOverdue(now);
  return { issued, planChanges, overdue, reminded };
}

interface Billable {
  id: string;
  name: string;
  plan_type: string;
  created_at: Date | string;
  monthly_fee_cents: number | string;
  included_messages: number;
  message_price_cents: number;
}

/** The invoice of the month that ended, for each postpaid organisation without one. */
export async function issueMonthlyInvoices(now: Date) {
  const period = previousPeriod(periodAt(now));
  const periodEndsAt = nairobiMidnight(period.next);
  const due = await rawQuery<Billable>(
    `select o.id, o.name, o.plan_type, o.created_at, p.monthly_fee_cents, p.included_messages, p.message_price_cents
     from organizations o join billing_plans p on p.code = lower(o.plan_type) and p.billing_type = 'postpaid'
     where o.billing_type = 'postpaid' and o.created_at < $1 and o.erase_after is null
       and not exists (select 1 from invoices i where i.organization_id = o.id and i.kind = 'subscription' and i.period_start = $2::date)
     order by o.created_at`,
    [periodEndsAt.toISOString(), period.start],
  );
  let issued = 0;
  for (const org of due) if (await issueMonthlyInvoice(org, period, now)) issued++;
  return issued;
}

async function issueMonthlyInvoice(org: Billable, period: Period, now: Date) {
  const invoice = await db().transaction((tx) => issueMonthlyInvoiceIn(tx, org, period, now));
  if (invoice) await recordInvoiceIssued(org.id, period, invoice);
  return invoice;
}

const recordInvoiceIssued = (organizationId: string, period: Period, invoice: { number: string; totalCents: number }) =>
  recordActivity({
    organizationId,
    type: "billing",
    status: "success",
    action: "Invoice issued",
    details: englishOf(
      words("app_activity_detail_invoice_issued", {
        number: invoice.number,
        month: { month: period.start.slice(0, 7) },
        amount: { kes: invoice.totalCents },
      }),
    ),
  });

/** The month's invoice of one organisation in the caller's transaction (null: issued already, or nothing to invoice). */
async function issueMonthlyInvoiceIn(tx: Executor, org: Billable, period: Period, now: Date) {
  // Two instances (or two runs) on the same organisation and month: the second waits, then finds it issued.
  await tx.execute(sql`select pg_advisory_xact_lock(17017, hashtext(${`${org.id}:${period.start}`}))`);
  const exists = await queryRows<unknown>(
    tx,
    sql`
      select 1 from invoices where organization_id = ${org.id} and kind = 'subscription' and period_start = ${period.start}::date`,
  );
  if (exists.length) return null;
  const lines = await monthLines(tx, org, period);
  if (!lines.length) return null;
  const made = await issueInvoice(tx, {
    organizationId: org.id,
    series: "INV",
    kind: "subscription",
    status: "pending",
    description: `${org.plan_type} plan, ${monthWords(period)}`,
    lines,
    pricesIncludeVat: false,
    issuedAt: now,
    dueAt: new Date(now.getTime() + INVOICE_DUE_DAYS * 86_400_000),
    periodStart: period.start,
    periodEnd: period.end,
    planType: org.plan_type,
    billingType: "postpaid",
  });
  // Money already on account pays it at once.
  const paid = await payOpenInvoicesFromWallet(tx, org.id);
  await notify(
    {
      organizationId: org.id,
      event: "invoice_issued",
      words: {
        title: words("app_notice_invoice_issued_title", { number: made.number, amount: { kes: made.totalCents } }),
        body: paid
          ? words("app_notice_invoice_paid_from_wallet_body", { month: { month: period.start.slice(0, 7) } })
          : words("app_notice_invoice_due_body", {
              month: { month: period.start.slice(0, 7) },
              day: { day: nairobiDate(new Date(now.getTime() + INVOICE_DUE_DAYS * 86_400_000)) },
            }),
      },
      link: "/billing",
      dedupeKey: `invoice-issued:${made.id}`,
    },
    tx,
  );
  return made;
}

/** The plan's fee for the days it was held (a first month is prorated) and the messages beyond the included ones. */
async function monthLines(tx: Executor, org: Billable, period: Period): Promise<InvoiceLine[]> {
  const used = (await queryRow<{ n: number }>(
    tx,
    sql`
      select ${sql.raw(
        // "Messages this month" of the invoiced month (a period is a calendar month, Nairobi).
        messagesUsedThisMonthSql({ organization: "o.id", at: `'${period.start}T12:00:00+03:00'::timestamptz` }),
      )} as n
      from organizations o where o.id = ${org.id}`,
  ))!.n;
  const created = nairobiDate(new Date(org.created_at));
  const from = created > period.start ? created : period.start;
  const days = daysBetween(from, period.end);
  const fee = Number(org.monthly_fee_cents);
  const lines: InvoiceLine[] = [];
  if (fee > 0) {
    const whole = days >= period.days;
    lines.push(
      lineFromNet({
        description: whole
          ? `${org.plan_type} plan (postpaid), ${monthWords(period)}`
          : `${org.plan_type} plan (postpaid), ${dayWords(from)} to ${dayWords(period.end)} (${days} of ${period.days} days)`,
        itemCode: "JMB-PLAN",
        quantity: 1,
        unit: "month",
        unitPriceCents: whole ? fee : Math.floor((fee * days * 2 + period.days) / (2 * period.days)),
      }),
    );
  }
  const beyond = Math.max(0, used - org.included_messages);
  if (beyond > 0)
    lines.push(
      lineFromNet({
        description: `Messages beyond the ${org.included_messages.toLocaleString("en-US")} included (${used.toLocaleString("en-US")} sent)`,
        itemCode: "JMB-MSG",
        quantity: beyond,
        unit: "message",
        unitPriceCents: org.message_price_cents,
      }),
    );
  const sms = await smsLine(tx, org.id, period);
  if (sms) lines.push(sms);
  return lines;
}

/**
 * The month's SMS (issue 77, decision 150): the parts of the SMS Africa's Talking took in that
 * Nairobi month (counted, not failed), at the price of a part. Apart from the plan's messages: SMS
 * are never among the included WhatsApp messages (month-usage.ts leaves them out).
 */
async function smsLine(tx: Executor, organizationId: string, period: Period): Promise<InvoiceLine | null> {
  const row = await queryRow<{ sms: number; parts: number }>(
    tx,
    sql`
      select count(*)::int as sms, coalesce(sum(s.parts), 0)::int as parts
      from messages m join sms_messages s on s.message_id = m.id and s.direction = 'outbound'
      where m.organization_id = ${organizationId} and m.channel = 'sms' and m.charge_state = 'counted'
        and m.accepted_at >= ${`${period.start}T00:00:00+03:00`}::timestamptz
        and m.accepted_at < ${`${period.next}T00:00:00+03:00`}::timestamptz`,
  );
  if (!row?.parts) return null;
  return lineFromNet({
    description: `SMS, ${row.parts.toLocaleString("en-US")} part${row.parts === 1 ? "" : "s"} (${row.sms.toLocaleString("en-US")} SMS sent)`,
    itemCode: "JMB-SMS",
    quantity: row.parts,
    unit: "SMS part",
    unitPriceCents: SMS_PART_PRICE_CENTS,
  });
}

/**
 * Plan changes asked for take effect once their period has begun, each organisation in a transaction
 * of its own: its row locked and the change read again under the lock (a second run, on any instance,
 * finds nothing to do), then, for a change of billing type, the wallet's money reclassified (decision
 * 124; a postpaid month ending is invoiced first), then the new plan.
 */
export async function applyPlanChanges(now: Date) {
  const today = nairobiDate(now);
  const due = await rawQuery<{ id: string }>(
    `select id from organizations where next_plan_from is not null and next_plan_from <= $1::date order by next_plan_from, id`,
    [today],
  );
  let changed = 0;
  for (const { id } of due) {
    const outcome = await db().transaction(async (tx) => {
      const [org] = await queryRows<{
        plan_type: string;
        billing_type: BillingType;
        next_plan_type: string | null;
        next_billing_type: BillingType | null;
      }>(
        tx,
        sql`
          select plan_type, billing_type, next_plan_type, next_billing_type from organizations
          where id = ${id} and next_plan_from is not null and next_plan_from <= ${today}::date
          for update`,
      );
      if (!org) return null;
      const to = org.next_billing_type ?? org.billing_type;
      // The postpaid month that ended is invoiced before its money on account becomes prepaid credit.
      const invoiced = org.billing_type === "postpaid" && to === "prepaid" ? await invoiceEndedMonth(tx, id, now) : null;
      const reclassified = await reclassifyWallet(
        tx,
        id,
        { from: org.billing_type, to, planType: org.next_plan_type ?? org.plan_type },
        now,
      );
      const [row] = await queryRows<{ plan_type: string; billing_type: string }>(
        tx,
        sql`
          update organizations o set plan_type = coalesce(p.name, o.plan_type), billing_type = ${to},
                 message_limit = coalesce(p.message_limit, o.message_limit), next_plan_type = null, next_billing_type = null,
                 next_plan_from = null, updated_at = now()
          from organizations src
          left join billing_plans p on p.code = lower(coalesce(src.next_plan_type, src.plan_type)) and p.billing_type = ${to}
          where o.id = src.id and o.id = ${id}
          returning o.plan_type, o.billing_type`,
      );
      return { row: row!, invoiced, reclassified };
    });
    if (!outcome) continue;
    changed++;
    if (outcome.invoiced) await recordInvoiceIssued(id, outcome.invoiced.period, outcome.invoiced.invoice);
    await recordActivity({
      organizationId: id,
      type: "billing",
      status: "success",
      action: "Plan changed",
      details: englishOf(
        words("app_activity_detail_plan_now", { plan: outcome.row.plan_type, type: billingTypeInWords(outcome.row.billing_type) }),
      ),
    });
    if (outcome.reclassified)
      await recordActivity({
        organizationId: id,
        type: "billing",
        status: "success",
        action:
          outcome.reclassified.direction === "to_account"
            ? "Prepaid credit moved to money on account"
            : "Money on account made prepaid credit",
        details: englishOf(
          words(
            outcome.reclassified.direction === "to_account"
              ? "app_activity_detail_prepaid_to_account"
              : "app_activity_detail_account_to_prepaid",
            {
              amount: { kes: outcome.reclassified.amountCents },
              documents: outcome.reclassified.documents.map((d) => d.number).join(", "),
            },
          ),
        ),
      });
  }
  return changed;
}

/** The postpaid month that ended, invoiced as the cycle invoices it, in the caller's transaction (null: nothing to issue). */
async function invoiceEndedMonth(tx: Executor, organizationId: string, now: Date) {
  const period = previousPeriod(periodAt(now));
  const [org] = await queryRows<Billable>(
    tx,
    sql`
      select o.id, o.name, o.plan_type, o.created_at, p.monthly_fee_cents, p.included_messages, p.message_price_cents
      from organizations o join billing_plans p on p.code = lower(o.plan_type) and p.billing_type = 'postpaid'
      where o.id = ${organizationId} and o.created_at < ${nairobiMidnight(period.next).toISOString()} and o.erase_after is null`,
  );
  if (!org) return null;
  const invoice = await issueMonthlyInvoiceIn(tx, org, period, now);
  return invoice ? { period, invoice } : null;
}

/** Pending invoices past their due date become overdue (and are notified once). */
export async function markOverdue(now: Date) {
  const rows = await rawQuery<{ id: string; organization_id: string; number: string; total_cents: number | string }>(
    `update invoices set status = 'overdue' where status = 'pending' and due_at < $1 returning id, organization_id, number, total_cents`,
    [now.toISOString()],
  );
  return rows.length;
}

/** An e-mailed reminder (and bell) for each overdue invoice, then again each week until it is paid. */
export async function remindOverdue(now: Date) {
  const due = await rawQuery<{
    id: string;
    organization_id: string;
    number: string;
    total_cents: number | string;
    due_at: Date | string | null;
    reminders: number;
  }>(
    // What is owed is the total less any credit note against it (decision 050).
    `update invoices set reminders = reminders + 1, last_reminder_at = $1
     where id in (select id from invoices where status = 'overdue'
                    and (last_reminder_at is null or last_reminder_at <= $1::timestamptz - make_interval(days => $2))
                  for update skip locked)
     returning id, organization_id, number, due_at, reminders,
               total_cents - coalesce((select sum(c.total_cents) from invoices c
                                       where c.credits_invoice_id = invoices.id and c.kind = 'credit_note'), 0) as total_cents`,
    [now.toISOString(), REMINDER_EVERY_DAYS],
  );
  for (const invoice of due)
    await notify({
      organizationId: invoice.organization_id,
      event: "invoice_overdue",
      words: {
        title: words("app_notice_invoice_overdue_title", { number: invoice.number, amount: { kes: Number(invoice.total_cents) } }),
        body: invoice.due_at
          ? words("app_notice_invoice_overdue_body", { day: { day: nairobiDate(new Date(invoice.due_at)) } })
          : words("app_notice_invoice_overdue_undated_body"),
      },
      link: "/billing",
      dedupeKey: `invoice-overdue:${invoice.id}:${invoice.reminders}`,
    });
  return due.length;
}
