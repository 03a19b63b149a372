import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { db, type Executor } from "../../infrastructure/db/client";
import { queryRows } from "../../infrastructure/db/query";
import { messages, type CampaignParameters, type CampaignSmsFallback } from "../../infrastructure/db/schema";
import { enqueueKeyedJobs } from "../../infrastructure/jobs/queue";
import { chargeColumns, holdForQueued, sendPrice, type SendPrice } from "../billing";
import { logMessageEvents } from "../messaging";
import { fillPlaceholders, parameterValue } from "../campaigns";
import { contactByPhone, SMS_ONLY_NUMBER } from "./conversation";
import { inSmsQuietHours, nairobiHour, SMS_QUIET_UNTIL_HOUR } from "./quiet-hours";
import { SMS_SEND_QUEUE } from "./send";
import { SMS_MAX_LENGTH, smsEstimate } from "~/lib/sms-price";
import { groupBy } from "~/lib/collections";

/**
 * Meta's errors that mean WhatsApp did not and will not reach the person with this message, so an
 * SMS may (the WhatsApp Cloud API's error codes; /work/shared/reference/whatsapp-cloud-api.md §5):
 * - 131026 "Message undeliverable": not on WhatsApp, an old app, Meta's terms not accepted, blocked
 *   the business (usually a `failed` status, sometimes at once);
 * - 131049 "not delivered to maintain healthy ecosystem engagement": Meta's cap on marketing
 *   messages a person gets; WhatsApp will not deliver it, SMS is another channel;
 * - 130472 the person is in Meta's marketing experiment (held back).
 * Not 131050 (the person stopped marketing messages: their choice, no SMS instead), nor errors of
 * the business's own (token, template, payment method, rate limits), which SMS would only hide.
 */
export const UNDELIVERABLE_CODES = [131026, 131049, 130472] as const;

/** A message accepted longer ago than this is not swept, nor an armed fallback waited for (a day's bound and margin). */
export const SWEEP_HORIZON_HOURS = 48;

export const DELIVERED = ["delivered", "read", "played"];

export type FallbackState = "sent" | "cancelled" | "skipped" | "later";
type Decision = { state: "sent"; body: string } | { state: "cancelled" | "skipped"; reason: string } | { state: "later"; at: Date };

/** One pending fallback with all its decision reads: its source message, its campaign, the person. */
interface Claimed {
  id: string;
  organization_id: string;
  automation: string | null;
  body: string | null;
  created_at: Date | string;
  source_id: string;
  source_status: string;
  source_source: string | null;
  recipient_phone: string | null;
  message_contact_id: string | null;
  error_code: number | null;
  accepted_at: Date | string | null;
  sms_fallback: CampaignSmsFallback | null;
  has_campaign: boolean;
  parameters: CampaignParameters | null;
  contact_id: string | null;
  contact_name: string | null;
  opt_in: string | null;
  attributes: Record<string, unknown> | null;
  connected: boolean;
  last_inbound: Date | string | null;
}

/**
 * Decides pending fallbacks by the batch (issue 77's speed goal: 10,000 in two minutes), at most
 * once each: their source messages and the fallbacks are locked together (SKIP LOCKED: a batch never
 * waits on a status writer, so no two lock orders can deadlock), read in the same statement with the
 * person, the campaign and the connection, then decided in memory; the SMS to send are stored with
 * one hold of the wallet per organisation and price, and their send jobs queued, all in one
 * transaction. A fallback another transaction holds is decided after, alone and waiting for its lock
 * (as a single run always did). A delivered WhatsApp message cancels its fallback. Answers each
 * decided fallback's state; a fallback not pending (decided before) is absent.
 */
export async function runFallbacks(fallbackIds: readonly string[], now: Date = new Date()): Promise<Map<string, FallbackState>> {
  const decided = new Map<string, FallbackState>();
  if (!fallbackIds.length) return decided;
  const busy = await db().transaction((tx) => decideBatch(tx, fallbackIds, now, decided, "skip locked"));
  for (const id of [...busy].sort()) await db().transaction((tx) => decideBatch(tx, [id], now, decided, "wait"));
  return decided;
}

/** One fallback (the tests' and a retried job's way in): its state, or "none" when it was decided before. */
export async function runFallback(fallbackId: string, now: Date = new Date()): Promise<FallbackState | "none"> {
  return (await runFallbacks([fallbackId], now)).get(fallbackId) ?? "none";
}

/** Decides what of `ids` it can lock; answers the ids pending but held by another transaction. */
async function decideBatch(
  tx: Executor,
  ids: readonly string[],
  now: Date,
  decided: Map<string, FallbackState>,
  locks: "skip locked" | "wait",
) {
  const rows = await claimPending(tx, ids, locks);
  const seen = new Set(rows.map((r) => r.id));
  const pending =
    locks === "wait"
      ? []
      : await stillPending(
          tx,
          ids.filter((id) => !seen.has(id)),
        );
  if (!rows.length) return pending;
  const decisions = new Map<string, Decision>();
  for (const row of rows) decisions.set(row.id, await decide(tx, row, now));
  const smsIds = await queueSms(
    tx,
    rows.filter((r) => decisions.get(r.id)!.state === "sent"),
    decisions,
    now,
  );
  await recordDecisions(tx, rows, decisions, smsIds, now);
  for (const row of rows) decided.set(row.id, decisions.get(row.id)!.state);
  return pending;
}

/** The pending fallbacks of `ids` and their source messages, locked (source first, as the status writer), with what deciding reads. */
async function claimPending(tx: Executor, ids: readonly string[], locks: "skip locked" | "wait"): Promise<Claimed[]> {
  return queryRows<Claimed>(
    tx,
    sql`
    select f.id, f.organization_id, f.automation, f.body, f.created_at,
           m.id as source_id, m.status as source_status, m.source as source_source, m.recipient_phone,
           m.contact_id as message_contact_id, m.error_code, m.accepted_at,
           c.sms_fallback, (c.id is not null) as has_campaign, c.parameters,
           k.id as contact_id, k.name as contact_name, k.opt_in, k.attributes,
           exists (select 1 from sms_connections s where s.organization_id = f.organization_id) as connected,
           (select max(i.sent_at) from messages i
             where i.organization_id = f.organization_id and i.contact_id = k.id and i.direction = 'inbound') as last_inbound
    from messages m
    join sms_fallbacks f on f.source_message_id = m.id
    left join campaigns c on c.id = f.campaign_id
    left join contacts k on k.id = coalesce(m.contact_id,
      (select p.id from contacts p where p.organization_id = f.organization_id and p.phone = m.recipient_phone limit 1))
    where f.id = any(${sql.param([...ids])}::uuid[]) and f.state = 'pending'
    order by m.id
    for update of m, f ${locks === "skip locked" ? sql`skip locked` : sql``}`,
  );
}

/** Of `ids` not claimed, those still pending: another transaction holds them. */
async function stillPending(tx: Executor, ids: string[]): Promise<string[]> {
  if (!ids.length) return [];
  const rows = await queryRows<{ id: string }>(
    tx,
    sql`select id from sms_fallbacks where id = any(${sql.param(ids)}::uuid[]) and state = 'pending'`,
  );
  return rows.map((r) => r.id);
}

/** What one fallback comes to: an SMS (its text), or why not, or when to try again. */
async function decide(tx: Executor, row: Claimed, now: Date): Promise<Decision> {
  if (DELIVERED.includes(row.source_status)) return { state: "cancelled", reason: "delivered" };
  if (!row.recipient_phone) return { state: "skipped", reason: "no_phone" };
  const armed = row.automation ? armedState(row, now) : null;
  if (armed) return armed;
  if (!row.connected) return { state: "skipped", reason: "not_connected" };
  // A message with no contact and a number nobody has yet (rare): the contact is made, as an incoming SMS would.
  if (!row.contact_id) Object.assign(row, await newContact(tx, row.organization_id, row.recipient_phone));
  if (row.opt_in === "opted_out") return { state: "skipped", reason: "opted_out" };
  const body = row.automation ? (row.body ?? "").trim() : campaignSmsText(row);
  if (body === null) return { state: "skipped", reason: "no_phone" };
  if (!body || body.length > SMS_MAX_LENGTH) return { state: "skipped", reason: "too_long" };
  if (inSmsQuietHours(now, row.last_inbound ? new Date(row.last_inbound) : null)) return { state: "later", at: quietHoursEnd(now) };
  return { state: "sent", body };
}

async function newContact(tx: Executor, organizationId: string, phone: string) {
  const made = await contactByPhone(tx, organizationId, phone);
  return { contact_id: made.id, opt_in: made.optIn, contact_name: phone, attributes: null, last_inbound: null };
}

/** A campaign's SMS for this person (its text with their values); null when the campaign has no fallback. */
function campaignSmsText(row: Claimed): string | null {
  if (!row.has_campaign || !row.sms_fallback || !row.parameters) return null;
  const fields = { name: row.contact_name ?? "", phone: row.recipient_phone ?? "", attributes: row.attributes ?? null };
  const values = row.parameters.body.map((s) => parameterValue(s, fields));
  return fillPlaceholders(row.sms_fallback.text, values, row.sms_fallback.named).trim();
}

/** How long an automation's armed fallback waits for its message to be accepted by Meta before it gives up. */
const ARMED_HORIZON_MS = SWEEP_HORIZON_HOURS * 3_600_000;

/**
 * An automation's armed fallback (decision 159) is due by its time or by Meta's failure: a message
 * failed for another reason (the person stopped marketing, the business's own error) gets no SMS;
 * one not yet handed to Meta waits (a few minutes more, up to two days). Null: go on and send.
 */
function armedState(row: Claimed, now: Date): Decision | null {
  if (row.source_status === "failed")
    return row.error_code !== null && (UNDELIVERABLE_CODES as readonly number[]).includes(Number(row.error_code))
      ? null
      : { state: "skipped", reason: "not_undeliverable" };
  if (row.accepted_at) return null;
  if (now.getTime() - new Date(row.created_at).getTime() > ARMED_HORIZON_MS) return { state: "skipped", reason: "not_sent" };
  return { state: "later", at: new Date(now.getTime() + 5 * 60_000) };
}

/**
 * The SMS of the fallbacks decided `sent`, stored as their conversations' messages (channel sms)
 * with their prices held and their send jobs queued: one hold per organisation and price (parts),
 * as many as the wallet covers, the rest skipped for the balance (their decision changed to that).
 * Answers each sent fallback's SMS message id.
 */
async function queueSms(tx: Executor, rows: Claimed[], decisions: Map<string, Decision>, now: Date): Promise<Map<string, string>> {
  const smsIds = new Map<string, string>();
  const prices = new Map<string, SendPrice>();
  const held: Claimed[] = [];
  for (const group of groupBy(rows, (r) => `${r.organization_id}:${smsEstimate(sentBody(decisions, r)).priceCents}`).values()) {
    const organizationId = group[0]!.organization_id;
    if (!prices.has(organizationId)) prices.set(organizationId, await sendPrice(tx, organizationId));
    const estimate = smsEstimate(sentBody(decisions, group[0]!));
    const price = { ...prices.get(organizationId)!, priceCents: estimate.priceCents };
    const n = await holdForQueued(tx, price, {
      organizationId,
      count: group.length,
      description:
        group.length === 1
          ? `SMS fallback to ${group[0]!.recipient_phone}, ${estimate.parts} part(s)`
          : `${group.length} SMS fallbacks, ${estimate.parts} part(s) each`,
    });
    held.push(...group.slice(0, n));
    for (const row of group.slice(n)) decisions.set(row.id, { state: "skipped", reason: "balance" });
  }
  if (!held.length) return smsIds;
  const conversationOf = await conversationsForSms(tx, held);
  const values = held.map((row) => {
    const id = randomUUID();
    smsIds.set(row.id, id);
    const price = { ...prices.get(row.organization_id)!, priceCents: smsEstimate(sentBody(decisions, row)).priceCents };
    return {
      id,
      organizationId: row.organization_id,
      contactId: row.contact_id!,
      direction: "outbound" as const,
      status: "queued" as const,
      body: sentBody(decisions, row),
      channel: "sms" as const,
      phoneNumberId: conversationOf.get(row.contact_id!)!.phoneNumberId,
      messageType: "text",
      source: row.source_source,
      recipientPhone: row.recipient_phone,
      pricingCategory: "sms",
      ...chargeColumns(price),
    };
  });
  const inserted = await tx
    .insert(messages)
    .values(values)
    .returning({ id: messages.id, createdAt: sql<string>`${messages.createdAt}::text` });
  const conversationIds = [...new Set(held.map((r) => conversationOf.get(r.contact_id!)!.id))];
  await tx.execute(
    sql`update conversations set last_message_at = ${now.toISOString()}::timestamptz where id = any(${sql.param(conversationIds)}::uuid[])`,
  );
  const ids = values.map((v) => v.id);
  await logMessageEvents(tx, "message", inserted);
  await enqueueKeyedJobs(
    tx,
    SMS_SEND_QUEUE,
    ids.map((id) => ({ payload: { messageId: id }, uniqueKey: `sms-send:${id}` })),
  );
  return smsIds;
}

const sentBody = (decisions: Map<string, Decision>, row: Claimed) => {
  const decision = decisions.get(row.id)!;
  return decision.state === "sent" ? decision.body : "";
};

/**
 * Where each person's SMS lives in the inbox (conversation.ts, decision 148), for a batch: their
 * latest conversation; one made on the organisation's first WhatsApp number (or the pseudo-number
 * `sms`) for those who have none. Keyed by contact id.
 */
async function conversationsForSms(tx: Executor, rows: Claimed[]): Promise<Map<string, { id: string; phoneNumberId: string }>> {
  const people = [...new Map(rows.map((r) => [r.contact_id!, r.organization_id])).entries()];
  // Read through the (organisation, number, contact) key, one probe a number of the organisation's:
  // conversations have no index by contact alone.
  const latest = () =>
    queryRows<{ contact_id: string; id: string; phone_number_id: string }>(
      tx,
      sql`
      select x.contact_id, c.id, c.phone_number_id
      from unnest(${sql.param(people.map(([contact]) => contact))}::uuid[], ${sql.param(people.map(([, org]) => org))}::uuid[])
        as x(contact_id, organization_id)
      cross join lateral (
        select c.id, c.phone_number_id from conversations c
        where c.organization_id = x.organization_id and c.contact_id = x.contact_id
          and c.phone_number_id = any(array(select p.phone_number_id from whatsapp_phone_numbers p
                                            where p.organization_id = x.organization_id) || ${SMS_ONLY_NUMBER}::text)
        order by c.last_message_at desc nulls last, c.id desc
        limit 1) c`,
    );
  let found = await latest();
  if (found.length < people.length) {
    const have = new Set(found.map((r) => r.contact_id));
    const missing = rows.filter((r) => !have.has(r.contact_id!));
    await tx.execute(sql`
      insert into conversations (organization_id, contact_id, phone_number_id)
      select x.organization_id, x.contact_id,
             coalesce((select p.phone_number_id from whatsapp_phone_numbers p
                       where p.organization_id = x.organization_id and p.disconnected_at is null
                       order by p.created_at limit 1), ${SMS_ONLY_NUMBER})
      from (select distinct * from unnest(${sql.param(missing.map((r) => r.organization_id))}::uuid[],
                                          ${sql.param(missing.map((r) => r.contact_id!))}::uuid[]) as x(organization_id, contact_id)) x
      on conflict do nothing`);
    found = await latest();
  }
  return new Map(found.map((r) => [r.contact_id, { id: r.id, phoneNumberId: r.phone_number_id }]));
}

/** Each fallback's decision written in one statement; `later` ones get their new time. */
async function recordDecisions(tx: Executor, rows: Claimed[], decisions: Map<string, Decision>, smsIds: Map<string, string>, now: Date) {
  const list = rows.map((r) => ({ id: r.id, decision: decisions.get(r.id)! }));
  const final = list.filter((d) => d.decision.state !== "later");
  const later = list.filter((d) => d.decision.state === "later");
  if (final.length)
    await tx.execute(sql`
      update sms_fallbacks f set state = d.state, reason = d.reason, sms_message_id = d.sms, decided_at = ${now.toISOString()}::timestamptz
      from unnest(${sql.param(final.map((d) => d.id))}::uuid[], ${sql.param(final.map((d) => d.decision.state))}::text[],
                  ${sql.param(final.map((d) => ("reason" in d.decision ? d.decision.reason : null)))}::text[],
                  ${sql.param(final.map((d) => smsIds.get(d.id) ?? null))}::uuid[]) as d(id, state, reason, sms)
      where f.id = d.id`);
  if (later.length)
    await tx.execute(sql`
      update sms_fallbacks f set due_at = d.at
      from unnest(${sql.param(later.map((d) => d.id))}::uuid[],
                  ${sql.param(later.map((d) => (d.decision as { at: Date }).at.toISOString()))}::timestamptz[]) as d(id, at)
      where f.id = d.id`);
}

/** The next 08:00 in Nairobi after `now` (quiet hours end). */
export function quietHoursEnd(now: Date): Date {
  const hour = nairobiHour(now);
  const hoursAhead = (SMS_QUIET_UNTIL_HOUR - hour + 24) % 24 || 24;
  const at = new Date(now.getTime() + hoursAhead * 3_600_000);
  at.setUTCMinutes(0, 0, 0);
  return at;
}
