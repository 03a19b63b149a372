import { rawQuery } from "../../infrastructure/db/client";
import { messagesUsedThisMonthSql } from "../../domains/billing/month-usage";

/** What accountSummarySql reads, in its JSON value's keys. */
export interface AccountSummaryRow {
  id: string;
  name: string;
  business_id: string;
  status: "pending" | "active" | "suspended";
  plan_type: string;
  billing_type: string;
  message_limit: number;
  sent: string | number;
  balance_cents: string | number | null;
  held_cents: string | number | null;
}

/**
 * The organisation `organizationExpr` names with its wallet and the messages it has used this
 * Africa/Nairobi month, as one JSON value: `GET /api/v1/account` answers with this alone, read in
 * the API key's own statement (the endpoint's `prefetch`). The count is the Billing page's and
 * `/api/auth/me`'s (messagesUsedThisMonthSql).
 */
export function accountSummarySql(organizationExpr: string) {
  return `(select json_build_object('id', o.id, 'name', o.name, 'business_id', o.business_id, 'status', o.status,
             'plan_type', o.plan_type, 'billing_type', o.billing_type, 'message_limit', o.message_limit,
             'balance_cents', w.balance_cents, 'held_cents', w.held_cents, 'sent', ${messagesUsedThisMonthSql("o.id")})
           from organizations o left join wallets w on w.organization_id = o.id where o.id = ${organizationExpr})`;
}

/** The account summary of `organizationId` on its own statement (see accountSummarySql). */
export async function accountSummary(organizationId: string) {
  const [row] = await rawQuery<{ account: AccountSummaryRow | null }>(`select ${accountSummarySql("$1")} as account`, [organizationId]);
  return row?.account ? toAccountSummary(row.account) : undefined;
}

/** What accountSummarySql read, as the API answers it. */
export function toAccountSummary(row: AccountSummaryRow) {
  const sent = Number(row.sent);
  return {
    organization: { id: row.id, name: row.name, businessId: row.business_id, status: row.status },
    plan: { type: row.plan_type, billingType: row.billing_type, messageLimit: row.message_limit },
    wallet: {
      balanceCents: Number(row.balance_cents ?? 0),
      availableCents: Number(row.balance_cents ?? 0) - Number(row.held_cents ?? 0),
      currency: "KES" as const,
    },
    usage: {
      messagesThisMonth: sent,
      messageLimit: row.message_limit,
      percentUsed: row.message_limit ? Math.min(100, Math.round((sent / row.message_limit) * 1000) / 10) : 0,
    },
  };
}
