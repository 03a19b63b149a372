import { messagesUsedThisMonthSql } from "./month-usage";
import { sql } from "drizzle-orm";
import { db, rawQuery, type Executor } from "../../infrastructure/db/client";
import { queryRow, queryRows } from "../../infrastructure/db/query";
import { notify } from "../notifications/notify";
import { englishOf, words } from "../../infrastructure/words/said";
import { billingTypeInWords } from "../activity/stored-inputs";
import { recordActivity } from "../activity/record";
import type { InvoiceLine } from "~/lib/invoice";
import { issueInvoice } from "./invoices";
import { lineFromNet } from "./vat";
import { payOpenInvoicesFromWallet } from "./settle-invoices";
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
  const invoice = await db().transaction(async (tx) => {
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
  });
  if (invoice)
    await recordActivity({
      organizationId: org.id,
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
  return invoice;
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
  return lines;
}

/** Plan changes asked for take effect once their period has begun. */
export async function applyPlanChanges(now: Date) {
  const rows = await rawQuery<{ id: string; plan_type: string; billing_type: string }>(
    `update organizations o set plan_type = coalesce(p.name, o.plan_type), billing_type = coalesce(o.next_billing_type, o.billing_type),
            message_limit = coalesce(p.message_limit, o.message_limit), next_plan_type = null, next_billing_type = null,
            next_plan_from = null, updated_at = now()
     from organizations src
     left join billing_plans p on p.code = lower(coalesce(src.next_plan_type, src.plan_type))
                              and p.billing_type = coalesce(src.next_billing_type, src.billing_type)
     where o.id = src.id and src.next_plan_from is not null and src.next_plan_from <= $1::date
     returning o.id, o.plan_type, o.billing_type`,
    [nairobiDate(now)],
  );
  for (const row of rows)
    await recordActivity({
      organizationId: row.id,
      type: "billing",
      status: "success",
      action: "Plan changed",
      details: englishOf(words("app_activity_detail_plan_now", { plan: row.plan_type, type: billingTypeInWords(row.billing_type) })),
    });
  return rows.length;
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
