import { sql } from "drizzle-orm";
import { db, rawQuery } from "../../infrastructure/db/client";
import { queryRows } from "../../infrastructure/db/query";
import { recordActivity, billingTypeInWords } from "../activity";
import { BILLING_TYPES, PLAN_CODES, type BillingType, type PlanCode } from "../../infrastructure/db/schema/billing";
import { normaliseMpesaPhone } from "../../infrastructure/clients/daraja";
import { TOPUP_MAX_KES, TOPUP_MIN_KES } from "./payments";
import { periodAt } from "./periods";
import { englishOf, words } from "../../infrastructure/words/said";
import { Refusal } from "../../infrastructure/refusal";
import { formatNumber } from "~/lib/dates";
import { m } from "~/paraglide/messages";

/**
 * What an owner or admin changes on /billing: the plan (from the next period), the wallet's alerts,
 * and disputes of invoices (decision 035). Each refuses bad input with the field and changes nothing.
 */
export interface Actor {
  organizationId: string;
  userId: string | null;
}

export const refuseBilling = (status: 400 | 404 | 409 | 422, code: string, message: string, field?: string) =>
  new Refusal({ domain: "billing", status, code, message, field });

export interface PlanRow {
  code: PlanCode;
  billingType: BillingType;
  name: string;
  messageLimit: number;
  monthlyFeeCents: number;
  includedMessages: number;
  messagePriceCents: number;
  pricesIncludeVat: boolean;
}

/** The price list, cheapest plan first, prepaid before postpaid. */
export async function listPlans(): Promise<PlanRow[]> {
  const rows = await rawQuery<{
    code: PlanCode;
    billing_type: BillingType;
    name: string;
    message_limit: number;
    monthly_fee_cents: number | string;
    included_messages: number;
    message_price_cents: number;
    prices_include_vat: boolean;
  }>(`select * from billing_plans order by sort, billing_type desc`);
  return rows.map((r) => ({
    code: r.code,
    billingType: r.billing_type,
    name: r.name,
    messageLimit: r.message_limit,
    monthlyFeeCents: Number(r.monthly_fee_cents),
    includedMessages: r.included_messages,
    messagePriceCents: r.message_price_cents,
    pricesIncludeVat: r.prices_include_vat,
  }));
}

/**
 * Asks for another plan or billing type from the start of the next period (the 1st, Nairobi time).
 * Asking for the current one cancels a pending change.
 */
export async function changePlan(actor: Actor, input: { plan: unknown; billingType: unknown }, now = new Date()) {
  const code = typeof input.plan === "string" ? input.plan.toLowerCase() : "";
  const billingType = typeof input.billingType === "string" ? input.billingType : "";
  if (!(PLAN_CODES as readonly string[]).includes(code)) throw refuseBilling(422, "invalid_plan", m.billing_refusal_choose_plan(), "plan");
  if (!(BILLING_TYPES as readonly string[]).includes(billingType))
    throw refuseBilling(422, "invalid_billing_type", m.billing_refusal_choose_billing_type(), "billingType");
  const [plan] = await rawQuery<{ name: string }>(`select name from billing_plans where code = $1 and billing_type = $2`, [
    code,
    billingType,
  ]);
  if (!plan) throw refuseBilling(422, "invalid_plan", m.billing_refusal_plan_not_offered(), "plan");
  const from = periodAt(now).next;
  const [org] = await rawQuery<{ plan_type: string; billing_type: string }>(
    `update organizations o set
       next_plan_type = case when lower(o.plan_type) = $2 and o.billing_type = $3 then null else $4 end,
       next_billing_type = case when lower(o.plan_type) = $2 and o.billing_type = $3 then null else $3 end,
       next_plan_from = case when lower(o.plan_type) = $2 and o.billing_type = $3 then null else $5::date end,
       updated_at = now()
     where o.id = $1 returning o.plan_type, o.billing_type`,
    [actor.organizationId, code, billingType, plan.name, from],
  );
  if (!org) throw refuseBilling(404, "not_found", m.billing_refusal_not_found());
  const same = org.plan_type.toLowerCase() === code && org.billing_type === billingType;
  await recordActivity({
    organizationId: actor.organizationId,
    userId: actor.userId,
    type: "billing",
    status: "success",
    action: same ? "Plan change cancelled" : "Plan change requested",
    // The plan's name is data; its billing type and the day are said in the log's reader's language.
    details: englishOf(
      same
        ? words("app_activity_detail_plan_staying", { plan: org.plan_type, type: billingTypeInWords(org.billing_type) })
        : words("app_activity_detail_plan_from", { plan: plan.name, type: billingTypeInWords(billingType), day: { day: from } }),
    ),
  });
  return { plan: plan.name, billingType: billingType as BillingType, from: same ? null : from };
}

/** "<label>: enter whole shillings from KES 10 to KES 250,000, or leave it empty." (without the last part for a field that must be filled). */
const amountFieldWords = (label: string, optional = true) => {
  const words = { label, min: formatNumber(TOPUP_MIN_KES), max: formatNumber(TOPUP_MAX_KES) };
  return optional ? m.billing_refusal_alert_amount_optional(words) : m.billing_refusal_alert_amount_required(words);
};

function optionalShillings(value: unknown, label: string, field: string, min = 0): number | null {
  const text = typeof value === "string" ? value.trim().replace(/,/g, "") : value === undefined || value === null ? "" : String(value);
  if (!text) return null;
  if (!/^\d{1,7}$/.test(text) || Number(text) < min || Number(text) > TOPUP_MAX_KES)
    throw refuseBilling(422, "invalid_amount", amountFieldWords(label), field);
  return Number(text) * 100;
}

export interface WalletAlertsInput {
  lowBalance: unknown;
  autoTopupBelow: unknown;
  autoTopupAmount: unknown;
  autoTopupPhone: unknown;
}

/** The low-balance alert and the automatic M-Pesa prompt (both optional; empty turns them off). */
export async function saveWalletAlerts(actor: Actor, input: WalletAlertsInput) {
  const low = optionalShillings(input.lowBalance, m.billing_refusal_field_low_balance(), "lowBalance");
  const below = optionalShillings(input.autoTopupBelow, m.billing_refusal_field_prompt_below(), "autoTopupBelow");
  const amount = optionalShillings(input.autoTopupAmount, m.billing_refusal_field_prompt_amount(), "autoTopupAmount", TOPUP_MIN_KES);
  const phoneText = typeof input.autoTopupPhone === "string" ? input.autoTopupPhone.trim() : "";
  let phone: string | null = null;
  if (below !== null || amount !== null || phoneText) {
    if (below === null) throw refuseBilling(422, "invalid_amount", m.billing_refusal_prompt_below_missing(), "autoTopupBelow");
    if (amount === null)
      throw refuseBilling(422, "invalid_amount", amountFieldWords(m.billing_refusal_field_prompt_amount(), false), "autoTopupAmount");
    phone = normaliseMpesaPhone(phoneText);
    if (!phone) throw refuseBilling(422, "invalid_phone", m.billing_refusal_prompt_phone(), "autoTopupPhone");
  }
  await db().execute(sql`
    update wallets set low_balance_threshold_cents = ${low}, auto_topup_threshold_cents = ${below}, auto_topup_amount_cents = ${amount},
           auto_topup_phone = ${phone}, low_balance_notified_at = null, auto_topup_requested_at = null, updated_at = now()
    where organization_id = ${actor.organizationId}`);
  await recordActivity({
    organizationId: actor.organizationId,
    userId: actor.userId,
    type: "billing",
    status: "success",
    action: "Wallet alerts saved",
    // Amounts as inputs: the English stored is English whatever the language of the request that saved them.
    details: englishOf(
      below === null
        ? low === null
          ? words("app_activity_detail_wallet_alerts_none")
          : words("app_activity_detail_wallet_alerts_low", { low: { kes: low } })
        : words(low === null ? "app_activity_detail_wallet_alerts_prompt" : "app_activity_detail_wallet_alerts_both", {
            ...(low === null ? {} : { low: { kes: low } }),
            amount: { kes: amount! },
            phone: phone!,
            below: { kes: below },
          }),
    ),
  });
  return { lowBalanceCents: low, autoTopupBelowCents: below, autoTopupAmountCents: amount, autoTopupPhone: phone };
}

export const DISPUTE_REASON_MAX = 1000;

/** Disputes one of the organisation's invoices with a reason; a platform administrator resolves it. */
export async function disputeInvoice(actor: Actor, invoiceId: string, reason: unknown) {
  const text = typeof reason === "string" ? reason.trim() : "";
  if (text.length < 10) throw refuseBilling(422, "invalid_reason", m.billing_refusal_dispute_reason_short(), "reason");
  if (text.length > DISPUTE_REASON_MAX)
    throw refuseBilling(422, "invalid_reason", m.billing_refusal_dispute_reason_long({ max: String(DISPUTE_REASON_MAX) }), "reason");
  if (!/^[0-9a-f-]{36}$/i.test(invoiceId)) throw refuseBilling(404, "not_found", m.billing_refusal_not_found());
  const outcome = await db().transaction(async (tx) => {
    const found = await queryRows<{ id: string; number: string; status: string; kind: string }>(
      tx,
      sql`
      select id, number, status, kind from invoices where id = ${invoiceId} and organization_id = ${actor.organizationId} for update`,
    );
    const invoice = found[0];
    if (!invoice) throw refuseBilling(404, "not_found", m.billing_refusal_not_found());
    if (invoice.status === "disputed") throw refuseBilling(409, "already_disputed", m.billing_refusal_already_disputed());
    if (invoice.kind === "credit_note") throw refuseBilling(409, "credit_note", m.billing_refusal_credit_note());
    if (invoice.status === "void") throw refuseBilling(409, "invoice_void", m.billing_refusal_invoice_void());
    await tx.execute(sql`
      insert into invoice_disputes (organization_id, invoice_id, reason, previous_status, raised_by)
      values (${actor.organizationId}, ${invoice.id}, ${text}, ${invoice.status}, ${actor.userId})`);
    await tx.execute(sql`update invoices set status = 'disputed' where id = ${invoice.id}`);
    return invoice;
  });
  await recordActivity({
    organizationId: actor.organizationId,
    userId: actor.userId,
    type: "billing",
    status: "warning",
    action: "Invoice disputed",
    details: `${outcome.number}: ${text}`,
  });
  return { number: outcome.number };
}
