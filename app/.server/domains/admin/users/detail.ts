import { sql } from "drizzle-orm";
import { db } from "../../../infrastructure/db/client";
import { queryRows } from "../../../infrastructure/db/query";
import { isUuid } from "../../../infrastructure/db/keyset";
import type { PlatformScope } from "../../../infrastructure/db/scope";
import { adminAuditPage } from "../audit";
import { isTenant } from "./tenants";
import { messagesUsedThisMonthSql } from "../../billing";

export interface TenantDetail {
  id: string;
  name: string;
  businessId: string;
  plan: string;
  billingType: string;
  /** The limit in force: the plan's, or the override. */
  messageLimit: number;
  /** The plan's limit for its billing type (the price list). */
  planMessageLimit: number;
  /** An administrator's override of the plan's limit, with its reason; null when the plan's applies. */
  limitOverride: { messages: number; reason: string } | null;
  status: "active" | "pending" | "suspended";
  whatsappNumber: string | null;
  joinDate: string;
  suspendedAt: string | null;
  suspensionReason: string | null;
  closing: boolean;
  owner: { id: string; firstName: string; lastName: string; email: string; phoneNumber: string | null } | null;
}

const iso = (value: string | Date | null) => (value ? new Date(value).toISOString() : null);

/** A tenant organisation and its owner, or null for an unknown id or the platform's own organisation. */
export async function findTenant(_scope: PlatformScope, id: string): Promise<TenantDetail | null> {
  if (!isUuid(id)) return null;
  const [row] = await queryRows<{
    id: string;
    name: string;
    business_id: string;
    plan_type: string;
    billing_type: string;
    message_limit: number;
    plan_message_limit: number | null;
    message_limit_override: number | null;
    message_limit_override_reason: string | null;
    status: TenantDetail["status"];
    whatsapp_number: string | null;
    created_at: string | Date;
    suspended_at: string | Date | null;
    suspension_reason: string | null;
    closing: boolean;
    owner_id: string | null;
    first_name: string | null;
    last_name: string | null;
    email: string | null;
    phone_number: string | null;
  }>(
    db(),
    sql`
    select o.id, o.name, o.business_id, o.plan_type, o.billing_type, o.message_limit, o.status, o.whatsapp_number, o.created_at,
           o.message_limit_override, o.message_limit_override_reason,
           (select p.message_limit from billing_plans p where p.code = lower(o.plan_type) and p.billing_type = o.billing_type) as plan_message_limit,
           o.suspended_at, o.suspension_reason, o.closure_requested_at is not null as closing,
           u.id as owner_id, u.first_name, u.last_name, u.email, u.phone_number
    from organizations o left join users u on u.organization_id = o.id and u.org_role = 'owner'
    where o.id = ${id} and ${isTenant()}`,
  );
  if (!row) return null;
  return {
    id: row.id,
    name: row.name,
    businessId: row.business_id,
    plan: row.plan_type,
    billingType: row.billing_type,
    messageLimit: Number(row.message_limit),
    planMessageLimit: Number(row.plan_message_limit ?? row.message_limit),
    limitOverride:
      row.message_limit_override === null
        ? null
        : { messages: Number(row.message_limit_override), reason: row.message_limit_override_reason ?? "" },
    status: row.status,
    whatsappNumber: row.whatsapp_number,
    joinDate: iso(row.created_at)!,
    suspendedAt: iso(row.suspended_at),
    suspensionReason: row.suspension_reason,
    closing: row.closing,
    owner: row.owner_id
      ? { id: row.owner_id, firstName: row.first_name!, lastName: row.last_name!, email: row.email!, phoneNumber: row.phone_number }
      : null,
  };
}

/** What the detail view shows beside the organisation: members, usage, wallet, revenue, activity, audit records. */
export async function tenantActivity(scope: PlatformScope, id: string) {
  const [members, figures, activity, audit] = await Promise.all([
    queryRows<{
      id: string;
      first_name: string;
      last_name: string;
      email: string;
      org_role: string;
      last_login_at: string | Date | null;
    }>(
      db(),
      sql`
      select id, first_name, last_name, email, org_role, last_login_at from users where organization_id = ${id}
      order by (org_role = 'owner') desc, created_at limit 100`,
    ),
    queryRows<{
      used: number | string | null;
      balance: number | string | null;
      held: number | string | null;
      revenue: number | string | null;
    }>(
      db(),
      sql`
      select (select ${sql.raw(messagesUsedThisMonthSql("o.id"))} from organizations o where o.id = ${id}) as used,
             (select balance_cents from wallets where organization_id = ${id}) as balance,
             (select held_cents from wallets where organization_id = ${id}) as held,
             (select sum(amount_cents) from payments where organization_id = ${id} and status = 'completed') as revenue`,
    ),
    queryRows<{ id: number | string; type: string; status: string; action: string; details: string; created_at: string | Date }>(
      db(),
      sql`
      select id, type, status, action, details, created_at from activity_logs where organization_id = ${id}
      order by created_at desc nulls last, id desc nulls last limit 10`,
    ),
    adminAuditPage(scope, { organizationId: id, limit: 5 }),
  ]);
  const f = figures[0];
  return {
    members: members.map((m) => ({
      id: m.id,
      name: `${m.first_name} ${m.last_name}`.trim(),
      email: m.email,
      role: m.org_role,
      lastSignIn: iso(m.last_login_at),
    })),
    messagesUsed: Number(f?.used ?? 0),
    wallet: { balanceCents: Number(f?.balance ?? 0), heldCents: Number(f?.held ?? 0) },
    revenueCents: Number(f?.revenue ?? 0),
    activity: activity.map((a) => ({ ...a, id: Number(a.id), createdAt: iso(a.created_at)! })),
    audit: audit.records,
    moreAudit: !!audit.next,
  };
}
