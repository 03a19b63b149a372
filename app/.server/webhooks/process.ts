import { sql } from "drizzle-orm";
import { activityLogs } from "../db/schema";
import { enqueueJob, type Executor, type Job } from "../jobs/queue";
import { phoneDigits } from "../whatsapp/phone-format";
import { log } from "../log";

/**
 * Turns stored webhook deliveries into tenant data. Every entry and every change of a batch is
 * handled; writes are idempotent (unique keys, and "only if newer" guards on Meta's own timestamps),
 * so duplicate deliveries and any order give the same result.
 */

export const REFRESH_PHONE_QUEUE = "whatsapp.refresh-phone";
export const REPLAY_UNROUTED_QUEUE = "whatsapp.replay-unrouted";

export interface WebhookChange {
  eventId: number;
  entryId: string;
  /** Unix seconds, when Meta put it on the entry. */
  entryTime?: number;
  field: string;
  value: Record<string, unknown>;
  /** Set when the change comes back from webhook_unrouted_changes. */
  unroutedId?: number;
}

interface Account {
  id: string;
  organization_id: string;
  waba_id: string;
}
interface Phone {
  phone_number_id: string;
  organization_id: string;
  account_id: string;
  phone_digits: string;
  display_phone_number: string;
}

type Row = Record<string, unknown>;
const rows = async <T = Row>(executor: Executor, query: ReturnType<typeof sql>) =>
  ((await executor.execute(query)) as unknown as { rows: T[] }).rows;

/** The job handler of the webhook queue: each job points at a group of stored deliveries. */
export async function processWebhookJobs(jobs: Job<{ eventIds: number[] }>[], tx: Executor) {
  const ids = jobs.flatMap((job) => job.payload.eventIds ?? []).map(Number);
  if (!ids.length) return;
  const events = await rows<{ id: number | string; body: string }>(
    tx,
    sql`select id, body from webhook_events where id = any(${sql.param(ids)}::bigint[]) and processed_at is null order by id`,
  );
  const changes: WebhookChange[] = [];
  const invalid: number[] = [];
  for (const event of events) {
    const parsed = parseEnvelope(Number(event.id), event.body);
    if (parsed) changes.push(...parsed);
    else invalid.push(Number(event.id));
  }
  const failed = await applyIsolated(tx, changes);
  await tx.execute(sql`
    update webhook_events
    set processed_at = now(),
        outcome = case when id = any(${sql.param(invalid)}::bigint[]) then 'invalid'
                       when id = any(${sql.param(failed)}::bigint[]) then 'failed' else 'processed' end
    where id = any(${sql.param(ids)}::bigint[])`);
  if (invalid.length) log().warn({ eventIds: invalid }, "webhook deliveries that are not WhatsApp envelopes were kept and skipped");
}

/**
 * Applies the changes of a job together, inside a savepoint; if that fails, applies them again one
 * delivery at a time, so one delivery the database refuses fails alone (returned, to be marked
 * failed) instead of parking the deliveries committed with it, which Meta will not send again.
 */
async function applyIsolated(tx: Executor, changes: WebhookChange[]): Promise<number[]> {
  const apply = async (list: WebhookChange[]) => {
    const unrouted = await applyChanges(tx, list);
    if (unrouted.length) await storeUnrouted(tx, unrouted);
  };
  try {
    await inSavepoint(tx, () => apply(changes));
    return [];
  } catch (error) {
    log().warn({ err: error }, "webhook batch failed; applying its deliveries one by one");
  }
  const byEvent = new Map<number, WebhookChange[]>();
  for (const change of changes) byEvent.set(change.eventId, [...(byEvent.get(change.eventId) ?? []), change]);
  const failed: number[] = [];
  let lastError: unknown;
  for (const [eventId, list] of byEvent) {
    try {
      await inSavepoint(tx, () => apply(list));
    } catch (error) {
      // A fault of the moment says nothing about the delivery: the whole job is tried again later.
      if (isTransientFault(error)) throw error;
      failed.push(eventId);
      lastError = error;
      log().error({ eventId, err: error }, "webhook delivery could not be applied; kept and marked failed");
    }
  }
  // Every one failing is no bad delivery but a fault of the moment (database, conflict): retry the job.
  if (failed.length && failed.length === byEvent.size) throw lastError;
  return failed;
}

// SQLSTATE classes of faults that pass: connection, transaction rollback (serialization, deadlock),
// insufficient resources, lock not available, operator intervention, system error.
const TRANSIENT_SQLSTATE = /^(08|40|53|55P03|57|58)/;

/** Whether the error (or one it wraps, as drizzle does) is a database fault that a retry may not meet. */
function isTransientFault(error: unknown): boolean {
  for (let e: unknown = error; e && typeof e === "object"; e = (e as { cause?: unknown }).cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) && TRANSIENT_SQLSTATE.test(code)) return true;
  }
  return false;
}

/** Runs `work` so that its failure undoes only its own writes and leaves `tx` usable. */
async function inSavepoint(tx: Executor, work: () => Promise<void>) {
  await tx.execute(sql`savepoint webhook_apply`);
  try {
    await work();
  } catch (error) {
    await tx.execute(sql`rollback to savepoint webhook_apply`);
    await tx.execute(sql`release savepoint webhook_apply`);
    throw error;
  }
  await tx.execute(sql`release savepoint webhook_apply`);
}

/** `entry[] × changes[]` of one delivery, or null when it is not a WhatsApp Business envelope. */
export function parseEnvelope(eventId: number, body: string): WebhookChange[] | null {
  let envelope: unknown;
  try {
    envelope = cleanJson(JSON.parse(body));
  } catch {
    return null;
  }
  if (!isObject(envelope) || envelope.object !== "whatsapp_business_account" || !Array.isArray(envelope.entry)) return null;
  const changes: WebhookChange[] = [];
  for (const entry of envelope.entry) {
    if (!isObject(entry) || !Array.isArray(entry.changes)) continue;
    const entryTime = Number(entry.time);
    for (const change of entry.changes) {
      if (!isObject(change) || typeof change.field !== "string" || !isObject(change.value)) continue;
      changes.push({
        eventId,
        entryId: String(entry.id ?? ""),
        entryTime: Number.isFinite(entryTime) && entryTime > 0 ? entryTime : undefined,
        field: change.field,
        value: change.value,
      });
    }
  }
  return changes;
}

/** Applies routed changes and returns the ones no tenant owns yet. */
export async function applyChanges(tx: Executor, changes: WebhookChange[]): Promise<WebhookChange[]> {
  if (!changes.length) return [];
  const wabaIds = new Set<string>();
  const phoneIds = new Set<string>();
  for (const change of changes) {
    wabaIds.add(change.entryId);
    const wabaInfo = change.value.waba_info;
    if (isObject(wabaInfo) && wabaInfo.waba_id) wabaIds.add(String(wabaInfo.waba_id));
    const metadata = change.value.metadata;
    if (isObject(metadata) && metadata.phone_number_id) phoneIds.add(String(metadata.phone_number_id));
  }
  const accounts = await rows<Account>(
    tx,
    // Live links first, so a WABA a tenant disconnected and another connected goes to the live one only.
    sql`select id, organization_id, waba_id from whatsapp_accounts where waba_id = any(${sql.param([...wabaIds])}::text[])
        order by status = 'connected', connected_at`,
  );
  const accountIds = accounts.map((a) => a.id);
  const phones = await rows<Phone>(
    tx,
    sql`select phone_number_id, organization_id, account_id, phone_digits, display_phone_number from whatsapp_phone_numbers
        where phone_number_id = any(${sql.param([...phoneIds])}::text[]) or account_id = any(${sql.param(accountIds)}::uuid[])
        order by disconnected_at is null, created_at`,
  );
  // The last row of a key wins: the live one, else the latest disconnected one (its history).
  const accountByWaba = new Map(accounts.map((a) => [a.waba_id, a]));
  const phoneById = new Map(phones.map((p) => [p.phone_number_id, p]));

  const unrouted: WebhookChange[] = [];
  const work = new ChangeWork();
  for (const change of changes) {
    let routed = true;
    switch (change.field) {
      case "messages": {
        const metadata = change.value.metadata;
        const phone = isObject(metadata) ? phoneById.get(String(metadata.phone_number_id)) : undefined;
        if (phone) work.messages(change, phone);
        else routed = false;
        break;
      }
      case "phone_number_quality_update": {
        const account = accountByWaba.get(change.entryId);
        const digits = phoneDigits(String(change.value.display_phone_number ?? ""));
        const phone = account && phones.find((p) => p.account_id === account.id && p.phone_digits === digits);
        if (phone) work.quality(change, phone);
        else routed = false;
        break;
      }
      case "account_update": {
        const wabaInfo = change.value.waba_info;
        // PARTNER_ADDED names the WABA in waba_info; entry.id is then the partner's business.
        const wabaId = isObject(wabaInfo) && wabaInfo.waba_id ? String(wabaInfo.waba_id) : change.entryId;
        const account = accountByWaba.get(wabaId);
        if (account) work.account(change, account);
        else routed = false;
        break;
      }
      default:
        // Fields Jumbe does not use yet (templates, alerts...) stay in webhook_events for later.
        break;
    }
    if (!routed) unrouted.push(change);
  }
  await work.write(tx);
  return unrouted;
}

async function storeUnrouted(tx: Executor, changes: WebhookChange[]) {
  const values = changes.map((c) => {
    const metadata = c.value.metadata;
    const wabaInfo = c.value.waba_info;
    return {
      eventId: c.eventId,
      wabaId: isObject(wabaInfo) && wabaInfo.waba_id ? String(wabaInfo.waba_id) : c.entryId,
      phoneNumberId: isObject(metadata) && metadata.phone_number_id ? String(metadata.phone_number_id) : null,
      entryTime: c.entryTime ?? null,
      field: c.field,
      value: c.value,
    };
  });
  await tx.execute(sql`
    insert into webhook_unrouted_changes (event_id, waba_id, phone_number_id, entry_time, field, value)
    select * from unnest(
      ${sql.param(values.map((v) => v.eventId))}::bigint[], ${sql.param(values.map((v) => v.wabaId))}::text[],
      ${sql.param(values.map((v) => v.phoneNumberId))}::text[], ${sql.param(values.map((v) => v.entryTime))}::bigint[],
      ${sql.param(values.map((v) => v.field))}::text[], ${sql.param(values.map((v) => JSON.stringify(v.value)))}::jsonb[])`);
}

/** Replays changes that arrived before their WABA was connected (job payload: the WABA id). */
export async function replayUnroutedChanges(jobs: Job<{ wabaId: string }>[], tx: Executor) {
  for (const job of jobs) {
    const stored = await rows<{ id: number | string; event_id: number | string; waba_id: string; entry_time: number | string | null; field: string; value: Record<string, unknown> }>(
      tx,
      sql`select u.id, u.event_id, u.waba_id, u.entry_time, u.field, u.value from webhook_unrouted_changes u
          where u.waba_id = ${job.payload.wabaId}
             or u.phone_number_id in (select p.phone_number_id from whatsapp_phone_numbers p join whatsapp_accounts a on a.id = p.account_id where a.waba_id = ${job.payload.wabaId})
          order by u.id`,
    );
    if (!stored.length) continue;
    const changes: WebhookChange[] = stored.map((s) => ({
      eventId: Number(s.event_id),
      // Stored under the WABA it names, which is where routing looks (waba_info wins for account_update).
      entryId: s.waba_id,
      entryTime: s.entry_time === null ? undefined : Number(s.entry_time),
      field: s.field,
      value: typeof s.value === "string" ? (JSON.parse(s.value) as Record<string, unknown>) : s.value,
      unroutedId: Number(s.id),
    }));
    const stillUnrouted = new Set((await applyChanges(tx, changes)).map((c) => c.unroutedId));
    const done = changes.filter((c) => !stillUnrouted.has(c.unroutedId)).map((c) => c.unroutedId!);
    if (done.length) await tx.execute(sql`delete from webhook_unrouted_changes where id = any(${sql.param(done)}::bigint[])`);
  }
}

// sent < delivered < read; failed only beats what is below delivered (reference §4.5).
const STATUS_RANK_SQL = (column: string) =>
  `case ${column} when 'played' then 5 when 'read' then 4 when 'delivered' then 3 when 'failed' then 2 when 'sent' then 1 else 0 end`;

interface StatusRow {
  organizationId: string;
  phoneNumberId: string;
  wamid: string;
  status: string;
  occurredAt: string;
  recipientId: string | null;
  errors: string | null;
  pricing: string | null;
  eventId: number;
}
interface InboundRow {
  organizationId: string;
  phoneNumberId: string;
  wamid: string;
  waId: string;
  name: string;
  type: string;
  body: string;
  payload: string;
  sentAt: string;
}
interface ActivityRow {
  organizationId: string;
  type: "settings" | "system" | "message";
  status: "success" | "warning" | "error";
  action: string;
  details: string;
}

/** Collects the writes of a batch, then sends each kind in one statement. */
class ChangeWork {
  private statuses = new Map<string, StatusRow>();
  private inbound = new Map<string, InboundRow>();
  private qualityChanges: { change: WebhookChange; phone: Phone }[] = [];
  private accountChanges: { change: WebhookChange; account: Account }[] = [];

  messages(change: WebhookChange, phone: Phone) {
    const value = change.value;
    const contacts = Array.isArray(value.contacts) ? value.contacts.filter(isObject) : [];
    for (const status of Array.isArray(value.statuses) ? value.statuses.filter(isObject) : []) {
      const wamid = typeof status.id === "string" ? status.id : "";
      const name = typeof status.status === "string" ? status.status : "";
      if (!wamid || !name) continue;
      const key = `${phone.organization_id}|${wamid}|${name}`;
      if (this.statuses.has(key)) continue;
      this.statuses.set(key, {
        organizationId: phone.organization_id,
        phoneNumberId: phone.phone_number_id,
        wamid,
        status: name,
        occurredAt: unixToIso(status.timestamp),
        recipientId: typeof status.recipient_id === "string" ? status.recipient_id : null,
        errors: status.errors ? JSON.stringify(status.errors) : null,
        pricing: status.pricing ? JSON.stringify(status.pricing) : null,
        eventId: change.eventId,
      });
    }
    for (const message of Array.isArray(value.messages) ? value.messages.filter(isObject) : []) {
      const wamid = typeof message.id === "string" ? message.id : "";
      const from = String(message.from ?? message.from_user_id ?? "");
      if (!wamid || !from) continue;
      const key = `${phone.organization_id}|${wamid}`;
      if (this.inbound.has(key)) continue;
      const contact = contacts.find((c) => c.wa_id === from || c.user_id === from) ?? contacts[0];
      const profile = contact && isObject(contact.profile) ? contact.profile : undefined;
      this.inbound.set(key, {
        organizationId: phone.organization_id,
        phoneNumberId: phone.phone_number_id,
        wamid,
        waId: from,
        name: (typeof profile?.name === "string" && profile.name.trim()) || `+${from}`,
        type: typeof message.type === "string" ? message.type : "unknown",
        body: messageText(message),
        payload: JSON.stringify(message),
        sentAt: unixToIso(message.timestamp),
      });
    }
  }

  quality(change: WebhookChange, phone: Phone) {
    this.qualityChanges.push({ change, phone });
  }

  account(change: WebhookChange, account: Account) {
    this.accountChanges.push({ change, account });
  }

  async write(tx: Executor) {
    const activity: ActivityRow[] = [];
    await this.writeStatuses(tx);
    await this.writeInbound(tx);
    // Only the routed link's row: a disconnected tenant's row of the same number is history.
    for (const { change, phone } of this.qualityChanges) {
      const event = String(change.value.event ?? "UNKNOWN");
      const at = change.entryTime ? new Date(change.entryTime * 1000).toISOString() : new Date().toISOString();
      const limit = typeof change.value.current_limit === "string" ? change.value.current_limit : null;
      const updated = await rows(
        tx,
        sql`update whatsapp_phone_numbers
            set quality_event = ${event}, quality_event_at = ${at}::timestamptz, messaging_limit = coalesce(${limit}, messaging_limit), updated_at = now()
            where phone_number_id = ${phone.phone_number_id} and account_id = ${phone.account_id} and (quality_event_at is null or quality_event_at <= ${at}::timestamptz)
              and not (quality_event is not distinct from ${event} and quality_event_at = ${at}::timestamptz)
            returning phone_number_id`,
      );
      if (!updated.length) continue;
      // The event says what changed; Graph says where quality stands now.
      await enqueueJob(REFRESH_PHONE_QUEUE, { phoneNumberId: phone.phone_number_id }, { executor: tx });
      activity.push({
        organizationId: phone.organization_id,
        type: "system",
        status: event === "FLAGGED" || event === "DOWNGRADE" ? "warning" : "success",
        action: "WhatsApp number quality update",
        details: `${phone.display_phone_number}: ${event}${limit ? ` (messaging limit ${limit})` : ""}`,
      });
    }
    for (const { change, account } of this.accountChanges) {
      const event = String(change.value.event ?? "UNKNOWN");
      const at = change.entryTime ? new Date(change.entryTime * 1000).toISOString() : new Date().toISOString();
      const ends = event === "PARTNER_REMOVED" || event === "ACCOUNT_DELETED";
      const updated = await rows(
        tx,
        sql`update whatsapp_accounts
            set account_event = ${event}, account_event_at = ${at}::timestamptz, updated_at = now(),
                status = case when ${ends} then 'disconnected' else status end,
                subscribed = case when ${ends} then false else subscribed end,
                disconnected_at = case when ${ends} then now() else disconnected_at end
            where id = ${account.id} and (account_event_at is null or account_event_at <= ${at}::timestamptz)
              and not (account_event is not distinct from ${event} and account_event_at = ${at}::timestamptz)
            returning id`,
      );
      if (!updated.length) continue;
      if (ends) await tx.execute(sql`update whatsapp_phone_numbers set disconnected_at = now(), updated_at = now() where account_id = ${account.id} and disconnected_at is null`);
      activity.push({
        organizationId: account.organization_id,
        type: "settings",
        status: event === "PARTNER_ADDED" ? "success" : ends || /VIOLATION|DISABLED|BAN/.test(event) ? "warning" : "success",
        action: event === "PARTNER_ADDED" ? "Meta confirmed the WhatsApp connection" : "WhatsApp account update",
        details: `WhatsApp Business Account ${account.waba_id}: ${event}`,
      });
    }
    if (activity.length) await tx.insert(activityLogs).values(activity);
  }

  private async writeStatuses(tx: Executor) {
    const list = [...this.statuses.values()];
    if (!list.length) return;
    const col = <K extends keyof StatusRow>(key: K) => sql.param(list.map((s) => s[key]));
    await tx.execute(sql`
      insert into message_statuses (organization_id, phone_number_id, wamid, status, occurred_at, recipient_id, errors, pricing, event_id)
      select * from unnest(${col("organizationId")}::uuid[], ${col("phoneNumberId")}::text[], ${col("wamid")}::text[], ${col("status")}::text[],
                           ${col("occurredAt")}::timestamptz[], ${col("recipientId")}::text[], ${col("errors")}::jsonb[], ${col("pricing")}::jsonb[],
                           ${col("eventId")}::bigint[])
      on conflict (organization_id, wamid, status) do nothing`);
    // Messages Jumbe sent move forward only: a late "delivered" never overwrites "read".
    await tx.execute(sql`
      update messages m set status = s.status
      from (
        select distinct on (organization_id, wamid) organization_id, wamid, status
        from unnest(${col("organizationId")}::uuid[], ${col("wamid")}::text[], ${col("status")}::text[]) as t(organization_id, wamid, status)
        order by organization_id, wamid, ${sql.raw(STATUS_RANK_SQL("status"))} desc
      ) s
      where m.organization_id = s.organization_id and m.wamid = s.wamid and m.direction = 'outbound'
        and ${sql.raw(STATUS_RANK_SQL("m.status"))} < ${sql.raw(STATUS_RANK_SQL("s.status"))}`);
  }

  private async writeInbound(tx: Executor) {
    const list = [...this.inbound.values()];
    if (!list.length) return;
    // One contact row per (tenant, WhatsApp id): the batch may hold several messages from one person.
    const people = new Map<string, InboundRow>();
    for (const m of list) {
      const key = `${m.organizationId}|${m.waId}`;
      const seen = people.get(key);
      if (!seen || seen.sentAt < m.sentAt) people.set(key, m);
    }
    const contacts = [...people.values()];
    const ccol = <K extends keyof InboundRow>(key: K) => sql.param(contacts.map((c) => c[key]));
    const saved = await rows<{ id: string; organization_id: string; wa_id: string }>(
      tx,
      sql`insert into contacts (organization_id, wa_id, phone, name, last_seen_at)
          select o, w, '+' || w, n, s from unnest(${ccol("organizationId")}::uuid[], ${ccol("waId")}::text[], ${ccol("name")}::text[], ${ccol("sentAt")}::timestamptz[]) as t(o, w, n, s)
          on conflict (organization_id, wa_id) where wa_id is not null
          do update set name = excluded.name, last_seen_at = greatest(contacts.last_seen_at, excluded.last_seen_at)
          returning id, organization_id, wa_id`,
    );
    const contactId = new Map(saved.map((c) => [`${c.organization_id}|${c.wa_id}`, c.id]));
    const mcol = <K extends keyof InboundRow>(key: K) => sql.param(list.map((m) => m[key]));
    await tx.execute(sql`
      insert into messages (organization_id, contact_id, direction, status, body, wamid, phone_number_id, message_type, payload, sent_at, created_at)
      select o, c, 'inbound', 'received', b, w, p, ty, pl, s, now()
      from unnest(${mcol("organizationId")}::uuid[], ${sql.param(list.map((m) => contactId.get(`${m.organizationId}|${m.waId}`) ?? null))}::uuid[],
                  ${mcol("body")}::text[], ${mcol("wamid")}::text[], ${mcol("phoneNumberId")}::text[], ${mcol("type")}::text[],
                  ${mcol("payload")}::jsonb[], ${mcol("sentAt")}::timestamptz[]) as t(o, c, b, w, p, ty, pl, s)
      on conflict (organization_id, wamid) where wamid is not null do nothing`);
  }
}

function messageText(message: Record<string, unknown>): string {
  const type = String(message.type ?? "");
  const part = isObject(message[type]) ? (message[type] as Record<string, unknown>) : {};
  if (type === "text" && typeof part.body === "string") return part.body;
  if (typeof part.caption === "string") return part.caption;
  if (type === "button" && typeof part.text === "string") return part.text;
  if (type === "interactive") {
    const reply = isObject(part.button_reply) ? part.button_reply : isObject(part.list_reply) ? part.list_reply : undefined;
    if (reply && typeof reply.title === "string") return reply.title;
  }
  if (type === "reaction" && typeof part.emoji === "string") return part.emoji;
  if (type === "location") return [part.name, part.address].filter((v) => typeof v === "string").join(", ") || "Location";
  return `[${type || "unknown"}]`;
}

// A code unit of a surrogate pair without its other half.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * Makes parsed JSON storable: PostgreSQL text and jsonb hold neither U+0000 nor half a surrogate
 * pair, both of which valid JSON may carry as escapes. NUL is dropped and a lone surrogate becomes
 * U+FFFD, in keys as in values.
 */
export function cleanJson(value: unknown): unknown {
  if (typeof value === "string") return value.replaceAll("\u0000", "").replace(LONE_SURROGATE, "\ufffd");
  if (Array.isArray(value)) return value.map(cleanJson);
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [cleanJson(k) as string, cleanJson(v)]));
  return value;
}

function unixToIso(value: unknown) {
  const seconds = Number(value);
  return new Date(Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : Date.now()).toISOString();
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
