import { sql, type SQL } from "drizzle-orm";
import { readDb } from "../../../infrastructure/db/client";
import { queryRows } from "../../../infrastructure/db/query";
import type { PlatformScope } from "../../../infrastructure/db/scope";
import { isTenant } from "./tenants";
import { messagesUsedThisMonthSql } from "../../billing";
import { nairobiDate } from "~/lib/dates";
import { USER_PLANS, USER_STATUSES } from "~/lib/admin-users";
import { m } from "~/paraglide/messages";

export { USER_PLANS, USER_STATUSES };

export const USER_SORTS = ["business", "plan", "status", "joined"] as const;
export const USERS_PAGE_SIZE = 20;
const QUERY_MAX = 100;

export type UserSort = (typeof USER_SORTS)[number];

export interface UserFilters {
  q: string;
  status: (typeof USER_STATUSES)[number] | null;
  plan: (typeof USER_PLANS)[number] | null;
  sort: UserSort;
  dir: "asc" | "desc";
  page: number;
}

/**
 * The Users tab's filters from the address. A value the page does not offer is a mistake in the
 * address: the problems are answered with the page (400) and that filter is left out.
 */
export function readUserFilters(params: URLSearchParams): { filters: UserFilters; problems: string[] } {
  const problems: string[] = [];
  const q = (params.get("q") ?? "").replace(/\s+/g, " ").trim();
  const pick = <T extends string>(name: string, allowed: readonly T[], problem: () => string): T | null => {
    const value = params.get(name);
    if (!value) return null;
    if ((allowed as readonly string[]).includes(value)) return value as T;
    problems.push(problem());
    return null;
  };
  const status = pick("status", USER_STATUSES, () => m.admin_users_problem_status());
  const plan = pick("plan", USER_PLANS, () => m.admin_users_problem_plan());
  const sort = pick("sort", USER_SORTS, () => m.admin_users_problem_sort()) ?? "joined";
  const dirParam = params.get("dir");
  if (dirParam && dirParam !== "asc" && dirParam !== "desc") problems.push(m.admin_users_problem_dir());
  const dir = dirParam === "asc" || dirParam === "desc" ? dirParam : sort === "joined" ? "desc" : "asc";
  const pageParam = params.get("page");
  let page = 1;
  if (pageParam) {
    if (/^[1-9]\d{0,5}$/.test(pageParam)) page = Number(pageParam);
    else problems.push(m.admin_users_problem_page());
  }
  if (q.length > QUERY_MAX) problems.push(m.admin_users_problem_query({ max: QUERY_MAX }));
  return { filters: { q: q.slice(0, QUERY_MAX), status, plan, sort, dir, page }, problems };
}

/** The search: business name, business id, a member's e-mail, or a phone number (the owner's or the WhatsApp number). */
function searchCondition(q: string): SQL {
  if (!q) return sql`true`;
  const like = `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  let digits = q.replace(/\D/g, "");
  if (digits.startsWith("0")) digits = `254${digits.slice(1)}`;
  // Members' numbers are stored as E.164 (+2547…); WhatsApp numbers as typed, so their spaces are dropped.
  // The members are read once into a hashed set of organisations, never once per organisation.
  const phone = digits.length >= 6;
  return sql`(o.name ilike ${like} or o.business_id ilike ${like}
              ${phone ? sql`or replace(coalesce(o.whatsapp_number, ''), ' ', '') like ${`%${digits}%`}` : sql``}
              or o.id in (select m.organization_id from users m where m.email ilike ${like}
                          ${phone ? sql`or m.phone_number like ${`%${digits}%`}` : sql``}))`;
}

function filterCondition(filters: Pick<UserFilters, "q" | "status" | "plan">): SQL {
  return sql`${isTenant()} and ${searchCondition(filters.q)}
    ${filters.status ? sql`and o.status = ${filters.status}` : sql``}
    ${filters.plan ? sql`and o.plan_type = ${filters.plan}` : sql``}`;
}

const ORDER: Record<UserSort, string> = {
  business: "lower(o.name) {dir}, o.id {dir}",
  plan: "o.plan_type {dir}, lower(o.name) asc, o.id asc",
  status: "o.status {dir}, lower(o.name) asc, o.id asc",
  joined: "o.created_at {dir}, o.id {dir}",
};

/** Organisations by status and by plan (the Users tab's counts), tenants only. */
export async function userCounts(_scope: PlatformScope) {
  const rows = await queryRows<{ status: string | null; plan: string | null; n: number | string }>(
    await readDb(),
    sql`
    select status, plan_type as plan, count(*) as n from organizations o where ${isTenant()}
    group by grouping sets ((status), (plan_type))`,
  );
  const byStatus = Object.fromEntries(USER_STATUSES.map((s) => [s, 0])) as Record<(typeof USER_STATUSES)[number], number>;
  const byPlan: Record<string, number> = Object.fromEntries(USER_PLANS.map((p) => [p, 0]));
  for (const row of rows) {
    if (row.status) byStatus[row.status as keyof typeof byStatus] = Number(row.n);
    else if (row.plan) byPlan[row.plan] = (byPlan[row.plan] ?? 0) + Number(row.n);
  }
  return { byStatus, byPlan, total: Object.values(byStatus).reduce((a, b) => a + b, 0) };
}

export interface AdminUserRow {
  id: string;
  businessName: string;
  businessId: string;
  email: string | null;
  plan: string;
  billingType: string;
  status: "active" | "pending" | "suspended";
  messagesUsed: number;
  messageLimit: number;
  /** The limit is an administrator's override, not the plan's. */
  limitOverridden: boolean;
  revenueCents: number;
  joinDate: string;
  /** The later of a member's last sign-in and the last day a message went or came (YYYY-MM-DD, Nairobi). */
  lastActive: string | null;
}

/**
 * One page of the Users table. The organisations are filtered, sorted and counted on their own
 * table; the figures (usage this month, revenue, last activity) are then read for the page's rows
 * only, each along its organisation's index, so a page costs the same with 10 or 10,000 tenants.
 */
export async function userPage(_scope: PlatformScope, filters: UserFilters, pageSize = USERS_PAGE_SIZE) {
  const where = filterCondition(filters);
  const [counted] = await queryRows<{ n: number | string }>(await readDb(), sql`select count(*) as n from organizations o where ${where}`);
  const total = Number(counted?.n ?? 0);
  const pages = Math.max(1, Math.ceil(total / pageSize));
  const page = Math.min(filters.page, pages);
  const order = sql.raw(ORDER[filters.sort].replaceAll("{dir}", filters.dir));
  const rows = await queryRows<StoredUserRow>(
    await readDb(),
    sql`
    with listed as (
      select o.id, o.name, o.business_id, o.plan_type, o.billing_type, o.status, o.message_limit, o.message_limit_override, o.created_at
      from organizations o where ${where}
      order by ${order}
      limit ${pageSize} offset ${(page - 1) * pageSize})
    select l.*,
      (select u.email from users u where u.organization_id = l.id order by (u.org_role = 'owner') desc, u.created_at limit 1) as email,
      ${sql.raw(messagesUsedThisMonthSql("l.id"))} as used,
      (select sum(p.amount_cents) from payments p where p.organization_id = l.id and p.status = 'completed') as revenue,
      (select max(u.last_login_at) from users u where u.organization_id = l.id) as last_sign_in,
      (select d.last_day::text from organization_message_days d where d.organization_id = l.id) as last_message_day
    from listed l
    order by ${sql.raw(ORDER[filters.sort].replaceAll("{dir}", filters.dir).replaceAll("o.", "l."))}`,
  );
  return { rows: rows.map(toRow), total, page, pages };
}

/** A users-table row as the statement answers it. */
interface StoredUserRow {
  id: string;
  name: string;
  business_id: string;
  email: string | null;
  plan_type: string;
  billing_type: string;
  status: AdminUserRow["status"];
  message_limit: number;
  message_limit_override: number | null;
  created_at: string | Date;
  used: number | string | null;
  revenue: number | string | null;
  last_sign_in: string | Date | null;
  last_message_day: string | null;
}

function toRow(r: StoredUserRow): AdminUserRow {
  // The later of a member's last sign-in and the last day a message went or came, as a Nairobi date.
  const signedIn = r.last_sign_in ? nairobiDate(new Date(r.last_sign_in)) : null;
  const lastActive =
    [signedIn, r.last_message_day]
      .filter((d): d is string => !!d)
      .sort()
      .at(-1) ?? null;
  return {
    id: r.id,
    businessName: r.name,
    businessId: r.business_id,
    email: r.email,
    plan: r.plan_type,
    billingType: r.billing_type,
    status: r.status,
    messagesUsed: Number(r.used ?? 0),
    messageLimit: Number(r.message_limit),
    limitOverridden: r.message_limit_override !== null,
    revenueCents: Number(r.revenue ?? 0),
    joinDate: new Date(r.created_at).toISOString(),
    lastActive,
  };
}

/** Every matching row, a page at a time (Export Data), in the table's order. */
export async function* allUserRows(scope: PlatformScope, filters: UserFilters) {
  const size = 200;
  for (let page = 1; ; page++) {
    const result = await userPage(scope, { ...filters, page }, size);
    if (result.page !== page) return;
    yield result.rows;
    if (page >= result.pages) return;
  }
}
