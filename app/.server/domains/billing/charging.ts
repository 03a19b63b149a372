import { messagesUsedThisMonthSql } from "./month-usage";
import { sql } from "drizzle-orm";
import { changeWallet, holdForMessages } from "./ledger";
import { formatKes } from "~/lib/invoice";
import type { BillingType } from "../../infrastructure/db/schema/billing";
import { queryRows } from "../../infrastructure/db/query";
import { distinctMessageKeys, messageKeyTable, type MessageKey } from "../../infrastructure/db/message-keys";
import type { Executor } from "../../infrastructure/db/client";
import { m } from "~/paraglide/messages";

/**
 * Charging wired into the sending engine (decision 035). A template message of a prepaid
 * organisation holds its price when it is queued, is charged when Meta accepts it and is released
 * when it fails before; one Meta fails after accepting it is refunded (Meta does not bill it). A
 * postpaid one is "unbilled" until accepted, then counted as usage for the monthly invoice. Each
 * step is guarded by the message's charge_state, so a retry, a second webhook or a second worker
 * never charges or refunds twice.
 */

export interface SendPrice {
  billingType: BillingType;
  /** What one template message costs this organisation now (prepaid: from the wallet; postpaid: the overage price). */
  priceCents: number;
}

/** The plain sentence a member reads when the wallet cannot pay for a send (English: see insufficientBalanceText). */
export const INSUFFICIENT_BALANCE_TEXT =
  "Your wallet balance is too low to send this message. Top up on the Billing page, then send it again.";

/** The same sentence in the request's language: what a refusal to a member says. */
export const insufficientBalanceText = () => m.billing_refusal_insufficient_balance();

/**
 * Why a campaign paused itself when the wallet ran dry: a top-up resumes the campaigns paused with exactly this.
 * Pages put "Paused: " before a reason, so the reason does not say it again.
 */
export const WALLET_EMPTY_PAUSE = "The wallet ran out of money. It resumes by itself after a top-up covers the next messages.";
/** The same reason as stored before it lost its own "Paused: ": campaigns paused then still resume. */
export const WALLET_EMPTY_PAUSE_BEFORE =
  "Paused: the wallet ran out of money. It resumes by itself after a top-up covers the next messages.";

/** The organisation's price for a template message (its plan and billing type; the organisation row is not locked). */
export async function sendPrice(tx: Executor, organizationId: string): Promise<SendPrice> {
  const result = await queryRows<{ billing_type: string; price: number | string }>(
    tx,
    sql`
    select o.billing_type, coalesce(p.message_price_cents, 200) as price
    from organizations o left join billing_plans p on p.code = lower(o.plan_type) and p.billing_type = o.billing_type
    where o.id = ${organizationId}`,
  );
  const row = result[0];
  return { billingType: row?.billing_type === "prepaid" ? "prepaid" : "postpaid", priceCents: Number(row?.price ?? 200) };
}

/**
 * Holds the price of `count` template messages about to be queued. Prepaid: as many as the wallet
 * covers (the answer); postpaid: all of them, nothing held. The caller stores the messages with
 * chargeColumns(price).
 */
export async function holdForQueued(
  tx: Executor,
  price: SendPrice,
  hold: { organizationId: string; count: number; campaignId?: string | null; description: string },
) {
  if (price.billingType === "postpaid") return hold.count;
  return holdForMessages(tx, { ...hold, priceCents: price.priceCents });
}

/** The charge columns of a queued template message. */
export function chargeColumns(price: SendPrice) {
  return price.billingType === "prepaid"
    ? { priceCents: price.priceCents, chargeState: "held" as const }
    : { priceCents: null, chargeState: "unbilled" as const };
}

interface Settled {
  organization_id: string;
  phone_number_id: string;
  category: string;
  day: string;
  n: number | string;
  cents: number | string;
}

/**
 * Messages Meta accepted: held prices become charges, postpaid messages count as usage, and the
 * day's usage by number and category grows. Messages already charged are left alone.
 */
export async function chargeAccepted(tx: Executor, messages: readonly MessageKey[]) {
  if (!messages.length) return;
  const result = await queryRows<Settled>(
    tx,
    sql`
    with settled as (
      update messages m set charge_state = case m.charge_state when 'held' then 'charged' else 'counted' end
      from ${messageKeyTable(distinctMessageKeys(messages))}
      where m.id = k.id and m.created_at = k.created_at and m.charge_state in ('held', 'unbilled') and m.accepted_at is not null
      returning m.organization_id, m.phone_number_id, coalesce(lower(m.pricing_category), 'marketing') as category,
                (m.accepted_at at time zone 'Africa/Nairobi')::date::text as day,
                case when m.charge_state = 'charged' then m.price_cents else 0 end as cents)
    select organization_id, phone_number_id, category, day, count(*) as n, sum(cents) as cents
    from settled group by 1, 2, 3, 4`,
  );
  if (!result.length) return;
  await addUsage(tx, result, 1);
  for (const [organizationId, { n, cents }] of byOrganisation(result)) {
    if (!cents) continue;
    const entry = await changeWallet(tx, {
      organizationId,
      kind: "charge",
      amountCents: -cents,
      heldCents: -cents,
      messageCount: n,
      description: `${n} message${n === 1 ? "" : "s"} sent, ${formatKes(cents)}`,
    });
    // A held price is always there to charge (the check keeps held within the balance).
    if (!entry) throw new Error(`The wallet of ${organizationId} holds less than its messages' charge.`);
  }
}

/**
 * Messages that failed: a held price is released, a charge refunded, postpaid usage taken back.
 */
export async function settleFailed(tx: Executor, messages: readonly MessageKey[]) {
  if (!messages.length) return;
  const result = await queryRows<Settled & { was: string }>(
    tx,
    sql`
    with before as (
      select m.id, m.created_at, m.charge_state from messages m join ${messageKeyTable(distinctMessageKeys(messages))}
        on m.id = k.id and m.created_at = k.created_at
      where m.charge_state in ('held', 'unbilled', 'charged', 'counted')
      for update of m),
    settled as (
      update messages m set charge_state = case when before.charge_state in ('held', 'unbilled') then 'released' else 'refunded' end
      from before where m.id = before.id and m.created_at = before.created_at
      returning m.organization_id, m.phone_number_id, coalesce(lower(m.pricing_category), 'marketing') as category,
                (m.accepted_at at time zone 'Africa/Nairobi')::date::text as day, before.charge_state as was, coalesce(m.price_cents, 0) as price)
    select organization_id, phone_number_id, category, day, was, count(*) as n, sum(price) as cents
    from settled group by 1, 2, 3, 4, 5`,
  );
  if (!result.length) return;
  // Usage counted when accepted is taken back (charged and counted ones).
  await addUsage(
    tx,
    result.filter((r) => r.was === "charged" || r.was === "counted").map((r) => ({ ...r, cents: r.was === "charged" ? r.cents : 0 })),
    -1,
  );
  for (const was of ["held", "charged"] as const) {
    for (const [organizationId, { n, cents }] of byOrganisation(result.filter((r) => r.was === was))) {
      if (!cents) continue;
      const entry = await changeWallet(tx, {
        organizationId,
        kind: was === "held" ? "release" : "refund",
        amountCents: was === "held" ? 0 : cents,
        heldCents: was === "held" ? -cents : 0,
        messageCount: n,
        description:
          was === "held"
            ? `${n} message${n === 1 ? "" : "s"} not sent: ${formatKes(cents)} released`
            : `${n} message${n === 1 ? "" : "s"} failed after sending: ${formatKes(cents)} refunded`,
      });
      if (!entry) throw new Error(`The wallet of ${organizationId} could not take back its messages' hold.`);
    }
  }
}

function byOrganisation(rows: Settled[]) {
  const totals = new Map<string, { n: number; cents: number }>();
  for (const row of rows) {
    const total = totals.get(row.organization_id) ?? { n: 0, cents: 0 };
    total.n += Number(row.n);
    total.cents += Number(row.cents);
    totals.set(row.organization_id, total);
  }
  return totals;
}

/**
 * Adds (sign 1) or takes back (sign −1) messages and spend on the usage rollup: as pending rows the
 * usage fold adds in (decision 173), so that a charge never waits for another charge's commit.
 */
async function addUsage(tx: Executor, rows: Settled[], sign: 1 | -1) {
  const usable = rows.filter((r) => r.day);
  if (!usable.length) return;
  await tx.execute(sql`
    insert into billing_usage_pending (organization_id, day, phone_number_id, category, messages, amount_cents)
    select u.organization_id, u.day, u.phone_number_id, u.category, u.n * ${sign}, u.cents * ${sign}
    from unnest(${sql.param(usable.map((r) => r.organization_id))}::uuid[], ${sql.param(usable.map((r) => r.day))}::date[],
                ${sql.param(usable.map((r) => r.phone_number_id ?? ""))}::text[], ${sql.param(usable.map((r) => r.category))}::text[],
                ${sql.param(usable.map((r) => Number(r.n)))}::int[], ${sql.param(usable.map((r) => Number(r.cents)))}::bigint[])
         as u(organization_id, day, phone_number_id, category, n, cents)`);
}

/**
 * What sending to `recipients` people will cost this organisation, as the campaign review shows it:
 * prepaid, the plan's price a message from the wallet; postpaid, only the messages beyond what the
 * plan still includes this month, at its overage price.
 */
export async function estimateSendCost(executor: Executor, organizationId: string, recipients: number) {
  const price = await sendPrice(executor, organizationId);
  const perMessageKes = price.priceCents / 100;
  if (price.billingType === "prepaid")
    return { billingType: price.billingType, totalCents: recipients * price.priceCents, perMessageKes, includedLeft: null };
  const result = await queryRows<{ included: number | string; used: number | string }>(
    executor,
    sql`
    select coalesce(p.included_messages, 0) as included,
           ${sql.raw(messagesUsedThisMonthSql("o.id"))} as used
    from organizations o left join billing_plans p on p.code = lower(o.plan_type) and p.billing_type = o.billing_type
    where o.id = ${organizationId}`,
  );
  const row = result[0];
  const includedLeft = Math.max(0, Number(row?.included ?? 0) - Number(row?.used ?? 0));
  return {
    billingType: price.billingType,
    totalCents: Math.max(0, recipients - includedLeft) * price.priceCents,
    perMessageKes,
    includedLeft,
  };
}
