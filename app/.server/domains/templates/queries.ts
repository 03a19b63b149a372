import { sql, type SQL } from "drizzle-orm";
import { db } from "../../infrastructure/db/client";
import { queryRows } from "../../infrastructure/db/query";
import type { MessageTemplate } from "../../infrastructure/db/schema";
import { readQuery } from "../../infrastructure/http/posted-fields";
import { TemplateFiltersSchema } from "../../../lib/schemas/templates";
import {
  TEMPLATE_STATUSES,
  type ProductButtonKind,
  type TemplateCategory,
  type TemplateLanguage,
  type TemplateStatus,
} from "../../../lib/templates";

/** Reading a tenant's templates: every query names the organisation, so another tenant's id finds nothing. */

export interface TemplateFilters {
  q?: string;
  status?: TemplateStatus;
  category?: TemplateCategory;
  language?: TemplateLanguage;
}

export const TEMPLATE_PAGE_SIZE = 25;

/** The filters a URL asks for; unknown values are ignored rather than refused (they come from links). */
export function readTemplateFilters(params: URLSearchParams): TemplateFilters {
  const filters = readQuery(params, TemplateFiltersSchema);
  if (!filters) return {};
  const { q, status, type, language } = filters;
  return { q, status, category: type, language };
}

/** Row as listed: no components (a list of 5,000 templates stays small). */
export interface TemplateRow {
  id: string;
  name: string;
  category: TemplateCategory;
  language: TemplateLanguage;
  status: TemplateStatus;
  wabaId: string | null;
  submittedAt: string | null;
  createdAt: string;
  lastError: string | null;
  rejectionReason: string | null;
  /** The reason Jumbe's review returned it (status rejected, never sent to Meta). */
  platformRejection: string | null;
  source: "jumbe" | "meta";
  /** A catalog or multi-product template (decision 146): its product button, labelled in the list. */
  productButton: ProductButtonKind;
}

interface RawRow {
  id: string;
  name: string;
  category: TemplateCategory;
  language: TemplateLanguage;
  status: TemplateStatus;
  waba_id: string | null;
  submitted_at: string | Date | null;
  created_at: string | Date;
  last_error: string | null;
  rejection_reason: string | null;
  platform_rejection: string | null;
  source: "jumbe" | "meta";
  product_button: string | null;
  /** created_at as PostgreSQL writes it, to the microsecond: the keyset cursor. */
  position: string;
}

/** The template's product button (CATALOG or MPM), read in the statement: the list carries no components. */
const PRODUCT_BUTTON_COLUMN = sql`(select upper(b->>'type') from jsonb_array_elements(
    case when jsonb_typeof(components) = 'array' then components else '[]'::jsonb end) c
  cross join lateral jsonb_array_elements(case when jsonb_typeof(c->'buttons') = 'array' then c->'buttons' else '[]'::jsonb end) b
  where upper(b->>'type') in ('CATALOG', 'MPM') limit 1) as product_button`;

const iso = (value: string | Date | null) => (value === null ? null : new Date(value).toISOString());

function whereOf(organizationId: string, filters: TemplateFilters): SQL {
  const parts: SQL[] = [sql`organization_id = ${organizationId}`, sql`deleting_at is null`];
  if (filters.status) parts.push(sql`status = ${filters.status}`);
  if (filters.category) parts.push(sql`category = ${filters.category}`);
  if (filters.language) parts.push(sql`language = ${filters.language}`);
  if (filters.q) parts.push(sql`strpos(name, ${filters.q.toLowerCase()}) > 0`);
  return sql.join(parts, sql` and `);
}

/** A keyset cursor: the last row's creation time and id. */
export function encodeCursor(row: { createdAt: string; id: string }) {
  return Buffer.from(`${row.createdAt}|${row.id}`).toString("base64url");
}

function decodeCursor(cursor: string | null | undefined): { createdAt: string; id: string } | undefined {
  if (!cursor) return undefined;
  const [createdAt, id] = Buffer.from(cursor, "base64url").toString().split("|");
  if (!createdAt || !id || !/^\d{4}-\d{2}-\d{2}[ T][\d:.]+(Z|[+-]\d{2}(:?\d{2})?)$/.test(createdAt) || !/^[0-9a-f-]{36}$/.test(id))
    return undefined;
  return { createdAt, id };
}

/**
 * Newest first, a page at a time by keyset: `after` gives the page older than a cursor, `before` the
 * page newer than it. `older`/`newer` are set when such pages exist.
 */
export async function listTemplates(
  organizationId: string,
  filters: TemplateFilters,
  page: { after?: string | null; before?: string | null } = {},
  limit = TEMPLATE_PAGE_SIZE,
) {
  return pageOfTemplates(
    organizationId,
    filters,
    page,
    limit,
    sql`id, name, category, language, status, waba_id, submitted_at, created_at, last_error, rejection_reason, platform_rejection, source,
        ${PRODUCT_BUTTON_COLUMN}`,
    (r: RawRow): TemplateRow => ({
      id: r.id,
      name: r.name,
      category: r.category,
      language: r.language,
      status: r.status,
      wabaId: r.waba_id,
      submittedAt: iso(r.submitted_at),
      createdAt: iso(r.created_at)!,
      lastError: r.last_error,
      rejectionReason: r.rejection_reason,
      platformRejection: r.platform_rejection,
      source: r.source,
      productButton: r.product_button === "CATALOG" || r.product_button === "MPM" ? r.product_button : null,
    }),
  );
}

/** The same page as listTemplates, each template whole (components included): the public API's list. */
export async function listWholeTemplates(
  organizationId: string,
  filters: TemplateFilters,
  page: { after?: string | null; before?: string | null } = {},
  limit = TEMPLATE_PAGE_SIZE,
) {
  return pageOfTemplates(organizationId, filters, page, limit, sql`*, ${PRODUCT_BUTTON_COLUMN}`, (r) => toTemplate({ ...r }));
}

/** One keyset page of the tenant's templates, newest first, in one statement, with the cursors around it. */
async function pageOfTemplates<Row>(
  organizationId: string,
  filters: TemplateFilters,
  page: { after?: string | null; before?: string | null },
  limit: number,
  columns: SQL,
  toRow: (raw: RawRow) => Row,
) {
  const after = decodeCursor(page.after);
  const before = after ? undefined : decodeCursor(page.before);
  const keyset = after
    ? sql` and (created_at, id) < (${after.createdAt}::timestamptz, ${after.id}::uuid)`
    : before
      ? sql` and (created_at, id) > (${before.createdAt}::timestamptz, ${before.id}::uuid)`
      : sql``;
  // NULLS LAST / FIRST as message_templates_list_idx is built (Drizzle's desc()): plain DESC means
  // NULLS FIRST, which no index matches, and PostgreSQL then sorts the whole tenant for every page.
  // The columns are never null, so the order is the same.
  const order = before
    ? sql`order by created_at asc nulls first, id asc nulls first`
    : sql`order by created_at desc nulls last, id desc nulls last`;
  const raw = await queryRows<RawRow>(
    db(),
    sql`
    select ${columns}, created_at::text as position
    from message_templates where ${whereOf(organizationId, filters)}${keyset}
    ${order} limit ${limit + 1}`,
  );
  const more = raw.length > limit;
  const kept = raw.slice(0, limit);
  if (before) kept.reverse();
  const cursorOf = (r: RawRow | undefined) => (r ? encodeCursor({ createdAt: r.position, id: r.id }) : null);
  const first = cursorOf(kept[0]);
  const last = cursorOf(kept[kept.length - 1]);
  return {
    rows: kept.map(toRow),
    older: last && (before || more) ? last : null,
    newer: first && (after || (before && more)) ? first : null,
    /** For the API: the cursor of the next (older) page. */
    nextCursor: last && more && !before ? last : null,
  };
}

/** How many templates the tenant has in each status (the page's summary). */
export async function templateStatusCounts(organizationId: string): Promise<Record<TemplateStatus, number>> {
  const rows = await queryRows<{ status: TemplateStatus; n: number }>(
    db(),
    sql`select status, count(*)::int as n from message_templates where organization_id = ${organizationId} and deleting_at is null group by status`,
  );
  const counts = Object.fromEntries(TEMPLATE_STATUSES.map((s) => [s, 0])) as Record<TemplateStatus, number>;
  for (const row of rows) counts[row.status] = Number(row.n);
  return counts;
}

export const isUuid = (value: string | null | undefined): value is string =>
  !!value && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value);

/** One template of the tenant, or undefined (another tenant's id, a malformed id, one being deleted). */
export async function findTemplate(organizationId: string, id: string | null | undefined): Promise<MessageTemplate | undefined> {
  if (!isUuid(id)) return undefined;
  const [row] = await queryRows<Record<string, unknown>>(
    db(),
    sql`select * from message_templates where organization_id = ${organizationId} and id = ${id} and deleting_at is null`,
  );
  return row ? toTemplate(row) : undefined;
}

/** A raw message_templates row in the schema's shape. */
export function toTemplate(row: Record<string, unknown>): MessageTemplate {
  const date = (key: string) => (row[key] === null || row[key] === undefined ? null : new Date(row[key] as string));
  return {
    id: String(row.id),
    organizationId: String(row.organization_id),
    accountId: (row.account_id as string | null) ?? null,
    wabaId: (row.waba_id as string | null) ?? null,
    metaTemplateId: (row.meta_template_id as string | null) ?? null,
    name: String(row.name),
    language: String(row.language),
    category: row.category as MessageTemplate["category"],
    previousCategory: (row.previous_category as string | null) ?? null,
    status: row.status as MessageTemplate["status"],
    components: (typeof row.components === "string" ? JSON.parse(row.components) : row.components) as Record<string, unknown>[],
    rejectionReason: (row.rejection_reason as string | null) ?? null,
    qualityScore: (row.quality_score as string | null) ?? null,
    metaEvent: (row.meta_event as string | null) ?? null,
    metaEventAt: date("meta_event_at"),
    lastError: (row.last_error as string | null) ?? null,
    source: row.source as MessageTemplate["source"],
    createdBy: (row.created_by as string | null) ?? null,
    submittedAt: date("submitted_at"),
    deletingAt: date("deleting_at"),
    syncedAt: date("synced_at"),
    platformReviewedAt: date("platform_reviewed_at"),
    platformReviewedBy: (row.platform_reviewed_by as string | null) ?? null,
    platformRejection: (row.platform_rejection as string | null) ?? null,
    createdAt: date("created_at")!,
    updatedAt: date("updated_at")!,
  };
}

/** The tenant's approved templates, for the preview's chooser (name order). */
export async function templateChoices(organizationId: string) {
  return queryRows<{ id: string; name: string; language: TemplateLanguage; status: TemplateStatus }>(
    db(),
    sql`
    select id, name, language, status from message_templates
    where organization_id = ${organizationId} and deleting_at is null
    order by status <> 'approved', name, language limit 500`,
  );
}
