import { sql } from "drizzle-orm";
import { db, rawQuery } from "../infrastructure/db/client";
import { messageKeyTable, type MessageKey } from "../infrastructure/db/message-keys";
import { NOTIFICATION_MAIL_QUEUE } from "../domains/notifications/notify";
import { callbackSecret, completePayment, createPayment } from "../domains/billing/payments";
import { startBankTransfer } from "../domains/billing/bank";
import { issueMonthlyInvoices, applyPlanChanges } from "../domains/billing/cycle";
import { changePlan, disputeInvoice, saveWalletAlerts } from "../domains/billing/settings";
import { chargeAccepted, chargeColumns, holdForQueued, sendPrice, settleFailed } from "../domains/billing/charging";
import { dayWords, nairobiDate, nairobiMidnight, periodAt, previousPeriod } from "../domains/billing/periods";

/**
 * The demo Sacco's billing (issue 17), made by the billing domain itself rather than invented
 * figures: three months ago it signed up postpaid on Starter; its first month's invoice was paid by
 * M-Pesa, the second is disputed; it moved to prepaid Growth from last month and has topped its
 * wallet up since by M-Pesa (prompts and the paybill) and card, with a bank transfer still awaiting
 * reconciliation; the template messages the other seeds left (the Nakuru campaign, the API's
 * reminders and the analytics history's 90 days) were counted as usage while it was postpaid, held
 * and charged since, and where Meta failed them after accepting, refunded. Each step runs now and
 * is then moved back to when it happened (its rows shifted by the same amount), so the wallet
 * equals its ledger, usage equals the counted and charged messages and invoice numbers have no
 * gaps. About twenty ledger rows, six payments and seven invoices: quick enough for every test start.
 *
 * The console's other tenants' billing (seed-admin-billing.ts, seed-admin-users.ts) joins the same
 * history (a BillingHistory): every step of every tenant runs in the order it is dated, so each
 * document takes its number when it is issued, as in production, and nothing is renumbered after a
 * ledger line, a notification or a credit note has named it (issue 72: three wallets named other
 * tenants' invoices after the old seed renumbered them).
 */

const PHONE = "254722000002";
/** The feeder's batch at the demo number's 80 messages a second (its lead of two seconds). */
const FEED_BATCH = 160;

/** One step of the history: what ran, and when it is said to have happened. */
interface Step {
  at: Date;
  run: () => Promise<unknown>;
}

/**
 * The demo's billing history across tenants: steps registered by each seed, run in the order they
 * are dated (registration order among equal times), each one's rows then moved back to its time.
 */
export class BillingHistory {
  private steps: Step[] = [];
  private after: (() => Promise<unknown>)[] = [];

  step(at: Date, run: () => Promise<unknown>) {
    this.steps.push({ at, run });
  }

  /** Something to do once every step has run (dropping the mail the history queued). */
  finally(run: () => Promise<unknown>) {
    this.after.push(run);
  }

  async run() {
    const steps = this.steps.map((step, i) => ({ ...step, i })).sort((a, b) => a.at.getTime() - b.at.getTime() || a.i - b.i);
    this.steps = [];
    let since = (await rawQuery<{ now: string }>(`select clock_timestamp()::text as now`))[0]!.now;
    for (const { at, run } of steps) {
      await run();
      since = await moveBack(since, at);
    }
    for (const run of this.after.splice(0)) await run();
    // Only a history that crosses into a new year needs it (its documents were issued this year).
    await numberInIssueOrder();
  }
}

/** The demo Sacco's billing, run with `history`'s other steps (its own alone when none is given). */
export async function seedBilling(organizationId: string, ownerId: string, now: number, history = new BillingHistory()) {
  const actor = { organizationId, userId: ownerId };
  const current = periodAt(new Date(now));
  const lastMonth = previousPeriod(current);
  const twoMonthsAgo = previousPeriod(lastMonth);
  const signedUp = previousPeriod(twoMonthsAgo);
  /** A Nairobi date's `hour` o'clock (EAT), plus `days`. */
  const on = (date: string, days: number, hour: number, minute = 0) =>
    new Date(nairobiMidnight(date).getTime() + days * 86_400_000 + (hour * 60 + minute) * 60_000);
  const ago = (hours: number) => new Date(now - hours * 3_600_000);

  // It is the seed: the Sacco started on the 1st, postpaid Starter (as signing up left it).
  await rawQuery(
    `update organizations set billing_type = 'postpaid', plan_type = 'Starter', message_limit = 1000, created_at = $2 where id = $1`,
    [organizationId, on(signedUp.start, 0, 10, 12).toISOString()],
  );
  const [{ business_id: businessId } = { business_id: "" }] = await rawQuery<{ business_id: string }>(
    `select business_id from organizations where id = $1`,
    [organizationId],
  );

  const step = (at: Date, run: () => Promise<unknown>) => history.step(at, run);
  const firstInvoiceAt = on(twoMonthsAgo.start, 0, 9);
  const secondInvoiceAt = on(lastMonth.start, 0, 9);

  // Postpaid: the month's invoice on the 1st (the billing cycle's own step), paid by M-Pesa four days later.
  step(firstInvoiceAt, () => issueMonthlyInvoices(firstInvoiceAt));
  step(on(twoMonthsAgo.start, 4, 14, 12), async () => {
    const [invoice] = await rawQuery<{ id: string; total_cents: number | string }>(
      `select id, total_cents from invoices where organization_id = $1 and kind = 'subscription' and period_start = $2::date`,
      [organizationId, signedUp.start],
    );
    await mpesaPayment(organizationId, ownerId, Number(invoice!.total_cents), on(twoMonthsAgo.start, 4, 14, 12), "4X7QW2P", invoice!.id);
  });
  // Prepaid Growth asked for mid-month, from the 1st: the cycle invoices the last postpaid month, then switches.
  step(on(twoMonthsAgo.start, 10, 11, 40), () =>
    changePlan(actor, { plan: "growth", billingType: "prepaid" }, on(twoMonthsAgo.start, 10, 11, 40)),
  );
  step(secondInvoiceAt, async () => {
    await issueMonthlyInvoices(secondInvoiceAt);
    await applyPlanChanges(secondInvoiceAt);
  });
  // The owner expected the month to stop when the change was asked for: disputed, for an administrator to answer.
  step(on(lastMonth.start, 1, 8, 25), async () => {
    const [invoice] = await rawQuery<{ id: string }>(
      `select id from invoices where organization_id = $1 and kind = 'subscription' and period_start = $2::date`,
      [organizationId, twoMonthsAgo.start],
    );
    await disputeInvoice(
      actor,
      invoice!.id,
      `We asked to move to prepaid Growth on ${dayWords(nairobiDate(on(twoMonthsAgo.start, 10, 12)))}, so we expected the Starter fee only up to that day, not for the whole month.`,
    );
  });

  // Prepaid: top-ups by an M-Pesa prompt, the paybill and card, and the low-balance alert at KES 500.
  step(on(lastMonth.start, 2, 10, 14), () => mpesaPayment(organizationId, ownerId, 300_000, on(lastMonth.start, 2, 10, 14), "8KD3LM1"));
  step(on(lastMonth.start, 2, 10, 31), () =>
    saveWalletAlerts(actor, { lowBalance: "500", autoTopupBelow: "", autoTopupAmount: "", autoTopupPhone: "" }),
  );
  step(on(lastMonth.start, 16, 16, 3), () =>
    paybillPayment(organizationId, businessId, 150_000, mpesaReceipt(on(lastMonth.start, 16, 16), "2HVN6TR")),
  );
  step(ago(9 * 24 + 5), () => cardPayment(organizationId, ownerId, 500_000, "JMB-QX7RWK2MFPTD"));
  step(ago(4 * 24 + 2), () => mpesaPayment(organizationId, ownerId, 200_000, ago(4 * 24 + 2), "5PQ9ZC4"));
  // A bank transfer the Sacco's treasurer started yesterday: its invoice waits for Jumbe to see the money.
  step(ago(20), () => startBankTransfer(actor, { amount: "10000" }));

  await chargeSeededMessages(organizationId, step);
  await history.run();
}

/**
 * The template messages the demo's other seeds stored as Meta left them, charged as the sending
 * engine would have: the feeder held the campaign's prices a feeder batch at a time and the API each
 * message's own, the dispatcher charged them once Meta accepted them, and the eight Meta failed
 * afterwards (undeliverable) were refunded once both had happened.
 */
async function chargeSeededMessages(organizationId: string, step: (at: Date, run: () => Promise<unknown>) => void) {
  const rows = await rawQuery<{
    id: string;
    createdAt: string;
    campaign_id: string | null;
    recipient_phone: string;
    accepted_at: Date | string;
    failed_at: Date | string | null;
  }>(
    `select id, created_at::text as "createdAt", campaign_id, recipient_phone, accepted_at, failed_at from messages
     where organization_id = $1 and direction = 'outbound' and message_type = 'template' and accepted_at is not null
     order by accepted_at, id`,
    [organizationId],
  );
  const time = (value: Date | string) => new Date(value).getTime();
  const batches: (typeof rows)[] = [];
  for (const row of rows) {
    const last = batches.at(-1);
    const together = row.campaign_id
      ? last && last.length < FEED_BATCH && last[0]!.campaign_id === row.campaign_id
      : last && !last[0]!.campaign_id && apiMonth(last[0]!.accepted_at) === apiMonth(row.accepted_at);
    if (together) last!.push(row);
    else batches.push([row]);
  }
  for (const batch of batches) {
    const keys = batch.map((m) => ({ id: m.id, createdAt: m.createdAt }));
    const first = time(batch[0]!.accepted_at);
    const last = time(batch.at(-1)!.accepted_at);
    step(new Date(first - 1000), () =>
      db().transaction(async (tx) => {
        const price = await sendPrice(tx, organizationId);
        const campaignId = batch[0]!.campaign_id;
        const held = await holdForQueued(tx, price, {
          organizationId,
          count: batch.length,
          campaignId,
          description: campaignId
            ? `${batch.length} message${batch.length === 1 ? "" : "s"} of a campaign queued`
            : batch.length === 1
              ? `A message to ${batch[0]!.recipient_phone} queued`
              : `${batch.length} messages queued through the API`,
        });
        if (held < batch.length) throw new Error("The demo wallet cannot hold its messages' prices.");
        const charge = chargeColumns(price);
        await tx.execute(sqlUpdateCharge(keys, charge.priceCents, charge.chargeState));
      }),
    );
    step(new Date(last + 500), () => db().transaction((tx) => chargeAccepted(tx, keys)));
    const failed = batch.filter((m) => m.failed_at);
    if (failed.length)
      step(new Date(Math.max(last + 500, ...failed.map((m) => time(m.failed_at!))) + 500), () =>
        db().transaction((tx) =>
          settleFailed(
            tx,
            failed.map((m) => ({ id: m.id, createdAt: m.createdAt })),
          ),
        ),
      );
  }
}

/**
 * The API's messages (the analytics history's among them) are held and charged one by one as they
 * are sent; the seed sums a Nairobi month's into one hold and one charge (so a batch never straddles
 * the move to prepaid), which keeps the ledger short and the seed quick.
 */
function apiMonth(acceptedAt: Date | string) {
  return nairobiDate(new Date(acceptedAt)).slice(0, 7);
}

function sqlUpdateCharge(keys: MessageKey[], priceCents: number | null, chargeState: string) {
  return sql`update messages m set price_cents = ${priceCents}, charge_state = ${chargeState}
             from ${messageKeyTable(keys)} where m.id = k.id and m.created_at = k.created_at`;
}

/**
 * An M-Pesa receipt as Safaricom writes them: a letter for the year (S for 2024), one for the month,
 * one for the day, then seven more ("UKO4X7QW2P").
 */
function mpesaReceipt(at: Date, tail: string) {
  const [year, month, day] = nairobiDate(at).split("-").map(Number) as [number, number, number];
  const letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
  const dayMark = "123456789ABCDEFGHIJKLMNOPQRSTUVW"[day - 1]!;
  return `${letters[(18 + year - 2024) % 26]}${letters[month - 1]}${dayMark}${tail}`;
}

/** An M-Pesa Express prompt the owner approved at `at`: pending with Daraja's ids, then completed by its callback. */
async function mpesaPayment(
  organizationId: string,
  ownerId: string,
  amountCents: number,
  at: Date,
  tail: string,
  invoiceId: string | null = null,
) {
  const receipt = mpesaReceipt(at, tail);
  const { payment } = await createPayment(db(), {
    organizationId,
    method: "mpesa",
    amountCents,
    invoiceId,
    phone: PHONE,
    callbackSecretHash: callbackSecret().hash,
    createdBy: ownerId,
  });
  // Daraja's ids: ws_CO_ with the Nairobi time of the push (DDMMYYYYHHmmss), and its merchant request id.
  const t = new Date(at.getTime() + 3 * 3_600_000).toISOString();
  const digits = [...tail].map((c) => c.charCodeAt(0) % 10).join("");
  await rawQuery(`update payments set checkout_request_id = $2, merchant_request_id = $3 where id = $1`, [
    payment.id,
    `ws_CO_${t.slice(8, 10)}${t.slice(5, 7)}${t.slice(0, 4)}${t.slice(11, 13)}${t.slice(14, 16)}${t.slice(17, 19)}${digits.slice(0, 3)}${PHONE.slice(3)}`,
    `${digits.slice(0, 5)}-${digits}${digits.slice(0, 1)}-1`,
  ]);
  await completePayment(payment.id, { receipt, via: "M-Pesa" });
}

/** A payment to the paybill with the Sacco's business id as the account number (Safaricom masks the payer's number). */
async function paybillPayment(organizationId: string, businessId: string, amountCents: number, transId: string) {
  const { payment } = await createPayment(db(), {
    organizationId,
    method: "c2b",
    amountCents,
    phone: "254722***002",
    reference: businessId,
  });
  await completePayment(payment.id, { receipt: transId, via: "M-Pesa paybill" });
}

/**
 * A payment by `method` that reached Jumbe (created, then completed as its confirmation completes it:
 * the wallet credited, its document issued, an open postpaid invoice paid). For the console's other
 * tenants, whose payments need no Daraja ids.
 */
export async function seedPayment(
  organizationId: string,
  method: "mpesa" | "c2b" | "card",
  amountCents: number,
  options: { invoiceId?: string | null; receipt: string; createdBy?: string | null },
) {
  const { payment } = await createPayment(db(), {
    organizationId,
    method,
    amountCents,
    invoiceId: options.invoiceId ?? null,
    reference: method === "card" ? options.receipt : null,
    createdBy: options.createdBy ?? null,
  });
  const via = method === "card" ? "Paystack" : method === "c2b" ? "M-Pesa paybill" : "M-Pesa";
  await completePayment(payment.id, { receipt: method === "card" ? null : options.receipt, via });
  return payment;
}

/** A card payment through Paystack's checkout, confirmed by its verification. */
async function cardPayment(organizationId: string, ownerId: string, amountCents: number, reference: string) {
  const { payment } = await createPayment(db(), { organizationId, method: "card", amountCents, reference, createdBy: ownerId });
  await completePayment(payment.id, { receipt: null, via: "Paystack" });
}

/**
 * Moves what one step wrote back to when it happened: every row of it (written after `since`, for
 * whichever organisation) is shifted by the same amount, so their order and the gaps between them
 * stay. Its notifications were read long ago and e-mail nobody now. Answers the time the next step's
 * rows start from.
 */
async function moveBack(since: string, at: Date) {
  const [moved] = await rawQuery<{ now: string }>(
    `with shift as (select $1::timestamptz - $2::timestamptz as by),
     p as (update payments set created_at = created_at - (select by from shift), completed_at = completed_at - (select by from shift)
           where created_at >= $1 returning 1),
     p2 as (update payments set completed_at = completed_at - (select by from shift)
            where created_at < $1 and completed_at >= $1 returning 1),
     w as (update wallet_entries set created_at = created_at - (select by from shift) where created_at >= $1 returning 1),
     i as (update invoices set
             issued_at = case when issued_at >= $1 then issued_at - (select by from shift) else issued_at end,
             due_at = case when issued_at >= $1 then due_at - (select by from shift) else due_at end,
             paid_at = case when paid_at >= $1 then paid_at - (select by from shift) else paid_at end
           where (issued_at >= $1 or paid_at >= $1) returning 1),
     d as (update invoice_disputes set created_at = created_at - (select by from shift) where created_at >= $1 returning 1),
     n as (update notifications set created_at = created_at - (select by from shift),
             read_at = created_at - (select by from shift) + interval '2 hours'
           where created_at >= $1 returning id),
     j as (delete from jobs where queue = $3 and payload ->> 'notificationId' in (select id::text from n) returning 1),
     a as (update activity_logs set created_at = created_at - (select by from shift) where created_at >= $1 returning 1)
     select (select count(*) from p) + (select count(*) from p2) + (select count(*) from w) + (select count(*) from i) + (select count(*) from d)
            + (select count(*) from j) + (select count(*) from a) as moved, clock_timestamp()::text as now`,
    [since, at.toISOString(), NOTIFICATION_MAIL_QUEUE],
  );
  // Where the next step's rows begin.
  return moved!.now;
}

/**
 * Documents issued now but dated in an earlier year (a seed started in January moves top-ups into
 * December) take that year's numbers: each series is numbered again in issue order within each
 * Nairobi year, and the counters follow, so the numbers stay gapless. Nothing changes in any other
 * month. The seed runs on an empty database, so these are all the invoices there are: the demo
 * Sacco's, and the other tenants' the admin console's seed adds (it numbers them all again after).
 */
export async function numberInIssueOrder() {
  const rows = await rawQuery<{ id: string; series: string; number: string; issued_at: Date | string }>(
    `select id, series, number, issued_at from invoices order by issued_at, number`,
  );
  const last = new Map<string, number>();
  const renumbered = rows.map((row) => {
    const key = `${row.series}-${nairobiDate(new Date(row.issued_at)).slice(0, 4)}`;
    last.set(key, (last.get(key) ?? 0) + 1);
    return { ...row, wanted: `${key}-${String(last.get(key)).padStart(6, "0")}` };
  });
  if (renumbered.every((r) => r.number === r.wanted)) return;
  await db().transaction(async (tx) => {
    for (const row of renumbered) await tx.execute(sql`update invoices set number = ${`renumbering-${row.id}`} where id = ${row.id}`);
    for (const row of renumbered) await tx.execute(sql`update invoices set number = ${row.wanted} where id = ${row.id}`);
    await tx.execute(sql`delete from invoice_counters where series in ('INV', 'RCT', 'CRN')`);
    for (const [key, count] of last) {
      const [series, year] = key.split("-") as [string, string];
      await tx.execute(sql`insert into invoice_counters (series, year, last) values (${series}, ${Number(year)}, ${count})`);
    }
  });
}
