import { sql } from "drizzle-orm";
import { db, rawQuery } from "../../infrastructure/db/client";
import { queryRows } from "../../infrastructure/db/query";
import { IDEMPOTENCY_HOURS } from "../../domains/messaging/queue";
import { ApiProblem } from "./problem";

/**
 * The Idempotency-Key of the public API's creates (decision 043): the first request with a key
 * claims it in api_idempotency (one row per organisation and key, shared by every instance), does
 * its work and stores what it answered; a repeat within 24 hours answers that again and does
 * nothing. A repeat that arrives while the first is still working waits for its answer (up to
 * 10 s, then 409). The same key with another request is refused (409). A request that fails frees
 * its key for a corrected retry. POST /api/v1/messages keeps its claim in the message's own
 * transaction (messaging/queue.ts), with the same rules.
 */

/** A claim whose request has not answered yet: status 0 (answered rows hold the HTTP status). */
const PENDING_STATUS = 0;
/** How long a repeat waits for the first request with its key to finish before it is refused. */
const PENDING_WAIT_MS = 10_000;
/**
 * A claim still pending after this long belongs to a request that died (a crash, a restart): a
 * retry may claim the key again. No create of the API takes a fraction of this.
 */
const ABANDONED_AFTER_MINUTES = 5;

export const idempotencyConflict = (thing: string) =>
  new ApiProblem(
    409,
    "idempotency_conflict",
    `This Idempotency-Key was used in the last 24 hours for a different request. Use a new key for a new ${thing}.`,
  );

export interface KeyedRequest {
  organizationId: string;
  key: string;
  /** A hash of the endpoint and its input: the same key with another request is refused. */
  requestHash: string;
  /** What the endpoint creates, in words ("campaign"), for its refusals. */
  thing: string;
}

export interface OnceOptions<Result, Stored> {
  create: () => Promise<Result>;
  /** What to keep of the answer for repeats (JSON). */
  remember: (result: Result) => Stored;
  /** A repeat's answer from what was kept. */
  replay: (stored: Stored) => Promise<Result> | Result;
}

/** Runs `create` once per key: a repeat answers the first request's result (see above). */
export async function oncePerKey<Result, Stored>(request: KeyedRequest, options: OnceOptions<Result, Stored>): Promise<Result> {
  const earlier = await claimOrWait(request);
  if (earlier) return options.replay(earlier.stored as Stored);
  let result: Result;
  try {
    result = await options.create();
  } catch (error) {
    await releaseKey(request);
    throw error;
  }
  await rawQuery(
    `update api_idempotency set status = 200, response = $3::jsonb where organization_id = $1 and key = $2 and status = ${PENDING_STATUS}`,
    [request.organizationId, request.key, JSON.stringify(options.remember(result) ?? null)],
  );
  return result;
}

/** Undefined once this request holds the key; the first answer when another request made it. */
async function claimOrWait(request: KeyedRequest): Promise<{ stored: unknown } | undefined> {
  const deadline = Date.now() + PENDING_WAIT_MS;
  for (;;) {
    if (await claimKey(request)) return undefined;
    const [row] = await rawQuery<{ request_hash: string; status: number; response: unknown }>(
      `select request_hash, status, response from api_idempotency where organization_id = $1 and key = $2`,
      [request.organizationId, request.key],
    );
    // Freed by a request that failed between the two statements: claim it again.
    if (!row) continue;
    if (row.request_hash !== request.requestHash) throw idempotencyConflict(request.thing);
    if (row.status !== PENDING_STATUS) return { stored: row.response };
    if (Date.now() > deadline)
      throw new ApiProblem(
        409,
        "idempotency_in_progress",
        `A request with this Idempotency-Key is still being handled. Try again in a moment to get its ${request.thing}.`,
      );
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Claims the key for this request: true when it is free, expired, or abandoned by a request that died. */
async function claimKey(request: KeyedRequest) {
  const claimed = await queryRows<unknown>(
    db(),
    sql`
    insert into api_idempotency (organization_id, key, request_hash, status, response)
    values (${request.organizationId}, ${request.key}, ${request.requestHash}, ${PENDING_STATUS}, 'null'::jsonb)
    on conflict (organization_id, key) do update
      set request_hash = excluded.request_hash, status = excluded.status, response = excluded.response, created_at = now()
      where api_idempotency.created_at <= now() - make_interval(hours => ${IDEMPOTENCY_HOURS})
         or (api_idempotency.status = ${PENDING_STATUS}
             and api_idempotency.created_at <= now() - make_interval(mins => ${ABANDONED_AFTER_MINUTES}))
    returning key`,
  );
  return claimed.length > 0;
}

/** A refused or failed request leaves its key free for a corrected retry. */
async function releaseKey(request: KeyedRequest) {
  await rawQuery(
    `delete from api_idempotency where organization_id = $1 and key = $2 and request_hash = $3 and status = ${PENDING_STATUS}`,
    [request.organizationId, request.key, request.requestHash],
  );
}
