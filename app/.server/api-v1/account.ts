import { rawQuery } from "../db/client";
import { messagesUsedThisMonthSql } from "../billing/month-usage";

interface AccountRow {
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
 * The organisation of an API key with the messages it has used this Africa/Nairobi month, in one
 * statement: `GET /api/v1/account` answers with this alone. The count is the Billing page's and
 * `/api/auth/me`'s (messagesUsedThisMonthSql).
 */
export async function accountSummary(organizationId: string) {
  const [row] = await rawQuery<AccountRow>(
    `select o.id, o.name, o.business_id, o.status, o.plan_type, o.billing_type, o.message_limit, w.balance_cents, w.held_cents,
       ${messagesUsedThisMonthSql("o.id")} as sent
     from organizations o left join wallets w on w.organization_id = o.id where o.id = $1`,
    [organizationId],
  );
  if (!row) return undefined;
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
