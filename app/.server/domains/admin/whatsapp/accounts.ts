import { messagesUsedThisMonthSql } from "../../billing";
import { sql, type SQL } from "drizzle-orm";
import { db } from "../../../infrastructure/db/client";
import { queryRows } from "../../../infrastructure/db/query";
import { env } from "../../../infrastructure/config/env";
import type { PlatformScope } from "../../../infrastructure/db/scope";
import { ACCOUNT_STATUSES, type AccountStatus, type AdminAccountRow, type AdminNumber } from "~/lib/admin-whatsapp";
import { m } from "~/paraglide/messages";

/**
 * The WhatsApp tab's table: every WhatsApp account across tenants, one keyset page at a time. The
 * filters, sort and page select a page of account ids first; only that page's rows then read their
 * numbers, this month's messages (the daily rollup, not the messages) and their last webhook (by
 * the WABA id index on webhook_events), so the cost is one page's, whatever the platform's size.
 */

export const ACCOUNTS_PAGE_SIZE = 25;

export const ACCOUNT_SORTS = ["connected", "business", "waba"] as const;
export type AccountSort = (typeof ACCOUNT_SORTS)[number];

export interface AccountFilters {
  q: string;
  status: AccountStatus | "";
  sort: AccountSort;
  dir: "asc" | "desc";
}

/** The filters as the URL gives them; anything not understood falls back to no filter (the page says so). */
export function readAccountFilters(params: URLSearchParams): { filters: AccountFilters; problems: string[] } {
  const problems: string[] = [];
  const q = (params.get("q") ?? "").trim().slice(0, 100);
  const rawStatus = params.get("status") ?? "";
  const status = (ACCOUNT_STATUSES as readonly string[]).includes(rawStatus) ? (rawStatus as AccountStatus) : "";
  if (rawStatus && !status) problems.push(m.admin_whatsapp_unknown_status({ status: rawStatus.slice(0, 40) }));
  const rawSort = params.get("sort") ?? "";
  const sort = (ACCOUNT_SORTS as readonly string[]).includes(rawSort) ? (rawSort as AccountSort) : "connected";
  const dir = params.get("dir") === "asc" ? "asc" : params.get("dir") === "desc" ? "desc" : sort === "connected" ? "desc" : "asc";
  return { filters: { q, status, sort, dir }, problems };
}

/** The account's status as the console shows it: disconnected, else a refused token, else an open request to reconnect. */
const STATUS_SQL = sql`case when a.status = 'disconnected' then 'disconnected'
  when a.token_refused_at is not null then 'token_refused'
  when a.reconnect_requested_at is not null then 'reconnect_requested'
  else 'connected' end`;

const SORT_KEYS: Record<AccountSort, { key: SQL; cast: SQL }> = {
  connected: { key: sql`a.connected_at`, cast: sql`timestamptz` },
  business: { key: sql`lower(o.name)`, cast: sql`text` },
  waba: { key: sql`a.waba_id`, cast: sql`text` },
};

function likePattern(text: string) {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

function filterSql(filters: AccountFilters): SQL {
  const parts: SQL[] = [sql`true`];
  if (filters.status) parts.push(sql`(${STATUS_SQL}) = ${filters.status}`);
  if (filters.q) {
    const pattern = likePattern(filters.q);
    // "0700 100 200" as Kenyans write it finds 254700100200: a leading 0 is the country code's place.
    const digits = filters.q.replace(/\D/g, "").replace(/^0/, "");
    const byNumber =
      digits.length >= 3 && /^[\d\s+()-]+$/.test(filters.q)
        ? sql` or exists (select 1 from whatsapp_phone_numbers n where n.account_id = a.id and n.phone_digits like ${likePattern(digits)})`
        : sql``;
    parts.push(sql`(o.name ilike ${pattern} or a.name ilike ${pattern} or a.waba_id = ${filters.q}${byNumber})`);
  }
  return sql.join(parts, sql` and `);
}

interface Cursor {
  value: string;
  id: string;
}

export function encodeCursor(cursor: Cursor) {
  return Buffer.from(JSON.stringify([cursor.value, cursor.id])).toString("base64url");
}

function decodeCursor(raw: string | null | undefined): Cursor | null {
  if (!raw || raw.length > 400) return null;
  try {
    const parsed = JSON.parse(Buffer.from(raw, "base64url").toString("utf8")) as unknown;
    if (!Array.isArray(parsed) || parsed.length !== 2) return null;
    const [value, id] = parsed as unknown[];
    if (typeof value !== "string" || typeof id !== "string" || !/^[0-9a-f-]{36}$/i.test(id) || value.length > 300) return null;
    return { value, id };
  } catch {
    return null;
  }
}

interface PageRow {
  id: string;
  organization_id: string;
  business: string;
  name: string | null;
  waba_id: string;
  status: AccountStatus;
  subscribed: boolean;
  connected_at: string;
  disconnected_at: string | null;
  token_refusal: string | null;
  reconnect_reason: string | null;
  sort_value: string;
  numbers: AdminNumber[] | null;
  messages_month: string | number | null;
  last_webhook_at: string | null;
}

/** The per-row figures of a set of accounts (the table's page, or one account's detail). */
function rowFigures(): SQL {
  return sql`
    left join lateral (
      select json_agg(json_build_object('phoneNumberId', n.phone_number_id, 'display', n.display_phone_number,
               'verifiedName', n.verified_name, 'quality', n.quality_rating, 'messagingLimit', n.messaging_limit,
               'status', n.status, 'live', n.disconnected_at is null) order by n.created_at) as numbers
      from whatsapp_phone_numbers n
      where n.account_id = a.id and (a.status = 'disconnected' or n.disconnected_at is null)
    ) nums on true
    left join lateral (
      select ${sql.raw(
        messagesUsedThisMonthSql({
          organization: "a.organization_id",
          phoneNumbers: "(select n.phone_number_id from whatsapp_phone_numbers n where n.account_id = a.id)",
        }),
      )} as messages_month
    ) msgs on true
    left join lateral (
      select w.received_at as last_webhook_at from webhook_events w
      where w.waba_id = a.waba_id order by w.received_at desc nulls last limit 1
    ) hook on true`;
}

function toRow(row: PageRow): AdminAccountRow {
  return {
    id: row.id,
    organizationId: row.organization_id,
    business: row.business,
    name: row.name,
    wabaId: row.waba_id,
    status: row.status,
    subscribed: row.subscribed,
    connectedAt: new Date(row.connected_at).toISOString(),
    disconnectedAt: row.disconnected_at ? new Date(row.disconnected_at).toISOString() : null,
    tokenRefusal: row.token_refusal,
    reconnectReason: row.reconnect_reason,
    numbers: row.numbers ?? [],
    messagesThisMonth: Number(row.messages_month ?? 0),
    lastWebhookAt: row.last_webhook_at ? new Date(row.last_webhook_at).toISOString() : null,
    apiVersion: env().GRAPH_API_VERSION,
  };
}

const ROW_COLUMNS = sql`a.id, a.organization_id, o.name as business, a.name, a.waba_id, ${STATUS_SQL} as status, a.subscribed,
  a.connected_at, a.disconnected_at, a.token_refusal, a.reconnect_reason`;

/**
 * A page of accounts. `after` reads on in the sort's direction, `before` back; each answers the
 * cursors of its neighbours (null at either end).
 */
export async function adminAccountsPage(
  _scope: PlatformScope,
  filters: AccountFilters,
  page: { after?: string | null; before?: string | null; limit?: number } = {},
) {
  const limit = Math.min(Math.max(page.limit ?? ACCOUNTS_PAGE_SIZE, 1), 200);
  const { key, cast } = SORT_KEYS[filters.sort];
  const after = decodeCursor(page.after);
  const before = after ? null : decodeCursor(page.before);
  const backwards = !!before;
  // Reading back runs the order the other way and turns the rows round afterwards.
  const descending = (filters.dir === "desc") !== backwards;
  const cursor = after ?? before;
  const seek = cursor
    ? descending
      ? sql`and (${key}, a.id) < (${cursor.value}::${cast}, ${cursor.id}::uuid)`
      : sql`and (${key}, a.id) > (${cursor.value}::${cast}, ${cursor.id}::uuid)`
    : sql``;
  const order = descending ? sql`${key} desc, a.id desc` : sql`${key} asc, a.id asc`;
  const rows = await queryRows<PageRow>(
    db(),
    sql`
    with page as (
      select ${ROW_COLUMNS}, (${key})::text as sort_value, row_number() over (order by ${order}) as position
      from whatsapp_accounts a join organizations o on o.id = a.organization_id
      where ${filterSql(filters)} ${seek}
      order by ${order}
      limit ${limit + 1}
    )
    select a.*, nums.numbers, msgs.messages_month, hook.last_webhook_at
    from page a
    ${rowFigures()}
    order by a.position`,
  );
  const more = rows.length > limit;
  const kept = rows.slice(0, limit);
  const ordered = backwards ? kept.reverse() : kept;
  const first = ordered[0];
  const last = ordered[ordered.length - 1];
  const cursorOf = (row: PageRow | undefined) => (row ? encodeCursor({ value: row.sort_value, id: row.id }) : null);
  return {
    accounts: ordered.map(toRow),
    next: backwards ? (cursor ? cursorOf(last) : null) : more ? cursorOf(last) : null,
    previous: backwards ? (more ? cursorOf(first) : null) : cursor ? cursorOf(first) : null,
  };
}

/** One account with its figures, for the detail page; undefined for an unknown id. */
export async function adminAccount(_scope: PlatformScope, accountId: string): Promise<AdminAccountRow | undefined> {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(accountId)) return undefined;
  const [row] = await queryRows<PageRow>(
    db(),
    sql`
    select a.*, nums.numbers, msgs.messages_month, hook.last_webhook_at
    from (
      select ${ROW_COLUMNS}, ''::text as sort_value
      from whatsapp_accounts a join organizations o on o.id = a.organization_id
      where a.id = ${accountId}
    ) a
    ${rowFigures()}`,
  );
  return row ? toRow(row) : undefined;
}
