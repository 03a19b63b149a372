import { sql } from "drizzle-orm";
import { db, rawQuery } from "../../infrastructure/db/client";
import { queryRows } from "../../infrastructure/db/query";
import { messageKeyTable, type MessageKey } from "../../infrastructure/db/message-keys";
import { databaseIsDown, isDatabaseUnavailableError, noteDatabaseError } from "../../infrastructure/db/availability";
import { createIdler } from "../../infrastructure/jobs/idle";
import { log } from "../../infrastructure/log";
import { env } from "../../infrastructure/config/env";
import { processState } from "../../infrastructure/process-state";
import { decryptSecret } from "../../infrastructure/security/crypto";
import { GraphApiError, GraphNetworkError, graphClient, type GraphClient } from "../../infrastructure/clients/whatsapp-graph/graph-client";
import { outageBackoffMs } from "../../infrastructure/jobs/worker";
import { applyKeptStatuses } from "./statuses";
import { callbackDataOf } from "./callback-data";
import { failMessages, type Failure } from "./failures";
import { messageEventsFor } from "./events";
import { figuresMoved } from "./campaign-figures";
import { chargeAccepted } from "../billing";
import { settleFreeEntry } from "../ads";
import { logMessageEvents } from "./conversation-events";
import { withMetaMediaIds } from "./media";
import { holdOverMessagingLimit, LIMIT_HELD } from "./messaging-limit";
import { markTokensRefused, TOKEN_HELD, TOKEN_HOLD_LIMIT_MS, TOKEN_HOLD_MS } from "./token-refusal";
import { holdForSuspension, suspendedNow } from "./suspension-hold";

/**
 * The dispatcher: the one path from a stored `queued` message to Meta. The messages table is its
 * queue (decision 022): a worker claims due messages under a lease with SKIP LOCKED, takes each
 * number's send tokens from `sending_buckets`, keeps Meta's pair rate, calls Graph, and settles the
 * batch in a few statements. Any number of workers in any number of processes share the work.
 */

/**
 * Messages claimed per statement: four full rounds of IN_FLIGHT calls. A batch that is not a
 * multiple of it ends with a round of a few calls that takes as long as a full one (200 was three
 * rounds and eight calls: a quarter of the batch's time for 4% of its messages).
 */
export const DISPATCH_BATCH = 256;
/** How long a claim lasts before another worker may take the message (its send is then in doubt). */
export const CLAIM_LEASE_SECONDS = 30;
/** Tries before a message fails for good (throttling, Meta's temporary errors, network trouble). */
export const MAX_SEND_ATTEMPTS = 8;
/** Meta's pair rate: one message every 6 s to one person, with bursts; Jumbe allows 10 a minute. */
export const PAIR_MESSAGES_PER_MINUTE = 10;
/** How long a send whose answer was lost waits for Meta's status webhook before it is tried again. */
export const IN_DOUBT_WAIT_MS = 60_000;
/**
 * How long a message keeps its claim once its call to Meta has started (written before the call):
 * a worker that dies with calls on their way (a crash, kill -9) leaves those messages this long
 * for Meta's status webhook, which names them, to come back (Meta retries it while Jumbe restarts),
 * instead of the 30-second lease after which a restarted worker sent them again (issue 38).
 */
export const SEND_IN_DOUBT_HOLD_SECONDS = 300;
/**
 * A number's bucket holds half a second of its rate. Meta counts a send when it arrives, Jumbe when
 * it grants it: sends delayed unevenly on the way (a slow moment on the link, a pause here) bunch up
 * at Meta, and a smaller burst absorbs up to half a second of that without a 130429.
 */
export const BURST_SECONDS = 0.5;
/** A message put back for want of tokens is due this long after its turn's token is refilled. */
const TURN_MARGIN_MS = 5;
/** Accepted sends settled together while the batch's other calls go on (a round of calls). */
const SETTLE_EVERY = 64;
/** Time kept free at the end of a claim for settling the batch. */
const LEASE_MARGIN_MS = 2000;
/** Graph calls in flight per worker. */
const IN_FLIGHT = 64;

interface Claimed {
  id: string;
  organization_id: string;
  phone_number_id: string;
  recipient_phone: string;
  payload: Record<string, unknown>;
  attempts: number;
  /** PostgreSQL's text of created_at: with the id, the message's key (decision 183). */
  createdAt: string;
  /** Queueing order (bigint as text from the driver): a person's messages go in this order. */
  seq: string | number;
}

/** A claimed message put back untried, due again after `delayMs`, with why it waits when that is worth showing. */
interface Deferral extends MessageKey {
  delayMs: number;
  why?: { title: string; details: string };
}

export interface DispatchOutcome {
  claimed: number;
  accepted: number;
  retrying: number;
  failed: number;
  deferred: number;
}

/**
 * The messages of this process's rounds cut off because the database could not be reached, whose
 * call to Meta never started: put back on the next round that reaches it, instead of waiting out
 * their claim (CLAIM_LEASE_SECONDS) or the hold of a call about to start (SEND_IN_DOUBT_HOLD_SECONDS):
 * the campaign stalled that long after PgBouncer came back (docs/fault-runs.md).
 */
interface AbandonedClaim {
  keys: MessageKey[];
  /** The round's locked_until values (the claim's, each hold's), as PostgreSQL wrote them (text keeps microseconds). */
  leases: string[];
}

/** What a round did that its end on an error must know: the holds it wrote and the calls it started. */
interface RoundTrace {
  holds: string[];
  called: Set<string>;
}

const { wakers, abandoned } = processState("messaging.dispatcher", () => ({
  wakers: new Set<() => void>(),
  abandoned: [] as AbandonedClaim[],
}));

/** Tells this process's dispatcher there is a message to send (other processes find it by polling). */
export function wakeDispatcher() {
  for (const wake of wakers) wake();
}

/**
 * Puts back the abandoned claims' messages still as that round left them: `locked_until` one the
 * round wrote (one accepted, put back, or taken by another worker after the lease no longer
 * matches). Untried: the claim's attempt is given back, as deferMessages does.
 */
async function releaseAbandonedClaims() {
  // Taken off the list first: this process's other workers do not put the same ones back meanwhile.
  const claims = abandoned.splice(0);
  try {
    while (claims.length) {
      const claim = claims[0]!;
      await db().execute(sql`
        update messages m set locked_until = null, attempts = greatest(m.attempts - 1, 0)
        from ${messageKeyTable(claim.keys)}
        where m.id = k.id and m.created_at = k.created_at and m.locked_until = any(${sql.param(claim.leases)}::timestamptz[])
          and m.accepted_at is null and m.failed_at is null`);
      claims.shift();
    }
  } finally {
    // Still gone: the rest wait for the next round.
    abandoned.push(...claims);
  }
}

/** Claims due messages, oldest due first. */
async function claimMessages(limit: number): Promise<(Claimed & { lease: string })[]> {
  const result = await queryRows<Claimed & { lease: string }>(
    db(),
    sql`
    with ready as (
      select id, created_at from messages
      where direction = 'outbound' and accepted_at is null and failed_at is null
        and next_attempt_at <= now() and (locked_until is null or locked_until < now())
        -- A campaign paused or cancelled while a worker held its message: not sent (the feeder holds it).
        and (campaign_id is null or not exists (select 1 from campaigns c where c.id = messages.campaign_id and c.status in ('paused', 'cancelled')))
      order by next_attempt_at
      limit ${limit}
      for update skip locked
    )
    update messages m set locked_until = now() + make_interval(secs => ${CLAIM_LEASE_SECONDS}), attempts = m.attempts + 1
    from ready where m.id = ready.id and m.created_at = ready.created_at
    returning m.id, m.created_at::text as "createdAt", m.organization_id, m.phone_number_id, m.recipient_phone, m.payload, m.attempts, m.seq,
              m.locked_until::text as lease`,
  );
  return result;
}

/** Puts claimed messages back untried, due again after `delayMs` each (limits and holds, not failures). */
async function deferMessages(items: Deferral[]) {
  if (!items.length) return;
  await db().execute(sql`
    update messages m set locked_until = null, attempts = greatest(m.attempts - 1, 0),
           next_attempt_at = now() + make_interval(secs => d.delay_ms / 1000.0),
           error_code = case when d.title is null then m.error_code end,
           error_title = coalesce(d.title, m.error_title), error_details = coalesce(d.details, m.error_details)
    from unnest(${sql.param(items.map((i) => i.id))}::uuid[], ${sql.param(items.map((i) => i.createdAt))}::timestamptz[],
                ${sql.param(items.map((i) => Math.round(i.delayMs)))}::int[],
                ${sql.param(items.map((i) => i.why?.title ?? null))}::text[], ${sql.param(items.map((i) => i.why?.details ?? null))}::text[])
         as d(id, created_at, delay_ms, title, details)
    where m.id = d.id and m.created_at = d.created_at`);
}

/**
 * Each number's share of this batch under its throughput (a token bucket per number, refilled at
 * its rate a second, shared by every worker through the database). Answers how many may go now and,
 * for the rest, when their turns begin: after the turns of those put back before them (the bucket's
 * reserved_until, moved on by theirs), so that a burst larger than a batch is put back once, each
 * message to its own turn, rather than claimed and put back again with every batch.
 */
async function takeSendTokens(wanted: Map<string, number>): Promise<Map<string, { granted: number; rate: number; turnsFromMs: number }>> {
  const ids = [...wanted.keys()];
  return db().transaction(async (tx) => {
    await tx.execute(sql`
      insert into sending_buckets (phone_number_id, tokens) select id, 80 * ${BURST_SECONDS}::float8 from unnest(${sql.param(ids)}::text[]) as t(id)
      on conflict (phone_number_id) do nothing`);
    const rows = await queryRows<{ phone_number_id: string; rate: number; available: number; reserved_ms: number }>(
      tx,
      sql`
        select phone_number_id, rate,
               least(greatest(rate * ${BURST_SECONDS}::float8, 1), tokens + rate * extract(epoch from (clock_timestamp() - refilled_at))) as available,
               greatest(0, extract(epoch from (reserved_until - clock_timestamp())) * 1000)::float8 as reserved_ms
        from sending_buckets where phone_number_id = any(${sql.param(ids)}::text[]) for update`,
    );
    const grants = new Map<string, { granted: number; rate: number; turnsFromMs: number }>();
    for (const row of rows) {
      const want = wanted.get(row.phone_number_id) ?? 0;
      const granted = Math.max(0, Math.min(want, Math.floor(Number(row.available))));
      grants.set(row.phone_number_id, { granted, rate: row.rate, turnsFromMs: Number(row.reserved_ms ?? 0) });
    }
    const put = [...grants.entries()];
    await tx.execute(sql`
      update sending_buckets b set tokens = least(greatest(b.rate * ${BURST_SECONDS}::float8, 1),
                                                  b.tokens + b.rate * extract(epoch from (clock_timestamp() - b.refilled_at))) - g.granted,
             refilled_at = clock_timestamp(),
             reserved_until = case when g.waiting = 0 then b.reserved_until
                                   else greatest(coalesce(b.reserved_until, clock_timestamp()), clock_timestamp())
                                        + make_interval(secs => g.waiting::float8 / b.rate) end
      from unnest(${sql.param(put.map(([id]) => id))}::text[], ${sql.param(put.map(([, g]) => g.granted))}::int[],
                  ${sql.param(put.map(([id, g]) => (wanted.get(id) ?? 0) - g.granted))}::int[]) as g(id, granted, waiting)
      where b.phone_number_id = g.id`);
    return grants;
  });
}

/**
 * For the pair rate: the claimed messages that must wait because an earlier message to the same
 * person from the same number is still unsent (it may be in another worker's hands, or waiting),
 * and the messages each (number, person) pair was sent in the last minute.
 */
async function pairState(messages: Claimed[]) {
  const [behind, recent] = await Promise.all([
    rawQuery<{ id: string }>(
      // One probe of messages_queued_pair_idx per claimed message (a lateral join). As a semi-join the
      // planner, trusting statistics from before a campaign queued its thousands, may read every
      // queued message for each claimed one: 300 ms a batch instead of 1 ms.
      `select c.id from unnest($1::uuid[], $2::timestamptz[]) as c(id, created_at)
       cross join lateral (select m.organization_id, m.phone_number_id, m.recipient_phone, m.seq from messages m
                           where m.id = c.id and m.created_at = c.created_at) m
       cross join lateral (
         select 1 from messages e
         where e.organization_id = m.organization_id and e.phone_number_id = m.phone_number_id
           and e.recipient_phone = m.recipient_phone and e.direction = 'outbound' and e.accepted_at is null
           and e.failed_at is null and e.seq < m.seq and e.id <> all($1::uuid[])
         limit 1) e`,
      [messages.map((m) => m.id), messages.map((m) => m.createdAt)],
    ),
    rawQuery<{ phone_number_id: string; recipient_phone: string; n: number }>(
      // One probe of messages_pair_idx per pair. As a join, the planner may instead read every
      // message the number sent in the last minute (60,000 at 1,000 a second) against each pair:
      // seconds a batch when the statistics are older than the traffic.
      `select p.phone_number_id, p.recipient_phone, c.n
       from (select distinct phone_number_id, recipient_phone from unnest($1::text[], $2::text[]) as u(phone_number_id, recipient_phone)) p
       cross join lateral (
         select count(*)::int as n from messages m
         where m.phone_number_id = p.phone_number_id and m.recipient_phone = p.recipient_phone
           and m.accepted_at > now() - interval '60 seconds'
       ) c
       where c.n > 0`,
      [messages.map((m) => m.phone_number_id), messages.map((m) => m.recipient_phone)],
    ),
  ]);
  return {
    behind: new Set(behind.map((r) => r.id)),
    recent: new Map(recent.map((r) => [`${r.phone_number_id}|${r.recipient_phone}`, r.n])),
  };
}

/**
 * Each live number's access token (the account's, decrypted), `refused` while Meta refuses it (190)
 * until the tenant reconnects, `closing` or `suspended` with its organisation, or nothing for a
 * number no longer connected.
 */
async function numberTokens(phoneNumberIds: string[]) {
  const rows = await rawQuery<{
    phone_number_id: string;
    organization_id: string;
    access_token_encrypted: string;
    refused: boolean;
    closing: boolean;
    suspended: boolean;
  }>(
    `select p.phone_number_id, p.organization_id, a.access_token_encrypted, a.token_refused_at is not null as refused,
            o.closure_requested_at is not null as closing, o.status = 'suspended' as suspended
     from whatsapp_phone_numbers p join whatsapp_accounts a on a.id = p.account_id join organizations o on o.id = p.organization_id
     where p.phone_number_id = any($1::text[]) and p.disconnected_at is null and a.status = 'connected'`,
    [phoneNumberIds],
  );
  return new Map<string, string | { refused: true } | { closing: true } | { suspended: true }>(
    rows.map((r) => [
      `${r.organization_id}|${r.phone_number_id}`,
      r.suspended
        ? { suspended: true }
        : r.closing
          ? { closing: true }
          : r.refused
            ? { refused: true }
            : decryptSecret(r.access_token_encrypted),
    ]),
  );
}

/** Why a message waits for its account's reconnection (the API shows it while the message is queued). */
const TOKEN_HOLD_WHY = {
  title: TOKEN_HELD,
  details: "Meta refused Jumbe's access to this WhatsApp account. The message is sent once the account is connected again.",
};

// Throttling and Meta's temporary trouble: try again later. 131056 is the pair rate (4^n seconds).
const RETRY_LATER = new Set([1, 2, 4, 17, 32, 613, 80007, 130429, 131000, 131016, 131056, 131057, 133004]);

/** When a failed try may be repeated, or null when the message fails for good. */
export function retryDelayMs(error: unknown, attempts: number): number | null {
  if (attempts >= MAX_SEND_ATTEMPTS) return null;
  if (error instanceof GraphApiError) {
    if (error.code === 131056) return Math.min(4 ** attempts, 3600) * 1000;
    if (error.code === 131057) return 60_000;
    if (!RETRY_LATER.has(error.code) && !(error.code === 0 && error.status >= 500) && !error.isTransient) return null;
    return Math.min(2 ** attempts, 300) * 1000;
  }
  // A send in doubt (timed out, cut off) may have reached Meta: its `sent` webhook, which names the
  // message (biz_opaque_callback_data), gets a minute to arrive and settle it before a second try.
  if (error instanceof GraphNetworkError) return Math.max(Math.min(2 ** attempts, 300) * 1000, error.inDoubt ? IN_DOUBT_WAIT_MS : 0);
  return null;
}

/** A claimed message's key, as the statements after its claim name it. */
const keyOf = (m: MessageKey): MessageKey => ({ id: m.id, createdAt: m.createdAt });

/** Meta's error in words for the message (code, title, details), or Jumbe's for anything else. */
function failureOf({ id, createdAt }: MessageKey, organizationId: string, error: unknown): Failure {
  if (error instanceof GraphApiError)
    return {
      id,
      createdAt,
      organizationId,
      code: error.code,
      title: (error as GraphApiError & { userTitle?: string }).userTitle ?? error.message.replace(/^\(#\d+\)\s*/, ""),
      details: (error as GraphApiError & { details?: string }).details ?? error.summary,
    };
  return {
    id,
    createdAt,
    organizationId,
    code: null,
    title: "send_failed",
    details: error instanceof Error ? error.message : String(error),
  };
}

/**
 * One round: claim a batch, keep the rate limits, send, settle. Answers what happened; 0 claimed
 * means nothing was due.
 */
export async function dispatchBatch(client: GraphClient = graphClient(), limit = DISPATCH_BATCH): Promise<DispatchOutcome> {
  await releaseAbandonedClaims();
  const claimedAt = Date.now();
  const claimed = await claimMessages(limit);
  if (!claimed.length) return { claimed: 0, accepted: 0, retrying: 0, failed: 0, deferred: 0 };
  const trace: RoundTrace = { holds: [], called: new Set() };
  try {
    return await sendClaimed(claimed, claimedAt, client, trace);
  } catch (error) {
    if (isDatabaseUnavailableError(error))
      abandoned.push({
        keys: claimed.filter((m) => !trace.called.has(m.id)).map(keyOf),
        leases: [claimed[0]!.lease, ...trace.holds],
      });
    throw error;
  }
}

// long: one round of the sending engine under one claim (rate limits, holds, calls, settles), in the order its comments tell; the steps share the claimed rows and the outcome
async function sendClaimed(claimed: Claimed[], claimedAt: number, client: GraphClient, trace: RoundTrace): Promise<DispatchOutcome> {
  const outcome: DispatchOutcome = { claimed: claimed.length, accepted: 0, retrying: 0, failed: 0, deferred: 0 };

  const deferred: Deferral[] = [];
  const failures: Failure[] = [];
  // The pair rate: a person's messages one at a time in the order they were queued (none while an
  // earlier one is unsent, here or in another worker), one per batch, at most
  // PAIR_MESSAGES_PER_MINUTE a minute.
  claimed.sort((a, b) => (BigInt(a.seq) < BigInt(b.seq) ? -1 : 1));
  const pairs = await pairState(claimed);
  const inBatch = new Set<string>();
  const paced: Claimed[] = [];
  for (const message of claimed) {
    const pair = `${message.phone_number_id}|${message.recipient_phone}`;
    if (inBatch.has(pair) || pairs.behind.has(message.id) || (pairs.recent.get(pair) ?? 0) >= PAIR_MESSAGES_PER_MINUTE) {
      inBatch.add(pair);
      deferred.push({ ...keyOf(message), delayMs: 6000 });
    } else {
      inBatch.add(pair);
      paced.push(message);
    }
  }
  // The portfolio's messaging limit (people reached by templates in a rolling 24 hours).
  const overLimit = await holdOverMessagingLimit(paced);
  if (overLimit.length) {
    const over = new Set(overLimit.map((h) => h.id));
    const createdAt = new Map(paced.map((m) => [m.id, m.createdAt]));
    for (const hold of overLimit)
      deferred.push({
        ...hold,
        createdAt: createdAt.get(hold.id)!,
        why: {
          title: LIMIT_HELD,
          details: "The WhatsApp messaging limit for new people in 24 hours is reached. The message is sent when it allows again.",
        },
      });
    paced.splice(0, paced.length, ...paced.filter((m) => !over.has(m.id)));
  }
  // Each number's access token; then its throughput, taken last, just before the calls.
  const tokens = await numberTokens([...new Set(paced.map((m) => m.phone_number_id))]);
  const sendable: (Claimed & { token: string })[] = [];
  // Claimed before its organisation was suspended by a platform administrator: held as the
  // suspension holds the others, until a reactivation (suspension-hold.ts). Asked here and again
  // just before each call to Meta.
  const suspendedClaims: Claimed[] = [];
  for (const message of paced) {
    const token = tokens.get(`${message.organization_id}|${message.phone_number_id}`);
    if (typeof token === "object" && "suspended" in token) {
      suspendedClaims.push(message);
      continue;
    }
    if (typeof token === "object" && "closing" in token) {
      // Queued before its organisation began closing: not sent, now or on a reopening later.
      failures.push({
        ...keyOf(message),
        organizationId: message.organization_id,
        code: null,
        title: "organization_closing",
        details: "Not sent: the organisation was closing.",
      });
      continue;
    }
    if (typeof token === "object") {
      if (Date.now() - new Date(message.createdAt).getTime() < TOKEN_HOLD_LIMIT_MS)
        deferred.push({ ...keyOf(message), delayMs: TOKEN_HOLD_MS, why: TOKEN_HOLD_WHY });
      else
        failures.push({
          ...keyOf(message),
          organizationId: message.organization_id,
          code: 190,
          title: TOKEN_HELD,
          details: "Meta refused Jumbe's access to this WhatsApp account and it was not connected again within 24 hours.",
        });
      continue;
    }
    if (!token) {
      failures.push({
        ...keyOf(message),
        organizationId: message.organization_id,
        code: null,
        title: "no_whatsapp_number",
        details: "The number was disconnected before the message could be sent.",
      });
      continue;
    }
    sendable.push({ ...message, token });
  }
  const wanted = new Map<string, number>();
  for (const m of sendable) wanted.set(m.phone_number_id, (wanted.get(m.phone_number_id) ?? 0) + 1);
  const grants = sendable.length ? await takeSendTokens(wanted) : new Map<string, { granted: number; rate: number; turnsFromMs: number }>();
  const toSend: (Claimed & { token: string })[] = [];
  const used = new Map<string, number>();
  for (const message of sendable) {
    const grant = grants.get(message.phone_number_id) ?? { granted: 0, rate: 80, turnsFromMs: 0 };
    const n = used.get(message.phone_number_id) ?? 0;
    if (n >= grant.granted) {
      // Due again at its own turn: after those put back before it, once the bucket has refilled
      // enough for the messages ahead of it.
      used.set(message.phone_number_id, n + 1);
      // (TURN_MARGIN_MS after it: the bucket keeps what it refilled, so a little late loses no turn.)
      deferred.push({
        ...keyOf(message),
        delayMs: Math.ceil(grant.turnsFromMs + ((n - grant.granted + 1) / grant.rate) * 1000 + TURN_MARGIN_MS),
      });
      continue;
    }
    used.set(message.phone_number_id, n + 1);
    toSend.push(message);
  }
  outcome.deferred = deferred.length;
  // Written while the calls are on their way; a failure here must not keep the sends from settling.
  const deferring = deferMessages(deferred).then(
    () => undefined,
    (error: unknown) => ({ error }),
  );

  const accepted: (MessageKey & { wamid: string; waId: string | null })[] = [];
  // Accepted sends are settled SETTLE_EVERY at a time while the rest of the batch is still on its
  // way, one settle after another: Meta's "sent" comes about 200 ms after its answer, and a send
  // settled only at the end of the batch made that status take the message first (a second
  // update of it, and a wait for each other's locks).
  let settled = 0;
  let settling: Promise<unknown> = Promise.resolve();
  const settleFailures: unknown[] = [];
  const settleUpTo = (end: number) => {
    if (end <= settled) return;
    const chunk = accepted.slice(settled, end);
    settled = end;
    settling = settling.then(() => settleAccepted(chunk).catch((error: unknown) => void settleFailures.push(error)));
  };
  const retries: { delayMs: number; failure: Failure }[] = [];
  const refused: { phoneNumberId: string; organizationId: string; reason: string }[] = [];
  const held: Deferral[] = [];
  const askSuspended = suspendedNow([...new Set(toSend.map((m) => m.organization_id))]);
  const callsStarting = markCallsStarting(toSend, trace);
  let next = 0;
  const worker = async () => {
    while (next < toSend.length) {
      // A send started now might still be running when the claim runs out and another worker takes
      // the message: after the first round of calls, the rest of the batch goes back, untried.
      if (next >= IN_FLIGHT && Date.now() > claimedAt + CLAIM_LEASE_SECONDS * 1000 - env().GRAPH_API_TIMEOUT_MS - LEASE_MARGIN_MS) break;
      const index = next++;
      const message = toSend[index]!;
      // Its call is about to start: that is on disk first, or the call does not start (it goes back untried).
      if (!(await callsStarting(index))) {
        held.push({ ...keyOf(message), delayMs: 0 });
        continue;
      }
      // Meta echoes this on every status: a lost answer is joined up by the webhook (statuses.ts).
      const body = { ...message.payload, biz_opaque_callback_data: callbackDataOf(message) };
      try {
        // Files sent by mediaId become Meta's media id for this number (uploaded once; media.ts).
        const payload = await withMetaMediaIds(client, message, body);
        // The last moment before Meta: an organisation suspended since the claim holds it instead;
        // when the database cannot say, it goes back untried.
        const suspended = await askSuspended();
        if (!suspended) {
          held.push({ ...keyOf(message), delayMs: 1000 });
          continue;
        }
        if (suspended.has(message.organization_id)) {
          suspendedClaims.push(message);
          continue;
        }
        trace.called.add(message.id);
        const sent = await client.sendMessage(message.phone_number_id, message.token, payload);
        accepted.push({ ...keyOf(message), wamid: sent.wamid, waId: sent.waId ?? null });
        if (accepted.length - settled >= SETTLE_EVERY) settleUpTo(accepted.length);
      } catch (error) {
        if (error instanceof GraphApiError && error.code === 190) {
          // The connection's trouble, not the message's: it waits untried for the reconnection.
          refused.push({ phoneNumberId: message.phone_number_id, organizationId: message.organization_id, reason: error.summary });
          held.push({ ...keyOf(message), delayMs: TOKEN_HOLD_MS, why: TOKEN_HOLD_WHY });
          continue;
        }
        const delay = retryDelayMs(error, message.attempts);
        const failure = failureOf(message, message.organization_id, error);
        if (delay === null) failures.push(failure);
        else retries.push({ delayMs: delay, failure });
      }
    }
  };
  const [deferFailure] = await Promise.all([deferring, ...Array.from({ length: Math.min(IN_FLIGHT, toSend.length) }, worker)]);
  const unsent = toSend.slice(next).map((m) => ({ ...keyOf(m), delayMs: 0 }));

  settleUpTo(accepted.length);
  await settling;
  if (settleFailures.length) throw settleFailures[0];
  const suspensionHeld = await holdForSuspension(suspendedClaims);
  // Not held: their organisation was reactivated meanwhile; they go round again.
  const reactivated = suspendedClaims.filter((m) => !suspensionHeld.has(m.id)).map((m) => ({ ...keyOf(m), delayMs: 0 }));
  await deferMessages([...held, ...unsent, ...reactivated]);
  await scheduleRetries(retries);
  await failMessages(failures);
  outcome.accepted = accepted.length;
  outcome.retrying = retries.length;
  outcome.failed = failures.length;
  outcome.deferred += held.length + unsent.length + suspendedClaims.length;
  if (refused.length) {
    log().warn(
      { phoneNumberIds: [...new Set(refused.map((r) => r.phoneNumberId))] },
      "WhatsApp token refused (190): sending waits for a reconnection",
    );
    await markTokensRefused(refused);
  }
  // The deferred messages stay claimed until their lease runs out (or, the database gone, until the
  // next round that reaches it: releaseAbandonedClaims), then go round again: unsent, so nothing is
  // lost or doubled.
  if (deferFailure) throw deferFailure.error;
  return outcome;
}

/**
 * Before each round of calls, one statement holds the round's messages in doubt for
 * SEND_IN_DOUBT_HOLD_SECONDS (their claim's end moved on). Answers, for a message's place in the
 * batch, whether that was written (false: the database refused it, so its call must not start).
 */
function markCallsStarting(toSend: MessageKey[], trace: RoundTrace) {
  let marked = 0;
  let marking: Promise<boolean> = Promise.resolve(true);
  return (index: number): Promise<boolean> => {
    while (marked <= index) {
      const keys = toSend.slice(marked, marked + IN_FLIGHT);
      marked += keys.length;
      marking = marking.then(
        async (ok) =>
          ok &&
          queryRows<{ hold: string }>(
            db(),
            sql`update messages m set locked_until = now() + make_interval(secs => ${SEND_IN_DOUBT_HOLD_SECONDS})
                from ${messageKeyTable(keys)}
                where m.id = k.id and m.created_at = k.created_at and m.accepted_at is null
                returning m.locked_until::text as hold`,
          ).then(
            (rows) => {
              if (rows[0]) trace.holds.push(rows[0].hold);
              return true;
            },
            (error: unknown) => {
              log().warn({ err: error }, "could not record the calls about to start: they go back untried");
              return false;
            },
          ),
      );
    }
    return marking;
  };
}

async function settleAccepted(accepted: (MessageKey & { wamid: string; waId: string | null })[]) {
  if (!accepted.length) return;
  await db().transaction(async (tx) => {
    const rows = await queryRows<{ id: string; createdAt: string; organization_id: string; wamid: string; campaign_id: string | null }>(
      tx,
      sql`
      update messages m set wamid = a.wamid, recipient_wa_id = a.wa_id, accepted_at = coalesce(m.accepted_at, now()), locked_until = null,
             error_code = null, error_title = null, error_details = null
      from unnest(${sql.param(accepted.map((a) => a.id))}::uuid[], ${sql.param(accepted.map((a) => a.createdAt))}::timestamptz[],
                  ${sql.param(accepted.map((a) => a.wamid))}::text[], ${sql.param(accepted.map((a) => a.waId))}::text[])
           as a(id, created_at, wamid, wa_id)
      where m.id = a.id and m.created_at = a.created_at
      returning m.id, m.created_at::text as "createdAt", m.organization_id, m.wamid, m.campaign_id`,
    );
    // Sent after its campaign was paused or cancelled (the call had started): its figures move.
    await figuresMoved(
      tx,
      rows.map((r) => r.campaign_id),
    );
    // An answer to a customer from an ad opens Meta's free entry window; what is sent inside it is not charged.
    await settleFreeEntry(tx, rows);
    // Billing: a held price becomes a charge, a postpaid message counts as usage.
    await chargeAccepted(tx, rows);
    // Statuses that came in before this answer was written.
    const changes = await applyKeptStatuses(
      tx,
      rows.map((r) => ({ organizationId: r.organization_id, wamid: r.wamid })),
    );
    await messageEventsFor(tx, changes);
    // The inbox's single tick: Meta took it (the change log last: its lock is held from here to the commit).
    await logMessageEvents(tx, "status", rows);
  });
}

async function scheduleRetries(retries: { delayMs: number; failure: Failure }[]) {
  if (!retries.length) return;
  await db().execute(sql`
    update messages m set locked_until = null, next_attempt_at = now() + make_interval(secs => r.delay_ms / 1000.0),
           error_code = r.code, error_title = r.title, error_details = r.details
    from unnest(${sql.param(retries.map((r) => r.failure.id))}::uuid[], ${sql.param(retries.map((r) => r.failure.createdAt))}::timestamptz[],
                ${sql.param(retries.map((r) => r.delayMs))}::int[],
                ${sql.param(retries.map((r) => r.failure.code))}::int[], ${sql.param(retries.map((r) => r.failure.title))}::text[],
                ${sql.param(retries.map((r) => r.failure.details))}::text[]) as r(id, created_at, delay_ms, code, title, details)
    where m.id = r.id and m.created_at = r.created_at and m.accepted_at is null`);
}

/** Sends until nothing is due (tests drain this way). */
export async function drainDispatcher(client?: GraphClient, maxRounds = 1000) {
  let total = 0;
  for (let round = 0; round < maxRounds; round++) {
    const { claimed } = await dispatchBatch(client);
    total += claimed;
    if (!claimed) break;
  }
  return total;
}

/**
 * Starts this process's dispatcher: rounds back to back while there is work, a poll every `pollMs`
 * otherwise; wakeDispatcher() wakes it at once. 0 workers starts nothing.
 */
export function startDispatcher(workers: number, options: { pollMs?: number } = {}) {
  if (workers < 1) return async () => {};
  const pollMs = options.pollMs ?? 250;
  const idler = createIdler();
  const waker = idler.wake;
  wakers.add(waker);
  const idle = idler.idle;
  const loop = async () => {
    let failures = 0;
    while (idler.running) {
      idler.begin();
      if (databaseIsDown()) {
        await idle(outageBackoffMs(++failures));
        continue;
      }
      try {
        const { claimed } = await dispatchBatch();
        failures = 0;
        if (claimed) continue;
      } catch (error) {
        if (noteDatabaseError(error)) {
          await idle(outageBackoffMs(++failures));
          continue;
        }
        log().error({ err: error }, "message dispatcher error");
        await idle(1000);
        continue;
      }
      await idle(pollMs);
    }
  };
  const loops = Array.from({ length: workers }, loop);
  return async function stop() {
    wakers.delete(waker);
    idler.stop();
    await Promise.all(loops);
  };
}
