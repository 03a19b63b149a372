import { sql } from "drizzle-orm";
import { db, type Executor } from "../../infrastructure/db/client";
import { queryRows } from "../../infrastructure/db/query";
import type { CurrentUser } from "../auth";
import type { RequestMeta } from "../../infrastructure/http/request-meta";
import type { PlatformScope } from "../../infrastructure/db/scope";
import { isUuid } from "../../infrastructure/db/keyset";

/**
 * The admin audit log (decision 037): every administrator action, written in the action's own
 * transaction (pass `tx`), so an action is never done without its record nor recorded without being
 * done. The table refuses updates and deletes (a trigger), so nobody can edit what it says.
 */
export interface AdminAction {
  /** A stable code: organization.suspend, organization.reactivate, wallet.adjust, invoice.reconcile... */
  action: string;
  organizationId?: string | null;
  targetType:
    | "organization"
    | "user"
    | "invoice"
    | "dispute"
    | "wallet"
    | "whatsapp_account"
    | "template"
    | "alert"
    | "session"
    | "platform_setting"
    | "partner"
    | "partner_settlement"
    | "partner_referral_review"
    | "staff"
    | "staff_invitation";
  targetId?: string | null;
  reason?: string | null;
  before?: unknown;
  after?: unknown;
}

export async function recordAdminAction(executor: Executor, admin: Pick<CurrentUser, "user">, meta: RequestMeta, entry: AdminAction) {
  await executor.execute(sql`
    insert into admin_audit_log (admin_id, admin_email, action, organization_id, target_type, target_id, reason, before, after, ip_address, user_agent)
    values (${admin.user.id}, ${admin.user.email}, ${entry.action}, ${entry.organizationId ?? null}, ${entry.targetType},
            ${entry.targetId ?? null}, ${entry.reason ?? null},
            ${entry.before === undefined ? null : JSON.stringify(entry.before)}::jsonb,
            ${entry.after === undefined ? null : JSON.stringify(entry.after)}::jsonb,
            ${meta.ip || null}, ${meta.userAgent || null})`);
}

export interface AuditRecord {
  id: number;
  adminEmail: string;
  action: string;
  organizationId: string | null;
  organizationName: string | null;
  targetType: string;
  targetId: string | null;
  reason: string | null;
  before: unknown;
  after: unknown;
  ipAddress: string | null;
  userAgent: string | null;
  createdAt: string;
}

export const AUDIT_PAGE_SIZE = 50;

/** A page of the audit log, newest first (by id: records are numbered as written), optionally one organisation's. */
export async function adminAuditPage(
  _scope: PlatformScope,
  options: { organizationId?: string | null; cursor?: string | null; limit?: number } = {},
) {
  const limit = Math.min(options.limit ?? AUDIT_PAGE_SIZE, 200);
  const before = /^[1-9]\d{0,15}$/.test(options.cursor ?? "") ? Number(options.cursor) : null;
  const org = options.organizationId && isUuid(options.organizationId) ? options.organizationId : null;
  const rows = await queryRows<{
    id: number | string;
    admin_email: string;
    action: string;
    organization_id: string | null;
    organization_name: string | null;
    target_type: string;
    target_id: string | null;
    reason: string | null;
    before: unknown;
    after: unknown;
    ip_address: string | null;
    user_agent: string | null;
    created_at: string | Date;
  }>(
    db(),
    sql`
    select a.id, a.admin_email, a.action, a.organization_id, o.name as organization_name, a.target_type, a.target_id,
           a.reason, a.before, a.after, a.ip_address, a.user_agent, a.created_at
    from admin_audit_log a left join organizations o on o.id = a.organization_id
    where true
      ${org ? sql`and a.organization_id = ${org}` : sql``}
      ${before ? sql`and a.id < ${before}` : sql``}
    order by a.id desc
    limit ${limit + 1}`,
  );
  const records: AuditRecord[] = rows.slice(0, limit).map((r) => ({
    id: Number(r.id),
    adminEmail: r.admin_email,
    action: r.action,
    organizationId: r.organization_id,
    organizationName: r.organization_name,
    targetType: r.target_type,
    targetId: r.target_id,
    reason: r.reason,
    before: typeof r.before === "string" ? JSON.parse(r.before) : r.before,
    after: typeof r.after === "string" ? JSON.parse(r.after) : r.after,
    ipAddress: r.ip_address,
    userAgent: r.user_agent,
    createdAt: new Date(r.created_at).toISOString(),
  }));
  const last = records.at(-1);
  return { records, next: rows.length > limit && last ? String(last.id) : null };
}

/** How many audit records an action left (tests, and the user detail's history count). */
export async function countAdminActions(action: string, targetId?: string) {
  const [row] = await queryRows<{ n: number }>(
    db(),
    sql`select count(*)::int as n from admin_audit_log where action = ${action} ${targetId ? sql`and target_id = ${targetId}` : sql``}`,
  );
  return Number(row?.n ?? 0);
}
