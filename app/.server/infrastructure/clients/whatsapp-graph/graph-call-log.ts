import { AsyncLocalStorage } from "node:async_hooks";
import { rawQuery } from "../../db/client";
import { log } from "../../log";

/**
 * graph_call_log: the Graph calls the engine (and an administrator's Test Connection) make, other
 * than message sends and read receipts, which are the messages table's own records and run
 * thousands a second. One insert per call, not awaited by the call, and its failure only logged:
 * the record never slows down or fails what it records. Housekeeping keeps 30 days.
 */

export interface GraphCallRecord {
  method: string;
  /** The path after the version, without the query (which may carry secrets). */
  path: string;
  /** Meta's HTTP status; null when no answer came. */
  status: number | null;
  durationMs: number;
  error: string | null;
}

/** Who makes the calls in this async context, and for which account when the caller knows it. */
export interface GraphCallContext {
  origin: "engine" | "admin";
  organizationId?: string;
  accountId?: string;
  wabaId?: string;
}

const context = new AsyncLocalStorage<GraphCallContext>();
const pending = new Set<Promise<void>>();

/** Runs `work` with its Graph calls recorded under `callContext` (an administrator's, for one account). */
export function withGraphCallContext<T>(callContext: GraphCallContext, work: () => Promise<T>): Promise<T> {
  return context.run(callContext, work);
}

/** Steps that are per-message traffic, recorded in the messages table instead. */
const NOT_RECORDED = new Set(["messages.send", "messages.read"]);

export function isRecordedStep(step: string) {
  return !NOT_RECORDED.has(step);
}

/** "/123/subscribed_apps": the path as recorded, never with the query (an upload session's `?sig=` included). */
export function recordedPath(path: string) {
  return `/${path.split("?")[0]!.replace(/^\/+/, "")}`.slice(0, 300);
}

/**
 * Writes one record in the background. The organisation, account and WABA come from the context
 * when the caller gave them, else from the path's first segment: a WABA id or a phone number id of a
 * known account (the latest link to it), looked up in the same statement.
 */
export function recordGraphCall(record: GraphCallRecord) {
  const callContext = context.getStore();
  const firstSegment = decodeSegment(record.path.replace(/^\/+/, "").split(/[/?]/)[0] ?? "");
  // Through a promise: rawQuery throws at once when no database is open (unit tests of the client).
  const write = Promise.resolve()
    .then(() =>
      rawQuery(
        `insert into graph_call_log (organization_id, account_id, waba_id, method, path, status, duration_ms, error, origin)
     select coalesce($1::uuid, a.organization_id, p.organization_id), coalesce($2::uuid, a.id, p.account_id),
            coalesce($3, a.waba_id, p.waba_id), $4, $5, $6, $7, $8, $9
     from (select 1) one
     left join lateral (
       select id, organization_id, waba_id from whatsapp_accounts
       where $1::uuid is null and waba_id = $10 order by (status = 'connected') desc, connected_at desc limit 1
     ) a on true
     left join lateral (
       select n.account_id, n.organization_id, w.waba_id from whatsapp_phone_numbers n join whatsapp_accounts w on w.id = n.account_id
       where $1::uuid is null and a.id is null and n.phone_number_id = $10 order by n.disconnected_at is null desc, n.created_at desc limit 1
     ) p on true`,
        [
          callContext?.organizationId ?? null,
          callContext?.accountId ?? null,
          callContext?.wabaId ?? null,
          record.method,
          recordedPath(record.path),
          record.status,
          Math.max(0, Math.round(record.durationMs)),
          record.error ? record.error.slice(0, 1000) : null,
          callContext?.origin ?? "engine",
          /^\d{1,32}$/.test(firstSegment) ? firstSegment : null,
        ],
      ),
    )
    .then(() => undefined)
    .catch((error: unknown) => log().warn({ err: error, path: record.path }, "graph call not recorded"));
  pending.add(write);
  void write.finally(() => pending.delete(write));
}

/** Resolves once every record written so far is stored (tests, and a page that shows the record it just made). */
export async function graphCallsRecorded() {
  await Promise.all([...pending]);
}

function decodeSegment(segment: string) {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
