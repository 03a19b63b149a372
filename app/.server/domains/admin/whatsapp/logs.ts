import { sql } from "drizzle-orm";
import { db } from "../../../infrastructure/db/client";
import { queryRows } from "../../../infrastructure/db/query";
import type { PlatformScope } from "../../../infrastructure/db/scope";

/**
 * View Logs: an account's Graph calls (graph_call_log) and the webhooks Meta delivered for its WABA
 * (webhook_events, by the WABA id index), each newest first, a keyset page at a time.
 */

export const LOG_PAGE_SIZE = 20;

export interface GraphCallView {
  id: number;
  at: string;
  method: string;
  path: string;
  status: number | null;
  durationMs: number;
  error: string | null;
  origin: string;
}

export interface WebhookView {
  id: number;
  at: string;
  outcome: string | null;
  processed: boolean;
  /** The changes' fields (messages, statuses, account_update...), read from the stored bytes. */
  fields: string[];
  bytes: number;
}

/** A log page's position: the last row's time (as the database wrote it, to the microsecond) and id. */
function encodeLogCursor(at: string, id: number) {
  return Buffer.from(JSON.stringify([at, id])).toString("base64url");
}

function decodeLogCursor(raw: string | null): { at: string; id: number } | null {
  if (!raw || raw.length > 200) return null;
  try {
    const [at, id] = JSON.parse(Buffer.from(raw, "base64url").toString("utf8")) as unknown[];
    if (typeof at !== "string" || !/^\d{4}-\d\d-\d\d[ T][\d:.+-]+$/.test(at) || typeof id !== "number" || !Number.isSafeInteger(id))
      return null;
    return { at, id };
  } catch {
    return null;
  }
}

/** The account's Graph calls, newest first; `after` is the last row's position. */
export async function graphCallsOf(
  _scope: PlatformScope,
  account: { id: string; wabaId: string; connectedAt: string; phoneNumberIds: string[] },
  after: string | null,
  limit = LOG_PAGE_SIZE,
) {
  const below = decodeLogCursor(after);
  const rows = await queryRows<{
    id: string | number;
    created_at: string;
    position: string;
    method: string;
    path: string;
    status: number | null;
    duration_ms: number;
    error: string | null;
    origin: string;
  }>(
    db(),
    sql`
    select id, created_at, created_at::text as position, method, path, status, duration_ms, error, origin from graph_call_log
    where (account_id = ${account.id}
           -- Embedded Signup calls Meta before the account's row exists: its calls for the WABA and its
           -- numbers in the minutes around the connection are the account's too.
           or (account_id is null and created_at between ${account.connectedAt}::timestamptz - interval '10 minutes'
                                                   and ${account.connectedAt}::timestamptz + interval '2 minutes'
               and split_part(path, '/', 2) = any(${sql.param([account.wabaId, ...account.phoneNumberIds])}::text[])))
      ${below ? sql`and (created_at, id) < (${below.at}::timestamptz, ${below.id})` : sql``}
    order by created_at desc nulls last, id desc nulls last limit ${limit + 1}`,
  );
  const calls: GraphCallView[] = rows.slice(0, limit).map((r) => ({
    id: Number(r.id),
    at: new Date(r.created_at).toISOString(),
    method: r.method,
    path: r.path,
    status: r.status,
    durationMs: r.duration_ms,
    error: r.error,
    origin: r.origin,
  }));
  const last = rows[limit - 1];
  return { calls, next: rows.length > limit && last ? encodeLogCursor(last.position, Number(last.id)) : null };
}

/** The WABA's webhook deliveries, newest first; `after` is the last row's position. */
export async function webhooksOf(_scope: PlatformScope, wabaId: string, after: string | null, limit = LOG_PAGE_SIZE) {
  const below = decodeLogCursor(after);
  const rows = await queryRows<{
    id: string | number;
    received_at: string;
    position: string;
    outcome: string | null;
    processed: boolean;
    body: string;
  }>(
    db(),
    sql`
    select id, received_at, received_at::text as position, outcome, processed_at is not null as processed, left(body, 20000) as body
    from webhook_events w
    where w.waba_id = ${wabaId}
      ${below ? sql`and (received_at, id) < (${below.at}::timestamptz, ${below.id})` : sql``}
    order by received_at desc nulls last, id desc nulls last limit ${limit + 1}`,
  );
  const webhooks: WebhookView[] = rows.slice(0, limit).map((r) => ({
    id: Number(r.id),
    at: new Date(r.received_at).toISOString(),
    outcome: r.outcome,
    processed: r.processed,
    fields: fieldsOf(r.body),
    bytes: Buffer.byteLength(r.body),
  }));
  const last = rows[limit - 1];
  return { webhooks, next: rows.length > limit && last ? encodeLogCursor(last.position, Number(last.id)) : null };
}

/** The distinct `field`s of a delivery's changes; none when it is not JSON (or cut at 20,000 characters). */
function fieldsOf(body: string): string[] {
  try {
    const parsed = JSON.parse(body) as { entry?: { changes?: { field?: unknown }[] }[] };
    const fields = (parsed.entry ?? []).flatMap((e) => (e.changes ?? []).map((c) => String(c.field ?? "")));
    return [...new Set(fields.filter(Boolean))];
  } catch {
    return [];
  }
}
