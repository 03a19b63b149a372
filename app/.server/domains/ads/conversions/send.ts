import { sql } from "drizzle-orm";
import { db } from "../../../infrastructure/db/client";
import { queryRows } from "../../../infrastructure/db/query";
import {
  describeGraphFailure,
  GraphApiError,
  graphClient,
  type ConversionEvent,
} from "../../../infrastructure/clients/whatsapp-graph/graph-client";
import { log } from "../../../infrastructure/log";
import { decryptSecret } from "../../../infrastructure/security/crypto";
import { datasetOf } from "./consent";
import { CONVERSION_WINDOW_DAYS } from "./record";

/**
 * The outbox's sender (issue 77, decision 156): queued conversion events, claimed under a row lock
 * (SKIP LOCKED) so two workers never hold the same, sent in batches per dataset to
 * `POST /{dataset_id}/events` with the event's idempotency key as Meta's `event_id`. A 5xx or a
 * timeout puts the batch back with a backoff; a 4xx fails the event with Meta's words (a batch Meta
 * refuses is tried event by event, so one wrong event fails alone); an event older than 7 days is
 * skipped before it is sent (Meta would refuse the whole request for it). An event whose sender died
 * after sending (`sending` past its claim) is sent again with the same `event_id`, which Meta keeps once.
 */
const CLAIM_BATCH = 500;
const META_BATCH = 1000;
const CLAIM_MINUTES = 5;
export const MAX_CONVERSION_ATTEMPTS = 8;
/** An event this close to 7 days old is skipped rather than sent (clocks differ a little). */
const MARGIN_MINUTES = 5;

interface Claimed {
  id: string;
  organization_id: string;
  waba_id: string;
  ctwa_clid: string;
  event_name: "LeadSubmitted" | "Purchase";
  value_cents: number | null;
  currency: string | null;
  idempotency_key: string;
  event_time: string;
  attempts: number;
}

/** Sends every due event, batch after batch; answers how many were claimed. */
export async function sendDueConversions(): Promise<number> {
  let total = 0;
  for (;;) {
    const claimed = await claimDue();
    if (!claimed.length) return total;
    total += claimed.length;
    const groups = new Map<string, Claimed[]>();
    for (const event of claimed) {
      const key = `${event.organization_id}\u0000${event.waba_id}`;
      groups.set(key, [...(groups.get(key) ?? []), event]);
    }
    for (const group of groups.values()) await sendGroup(group);
  }
}

/** Claims due events (queued, or sending past a dead sender's claim); skips those too old for Meta. */
async function claimDue() {
  return db().transaction(async (tx) => {
    await tx.execute(sql`
      update ad_conversion_events set status = 'skipped', claimed_until = null, updated_at = now(),
        reason = 'Older than 7 days: Meta takes conversion events up to 7 days after they happen.'
      where id in (select id from ad_conversion_events
                   where (status = 'queued' or (status = 'sending' and claimed_until < now()))
                     and event_time < now() - make_interval(days => ${CONVERSION_WINDOW_DAYS}) + make_interval(mins => ${MARGIN_MINUTES})
                   limit ${CLAIM_BATCH} for update skip locked)`);
    return queryRows<Claimed>(
      tx,
      sql`
      update ad_conversion_events e set status = 'sending', attempts = e.attempts + 1,
        claimed_until = now() + make_interval(mins => ${CLAIM_MINUTES}), updated_at = now()
      where e.id in (select id from ad_conversion_events
                     where ((status = 'queued' and next_attempt_at <= now()) or (status = 'sending' and claimed_until < now()))
                     order by next_attempt_at limit ${CLAIM_BATCH} for update skip locked)
      returning e.id, e.organization_id, e.waba_id, e.ctwa_clid, e.event_name, e.value_cents, e.currency, e.idempotency_key,
                e.event_time::text, e.attempts`,
    );
  });
}

const asEvent = (e: Claimed): ConversionEvent => ({
  event_name: e.event_name,
  event_time: Math.floor(Date.parse(e.event_time) / 1000),
  event_id: e.idempotency_key,
  action_source: "business_messaging",
  messaging_channel: "whatsapp",
  user_data: { whatsapp_business_account_id: e.waba_id, ctwa_clid: e.ctwa_clid },
  ...(e.value_cents !== null ? { custom_data: { currency: e.currency ?? "KES", value: e.value_cents / 100 } } : {}),
});

/** One organisation's WABA: its consent and account checked, its dataset found, its events sent. */
async function sendGroup(group: Claimed[]) {
  const { organization_id: organizationId, waba_id: wabaId } = group[0]!;
  const [account] = await queryRows<{ enabled: boolean | null; access_token_encrypted: string | null }>(
    db(),
    sql`select (select enabled from ad_conversion_settings where organization_id = ${organizationId}) as enabled,
               (select access_token_encrypted from whatsapp_accounts where organization_id = ${organizationId} and waba_id = ${wabaId}
                and status = 'connected' limit 1) as access_token_encrypted`,
  );
  if (!account?.enabled) return finish(group, "skipped", "Not sent: sending conversions to Meta was turned off.", null);
  if (!account.access_token_encrypted) return finish(group, "failed", "The WhatsApp account is no longer connected.", null);
  let datasetId: string;
  try {
    datasetId = await datasetOf(organizationId, wabaId, account.access_token_encrypted);
  } catch (error) {
    return failedAttempt(group, error);
  }
  for (let i = 0; i < group.length; i += META_BATCH)
    await sendBatch(datasetId, account.access_token_encrypted, group.slice(i, i + META_BATCH), true);
}

async function sendBatch(datasetId: string, sealedToken: string, batch: Claimed[], splitOnRefusal: boolean): Promise<void> {
  try {
    const answer = await graphClient().sendConversionEvents(datasetId, decryptSecret(sealedToken), batch.map(asEvent));
    await finish(batch, "sent", null, JSON.stringify(answer));
  } catch (error) {
    if (error instanceof GraphApiError && !error.retryable && error.status < 500) {
      // Meta refuses the whole request for one wrong event: each alone, so the others still go.
      if (splitOnRefusal && batch.length > 1) {
        for (const event of batch) await sendBatch(datasetId, sealedToken, [event], false);
        return;
      }
      return finish(batch, "failed", `${error.userMessage ?? error.message}${error.details ? `: ${error.details}` : ""}`, error.summary);
    }
    await failedAttempt(batch, error);
  }
}

/** Settles events this sender still holds (a dead sender's claim may have passed to another). */
async function finish(events: Claimed[], status: "sent" | "failed" | "skipped", reason: string | null, answer: string | null) {
  await db().execute(sql`
    update ad_conversion_events set status = ${status}, reason = ${reason}, meta_answer = ${answer}, claimed_until = null,
      sent_at = case when ${status} = 'sent' then now() else sent_at end, updated_at = now()
    where id = any(${sql.param(events.map((e) => e.id))}::uuid[]) and status = 'sending'`);
}

/** Meta unreachable or busy: again later (a doubling wait), or failed after the last attempt. */
async function failedAttempt(events: Claimed[], error: unknown) {
  const reason = describeGraphFailure(error);
  log().warn({ events: events.length, reason }, "conversion events not sent; trying again later");
  const last = events.filter((e) => e.attempts >= MAX_CONVERSION_ATTEMPTS);
  const again = events.filter((e) => e.attempts < MAX_CONVERSION_ATTEMPTS);
  if (last.length) await finish(last, "failed", `Meta could not be reached after ${MAX_CONVERSION_ATTEMPTS} attempts: ${reason}`, null);
  if (again.length)
    await db().execute(sql`
      update ad_conversion_events set status = 'queued', reason = ${reason}, claimed_until = null, updated_at = now(),
        next_attempt_at = now() + make_interval(secs => least(3600, 30 * power(2, attempts - 1)))
      where id = any(${sql.param(again.map((e) => e.id))}::uuid[]) and status = 'sending'`);
}
