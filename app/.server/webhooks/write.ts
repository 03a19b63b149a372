import { sql } from "drizzle-orm";
import { activityLogs } from "../db/schema";
import { enqueueJob, type Executor } from "../jobs/queue";
import { isObject, messageText, unixToIso, type WebhookChange } from "./parse";
import { applyTemplateChanges, type TemplateChange } from "../templates/webhook";

/**
 * Writing routed webhook changes: statuses, inbound messages and contacts, quality and account
 * updates, each kind in one statement per batch. Writes are idempotent (unique keys, and "only if
 * newer" guards on Meta's own timestamps), so duplicate deliveries and any order give one result.
 */

export const REFRESH_PHONE_QUEUE = "whatsapp.refresh-phone";

export interface Account {
  id: string;
  organization_id: string;
  waba_id: string;
}
export interface Phone {
  phone_number_id: string;
  organization_id: string;
  account_id: string;
  phone_digits: string;
  display_phone_number: string;
}

type Row = Record<string, unknown>;
export const rows = async <T = Row>(executor: Executor, query: ReturnType<typeof sql>) =>
  ((await executor.execute(query)) as unknown as { rows: T[] }).rows;

// A message's statuses rank sent < delivered < read (< played, for voice); failed ranks above sent
// only: a message read or delivered stays so when a late failure arrives.
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
  type: "settings" | "system" | "message" | "template";
  status: "success" | "warning" | "error";
  action: string;
  details: string;
}

/** Collects the writes of a batch, then sends each kind in one statement. */
export class ChangeWork {
  private statuses = new Map<string, StatusRow>();
  private inbound = new Map<string, InboundRow>();
  private qualityChanges: { change: WebhookChange; phone: Phone }[] = [];
  private accountChanges: { change: WebhookChange; account: Account }[] = [];
  private templateChanges: TemplateChange[] = [];

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

  template(change: WebhookChange, account: Account) {
    this.templateChanges.push({ field: change.field, value: change.value, entryTime: change.entryTime, account });
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
      // A burst of updates for one number makes one Graph call: a refresh already waiting reads the latest state.
      await enqueueJob(
        REFRESH_PHONE_QUEUE,
        { phoneNumberId: phone.phone_number_id },
        { executor: tx, uniqueKey: `refresh-phone:${phone.phone_number_id}` },
      );
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
      if (ends)
        await tx.execute(
          sql`update whatsapp_phone_numbers set disconnected_at = now(), updated_at = now() where account_id = ${account.id} and disconnected_at is null`,
        );
      activity.push({
        organizationId: account.organization_id,
        type: "settings",
        status: event === "PARTNER_ADDED" ? "success" : ends || /VIOLATION|DISABLED|BAN/.test(event) ? "warning" : "success",
        action: event === "PARTNER_ADDED" ? "Meta confirmed the WhatsApp connection" : "WhatsApp account update",
        details: `WhatsApp Business Account ${account.waba_id}: ${event}`,
      });
    }
    activity.push(...(await applyTemplateChanges(tx, this.templateChanges)));
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
