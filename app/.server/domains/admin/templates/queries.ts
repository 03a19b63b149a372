import { sql, type SQL } from "drizzle-orm";
import { db } from "../../../infrastructure/db/client";
import { queryRows } from "../../../infrastructure/db/query";
import type { PlatformScope } from "../../../infrastructure/db/scope";
import { isUuid } from "../../../infrastructure/db/keyset";
import {
  CATEGORY_VALUES,
  LANGUAGE_VALUES,
  TEMPLATE_STATUSES,
  type TemplateCategory,
  type TemplateLanguage,
  type TemplateStatus,
} from "../../../../lib/templates";

/**
 * The Templates tab's reads across every tenant (platform scope): the counts by status, type and
 * language, the submissions table with its filters, sort and keyset pages, and one template with
 * its tenant for the Review page.
 */

export const ADMIN_TEMPLATE_SORTS = ["submitted", "name", "business", "type", "status", "language"] as const;
export type AdminTemplateSort = (typeof ADMIN_TEMPLATE_SORTS)[number];

export interface AdminTemplateFilters {
  q?: string;
  status?: TemplateStatus;
  category?: TemplateCategory;
  language?: TemplateLanguage;
  /** One organisation's templates (a link from the held organisations' list). */
  organizationId?: string;
  sort: AdminTemplateSort;
  dir: "asc" | "desc";
}

export const ADMIN_TEMPLATE_PAGE_SIZE = 20;

/** The filters a URL asks for; unknown values are ignored (they come from links and the GET form). */
export function readAdminTemplateFilters(params: URLSearchParams): AdminTemplateFilters {
  const pick = <T extends string>(value: string | null, allowed: readonly T[]) =>
    value && (allowed as readonly string[]).includes(value) ? (value as T) : undefined;
  const q = (params.get("q") ?? "").trim().slice(0, 100);
  const org = params.get("org");
  const sort = pick(params.get("sort"), ADMIN_TEMPLATE_SORTS) ?? "submitted";
  const dir = params.get("dir") === "asc" || params.get("dir") === "desc" ? (params.get("dir") as "asc" | "desc") : undefined;
  return {
    q: q || undefined,
    status: pick(params.get("status"), TEMPLATE_STATUSES),
    category: pick(params.get("type"), CATEGORY_VALUES),
    language: pick(params.get("language"), LANGUAGE_VALUES),
    organizationId: org && isUuid(org) ? org : undefined,
    sort,
    // Newest submissions first; words A to Z.
    dir: dir ?? (sort === "submitted" ? "desc" : "asc"),
  };
}

/** The filters as a query string (the export's link, the pager's): only what is set. */
export function adminTemplateQuery(filters: AdminTemplateFilters) {
  const params = new URLSearchParams();
  if (filters.q) params.set("q", filters.q);
  if (filters.status) params.set("status", filters.status);
  if (filters.category) params.set("type", filters.category);
  if (filters.language) params.set("language", filters.language);
  if (filters.organizationId) params.set("org", filters.organizationId);
  return params;
}

export interface TemplateFigures {
  total: number;
  byStatus: Record<TemplateStatus, number>;
  byCategory: Record<TemplateCategory, number>;
  byLanguage: { language: string; count: number }[];
  heldOrganisations: number;
}

/** Counts by status, type and language in one pass over the templates (filtered counts), and how many organisations are held. */
export async function adminTemplateFigures(_scope: PlatformScope): Promise<TemplateFigures> {
  const counted = (column: SQL, values: readonly string[], prefix: string) =>
    sql.join(
      values.map((v) => sql`count(*) filter (where ${column} = ${v}) as ${sql.identifier(`${prefix}${v}`)}`),
      sql`, `,
    );
  const [row] = await queryRows<Record<string, number | string>>(
    db(),
    sql`
    select count(*) as total, ${counted(sql`status`, TEMPLATE_STATUSES, "s_")}, ${counted(sql`category`, CATEGORY_VALUES, "c_")},
           ${counted(sql`language`, LANGUAGE_VALUES, "l_")}
    from message_templates where deleting_at is null`,
  );
  const [held] = await queryRows<{ n: number | string }>(db(), sql`select count(*) as n from organizations where template_review`);
  const n = (key: string) => Number(row?.[key] ?? 0);
  return {
    total: n("total"),
    byStatus: Object.fromEntries(TEMPLATE_STATUSES.map((s) => [s, n(`s_${s}`)])) as Record<TemplateStatus, number>,
    byCategory: Object.fromEntries(CATEGORY_VALUES.map((c) => [c, n(`c_${c}`)])) as Record<TemplateCategory, number>,
    // Templates imported from Meta may be in other languages: the three of the spec are counted, the rest is "Other".
    byLanguage: [
      ...LANGUAGE_VALUES.map((language) => ({ language, count: n(`l_${language}`) })),
      { language: "other", count: n("total") - LANGUAGE_VALUES.reduce((sum, l) => sum + n(`l_${l}`), 0) },
    ]
      .filter((l) => l.language !== "other" || l.count > 0)
      .sort((a, b) => b.count - a.count),
    heldOrganisations: Number(held?.n ?? 0),
  };
}

export interface AdminTemplateRow {
  id: string;
  name: string;
  business: string;
  organizationId: string;
  category: TemplateCategory;
  status: TemplateStatus;
  language: string;
  submittedAt: string | null;
  createdAt: string;
}

interface RawRow {
  id: string;
  name: string;
  business: string;
  organization_id: string;
  category: TemplateCategory;
  status: TemplateStatus;
  language: string;
  submitted_at: string | Date | null;
  created_at: string | Date;
  sort_key: string;
}

/** Each sort's expression and the type its cursor value is cast back to. */
const SORT_COLUMNS: Record<AdminTemplateSort, { expr: SQL; type: SQL }> = {
  submitted: { expr: sql`coalesce(t.submitted_at, t.created_at)`, type: sql`timestamptz` },
  name: { expr: sql`t.name`, type: sql`text` },
  business: { expr: sql`o.name`, type: sql`text` },
  type: { expr: sql`t.category`, type: sql`text` },
  status: { expr: sql`t.status`, type: sql`text` },
  language: { expr: sql`t.language`, type: sql`text` },
};

const encodeCursor = (key: string, id: string) => Buffer.from(JSON.stringify([key, id])).toString("base64url");

function decodeCursor(cursor: string | null | undefined): { key: string; id: string } | undefined {
  if (!cursor || cursor.length > 1200) return undefined;
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString());
    if (!Array.isArray(value) || value.length !== 2) return undefined;
    const [key, id] = value as unknown[];
    if (typeof key !== "string" || typeof id !== "string" || !isUuid(id) || key.length > 600) return undefined;
    return { key, id };
  } catch {
    return undefined;
  }
}

function whereOf(filters: AdminTemplateFilters): SQL {
  const parts: SQL[] = [sql`t.deleting_at is null`];
  if (filters.status) parts.push(sql`t.status = ${filters.status}`);
  if (filters.category) parts.push(sql`t.category = ${filters.category}`);
  if (filters.language) parts.push(sql`t.language = ${filters.language}`);
  if (filters.organizationId) parts.push(sql`t.organization_id = ${filters.organizationId}`);
  if (filters.q) {
    const q = filters.q.toLowerCase();
    parts.push(sql`(strpos(lower(t.name), ${q}) > 0 or strpos(lower(o.name), ${q}) > 0)`);
  }
  return sql.join(parts, sql` and `);
}

/**
 * One page of the submissions table, by keyset on the sort's value and the id (page 400 costs what
 * page 1 does): `after` the page following a cursor, `before` the one preceding it.
 */
export async function adminTemplatePage(
  _scope: PlatformScope,
  filters: AdminTemplateFilters,
  page: { after?: string | null; before?: string | null } = {},
  limit = ADMIN_TEMPLATE_PAGE_SIZE,
) {
  const column = SORT_COLUMNS[filters.sort];
  const after = decodeCursor(page.after);
  const before = after ? undefined : decodeCursor(page.before);
  const forward = filters.dir === "asc" ? sql`>` : sql`<`;
  const backward = filters.dir === "asc" ? sql`<` : sql`>`;
  const keyset = after
    ? sql` and (${column.expr}, t.id) ${forward} (${after.key}::${column.type}, ${after.id}::uuid)`
    : before
      ? sql` and (${column.expr}, t.id) ${backward} (${before.key}::${column.type}, ${before.id}::uuid)`
      : sql``;
  const reversed = !!before;
  const ascending = (filters.dir === "asc") !== reversed;
  // NULLS FIRST / LAST as message_templates_submitted_idx is built (scanned forward for desc, backward for
  // asc): plain DESC means NULLS FIRST, which no index matches. The sort keys are never null.
  const order = ascending ? sql`asc nulls first` : sql`desc nulls last`;
  const select = sql`
    select t.id, t.name, o.name as business, t.organization_id, t.category, t.status, t.language, t.submitted_at, t.created_at,
           ${column.expr} as sort_value, ${column.expr}::text as sort_key
    from message_templates t join organizations o on o.id = t.organization_id
    where ${whereOf(filters)}${keyset}`;
  // A search matches few rows anywhere in the order: find them first (one pass), then sort those,
  // rather than walk the whole sort index testing each row.
  const raw = await queryRows<RawRow>(
    db(),
    filters.q
      ? sql`with hits as materialized (${select}) select * from hits order by sort_value ${order}, id ${order} limit ${limit + 1}`
      : sql`${select} order by ${column.expr} ${order}, t.id ${order} limit ${limit + 1}`,
  );
  const more = raw.length > limit;
  const kept = raw.slice(0, limit);
  if (reversed) kept.reverse();
  const cursorOf = (r: RawRow | undefined) => (r ? encodeCursor(r.sort_key, r.id) : null);
  const first = cursorOf(kept[0]);
  const last = cursorOf(kept.at(-1));
  return {
    rows: kept.map((r): AdminTemplateRow => ({
      id: r.id,
      name: r.name,
      business: r.business,
      organizationId: r.organization_id,
      category: r.category,
      status: r.status,
      language: r.language,
      submittedAt: r.submitted_at === null ? null : new Date(r.submitted_at).toISOString(),
      createdAt: new Date(r.created_at).toISOString(),
    })),
    older: last && (reversed || more) ? last : null,
    newer: first && (after || (reversed && more)) ? first : null,
  };
}

/** The review queue: held templates, the longest waiting first. */
export async function heldQueue(scope: PlatformScope, limit = 10) {
  const page = await adminTemplatePage(scope, { status: "held", sort: "submitted", dir: "asc" }, {}, limit);
  return page.rows;
}

export interface HeldOrganisation {
  id: string;
  name: string;
  businessId: string;
  held: number;
}

/** The organisations whose submissions are held, with how many templates wait (the tab's list, with Release). */
export async function heldOrganisations(_scope: PlatformScope, limit = 50): Promise<HeldOrganisation[]> {
  const rows = await queryRows<{ id: string; name: string; business_id: string; held: number | string }>(
    db(),
    sql`
    select o.id, o.name, o.business_id,
           (select count(*) from message_templates t where t.organization_id = o.id and t.status = 'held' and t.deleting_at is null) as held
    from organizations o where o.template_review
    order by o.name, o.id limit ${limit}`,
  );
  return rows.map((r) => ({ id: r.id, name: r.name, businessId: r.business_id, held: Number(r.held) }));
}

export interface OrganisationForHold {
  id: string;
  name: string;
  businessId: string;
  templateReview: boolean;
}

/** The organisation an administrator names to hold: by its id, its business ID (JMB-...) or a member's e-mail. */
export async function findOrganisationForHold(_scope: PlatformScope, who: string): Promise<OrganisationForHold | undefined> {
  const value = who.trim();
  if (!value) return undefined;
  const [row] = await queryRows<{ id: string; name: string; business_id: string; template_review: boolean }>(
    db(),
    sql`
    select o.id, o.name, o.business_id, o.template_review from organizations o
    where ${isUuid(value) ? sql`o.id = ${value}` : sql`false`}
       or upper(o.business_id) = upper(${value})
       or o.id = (select u.organization_id from users u where lower(u.email) = lower(${value}) limit 1)
    limit 1`,
  );
  return row ? { id: row.id, name: row.name, businessId: row.business_id, templateReview: row.template_review } : undefined;
}

export interface ReviewedTemplate {
  id: string;
  organizationId: string;
  business: string;
  businessId: string;
  ownerEmail: string | null;
  templateReview: boolean;
  reviewerEmail: string | null;
}

/** The tenant around a template for the Review page, or undefined for an unknown or malformed id. */
export async function findReviewedTemplate(_scope: PlatformScope, id: string | undefined): Promise<ReviewedTemplate | undefined> {
  if (!id || !isUuid(id)) return undefined;
  const [row] = await queryRows<{
    id: string;
    organization_id: string;
    business: string;
    business_id: string;
    owner_email: string | null;
    template_review: boolean;
    reviewer_email: string | null;
  }>(
    db(),
    sql`
    select t.id, t.organization_id, o.name as business, o.business_id, o.template_review,
           (select u.email from users u where u.organization_id = o.id order by u.created_at limit 1) as owner_email,
           (select r.email from users r where r.id = t.platform_reviewed_by) as reviewer_email
    from message_templates t join organizations o on o.id = t.organization_id
    where t.id = ${id} and t.deleting_at is null`,
  );
  if (!row) return undefined;
  return {
    id: row.id,
    organizationId: row.organization_id,
    business: row.business,
    businessId: row.business_id,
    ownerEmail: row.owner_email,
    templateReview: row.template_review,
    reviewerEmail: row.reviewer_email,
  };
}
