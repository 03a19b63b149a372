import { sql } from "drizzle-orm";
import { withoutBidiControls } from "~/lib/names";
import { activityLogs } from "../../infrastructure/db/schema";
import { enqueueJob } from "../../infrastructure/jobs/queue";
import { isObject, messageText, unixToIso, type WebhookChange } from "./parse";
import { applyTemplateChanges, type TemplateChange } from "../../domains/templates/webhook";
import { adoptLostAccepts, applyKeptStatusesFound } from "../../domains/messaging/statuses";
import { queueLateStatuses } from "../../domains/messaging/late-statuses";
import { messageOfCallback } from "../../domains/messaging/callback-data";
import { messageEventsFor, receivedEventsFor } from "../../domains/messaging/events";
import { enqueueInboundMedia } from "../../domains/messaging/inbound-media";
import { applyConsentKeywords, applyMarketingStops, applyUserPreferences } from "../../domains/contacts/signals";
import { markCampaignReplies } from "../../domains/campaigns/replies";
import { pauseForLowQuality } from "../../domains/campaigns/guards";
import { releaseMessagingLimitHolds } from "../../domains/messaging/messaging-limit";
import { notifyQualityDrop } from "../../domains/notifications/emitters";
import { logFoundMessageEvents } from "../../domains/messaging/conversation-events";
import { upsertConversations } from "../../domains/inbox/inbound";
import { recordInboundOrders, type InboundOrder } from "../../domains/shop";
import { noteAutomationsArrival, queueAutomationsArrival } from "../../domains/automations/run";
import { stopSessionsOnOptOut } from "../../domains/automations/flows/session";
import { queueOrderPayments } from "../../domains/automations";
import { queryRows } from "../../infrastructure/db/query";
import { enqueueContactsCreated } from "../../domains/webhooks-out/events";
import { claimPaymentReplies } from "../../domains/payments";
import { recordAdReferrals } from "../../domains/ads";
import type { Executor } from "../../infrastructure/db/client";
import { englishOf, words } from "../../infrastructure/words/said";

/**
 * Writing routed webhook changes: statuses, inbound messages and contacts, quality and account
 * updates, each kind in one statement per batch. Writes are idempotent (unique keys, and "only if
 * newer" guards on Meta's own timestamps), so duplicate deliveries and any order give one result.
 */

export const REFRESH_PHONE_QUEUE = "whatsapp.refresh-phone";

/**
 * A contact's last_seen_at is kept to this step: a message within it of the stored time, from a
 * person whose name has not changed, leaves their row as it is (decision 094).
 */
export const LAST_SEEN_STEP_MS = 60_000;

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
export const rows = async <T = Row>(executor: Executor, query: ReturnType<typeof sql>) => await queryRows<T>(executor, query);

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
  /** Jumbe's message, echoed by Meta as biz_opaque_callback_data: its key, or its id alone (an older send). */
  callback: { id: string; createdAt: string | null } | null;
}
interface InboundRow {
  organizationId: string;
  phoneNumberId: string;
  wamid: string;
  /** The sender's WhatsApp id (their number's digits), or null for a username-only sender. */
  waId: string | null;
  /** Meta's business-scoped user id (BSUID), when the webhook carries one. */
  userId: string | null;
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

/** The batch's newly stored `order` messages, with their cart, contact and conversation. */
function ordersOf(
  list: InboundRow[],
  inserted: {
    id: string;
    organization_id: string;
    message_type: string;
    phone_number_id: string;
    contact_id: string | null;
    wamid: string;
  }[],
  conversationOf: Map<string, string>,
): InboundOrder[] {
  const byKey = new Map(list.map((m) => [`${m.organizationId}|${m.wamid}`, m]));
  return inserted.flatMap((m) => {
    const row = byKey.get(`${m.organization_id}|${m.wamid}`);
    if (m.message_type !== "order" || !row) return [];
    const payload: unknown = JSON.parse(row.payload);
    return [
      {
        organizationId: m.organization_id,
        contactId: m.contact_id,
        conversationId: (m.contact_id && conversationOf.get(`${m.organization_id}|${m.phone_number_id}|${m.contact_id}`)) || null,
        messageId: m.id,
        wamid: m.wamid,
        order: isObject(payload) ? payload.order : null,
        receivedAt: row.sentAt,
      },
    ];
  });
}

/** The advisory lock space of a person's webhook writes (the change log's is 16016). */
const PERSON_LOCK_SPACE = 16017;

/**
 * Takes the batch's people's locks until the transaction ends, in the order of their keys: two
 * webhook batches writing the same person (their contact row, conversation, campaign replies,
 * consent) go one after the other, and can never wait on each other in a circle. Row locks could not
 * do it: a person new to one batch's read may be known by the time of its insert, which then locks
 * that row out of order (two instances deadlocked so at 1,000 messages a second; decision 095).
 * Ordered by the lock's own key, so two people whose keys collide are one lock, taken in its place.
 */
async function lockPeople(tx: Executor, keys: readonly string[]) {
  if (!keys.length) return;
  await tx.execute(sql`
    select pg_advisory_xact_lock(${PERSON_LOCK_SPACE}, k)
    from (select distinct hashtext(p) as k from unnest(${sql.param([...keys])}::text[]) as t(p)) l
    order by k`);
}

/** Collects the writes of a batch, then sends each kind in one statement. */
export class ChangeWork {
  private statuses = new Map<string, StatusRow>();
  private inbound = new Map<string, InboundRow>();
  private qualityChanges: { change: WebhookChange; phone: Phone }[] = [];
  private accountChanges: { change: WebhookChange; account: Account }[] = [];
  private templateChanges: TemplateChange[] = [];
  private preferences: { organizationId: string; waId: string; value: string; detail: string }[] = [];

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
        callback: messageOfCallback(status.biz_opaque_callback_data),
      });
    }
    for (const message of Array.isArray(value.messages) ? value.messages.filter(isObject) : []) {
      const wamid = typeof message.id === "string" ? message.id : "";
      const waId = typeof message.from === "string" && /^\d{5,20}$/.test(message.from) ? message.from : null;
      const userId = typeof message.from_user_id === "string" && message.from_user_id ? message.from_user_id.slice(0, 128) : null;
      if (!wamid || (!waId && !userId)) continue;
      const key = `${phone.organization_id}|${wamid}`;
      if (this.inbound.has(key)) continue;
      const contact =
        contacts.find((c) => (waId && c.wa_id === waId) || (userId && c.user_id === userId)) ??
        (contacts.length === 1 ? contacts[0] : undefined);
      const profile = contact && isObject(contact.profile) ? contact.profile : undefined;
      const contactUserId = typeof contact?.user_id === "string" && contact.user_id ? contact.user_id.slice(0, 128) : null;
      this.inbound.set(key, {
        organizationId: phone.organization_id,
        phoneNumberId: phone.phone_number_id,
        wamid,
        waId,
        userId: userId ?? contactUserId,
        // A WhatsApp profile name is the customer's own text: reordering controls are dropped, as from any name.
        name: (typeof profile?.name === "string" && withoutBidiControls(profile.name).trim()) || (waId ? `+${waId}` : "WhatsApp user"),
        type: typeof message.type === "string" ? message.type : "unknown",
        body: messageText(message),
        payload: JSON.stringify(message),
        sentAt: unixToIso(message.timestamp),
      });
    }
  }

  /** Meta's user_preferences: a person stopped or resumed marketing messages. */
  userPreferences(change: WebhookChange, phone: Phone) {
    const list = Array.isArray(change.value.user_preferences) ? change.value.user_preferences.filter(isObject) : [];
    for (const p of list)
      if (typeof p.wa_id === "string" && /^\d{5,20}$/.test(p.wa_id) && p.category === "marketing_messages")
        this.preferences.push({
          organizationId: phone.organization_id,
          waId: p.wa_id,
          value: String(p.value ?? ""),
          detail: typeof p.detail === "string" ? p.detail : "",
        });
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
    await applyMarketingStops(tx, [...this.statuses.values()]);
    await this.writeInbound(tx);
    await applyUserPreferences(tx, this.preferences);
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
      // A raised limit sends what the old one held, now (decision 045); the dispatcher's next poll finds them.
      if (limit) await releaseMessagingLimitHolds(tx, phone.phone_number_id);
      // The event says what changed; Graph says where quality stands now.
      // A burst of updates for one number makes one Graph call: a refresh already waiting reads the latest state.
      await enqueueJob(
        REFRESH_PHONE_QUEUE,
        { phoneNumberId: phone.phone_number_id },
        { executor: tx, uniqueKey: `refresh-phone:${phone.phone_number_id}` },
      );
      // Quality low: the number's campaigns pause before Meta lowers its messaging limit.
      if (event === "FLAGGED")
        activity.push(
          ...(await pauseForLowQuality(tx, {
            organizationId: phone.organization_id,
            phoneNumberId: phone.phone_number_id,
            display: phone.display_phone_number,
          })),
        );
      await notifyQualityDrop(tx, {
        organizationId: phone.organization_id,
        phoneNumberId: phone.phone_number_id,
        display: phone.display_phone_number,
        event,
        at,
        limit,
      });
      activity.push({
        organizationId: phone.organization_id,
        type: "system",
        status: event === "FLAGGED" || event === "DOWNGRADE" ? "warning" : "success",
        action: "WhatsApp number quality update",
        // The number and Meta's codes as Meta gives them; the messaging limit's words in the log's reader's language.
        details: limit
          ? englishOf(words("app_activity_detail_number_quality_limit", { number: phone.display_phone_number, event, limit }))
          : `${phone.display_phone_number}: ${event}`,
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
    // Sends whose answer was lost (the worker died, a timeout) take their wamid from the status.
    const ours = list.flatMap((s) =>
      s.callback ? [{ organizationId: s.organizationId, wamid: s.wamid, messageId: s.callback.id, createdAt: s.callback.createdAt }] : [],
    );
    await adoptLostAccepts(tx, ours);
    // Messages Jumbe sent move forward only: a late "delivered" never overwrites "read".
    const pairs = new Map(list.map((s) => [`${s.organizationId}|${s.wamid}`, { organizationId: s.organizationId, wamid: s.wamid }]));
    const { changes, unmatched } = await applyKeptStatusesFound(tx, [...pairs.values()]);
    await messageEventsFor(tx, changes);
    // Jumbe's own sends whose settle had not committed: tried again once it has (late-statuses.ts).
    const early = new Set(unmatched.map((p) => `${p.organizationId}|${p.wamid}`));
    const seen = new Set<string>();
    await queueLateStatuses(
      tx,
      ours.filter((s) => early.has(`${s.organizationId}|${s.wamid}`) && !seen.has(s.wamid) && seen.add(s.wamid)),
    );
  }

  // long: a webhook batch's customer messages written set by set in the batch's transaction; each statement takes the ids the one before it returned
  private async writeInbound(tx: Executor) {
    const list = [...this.inbound.values()];
    if (!list.length) return;
    // One contact per person and tenant: by WhatsApp id (their number) when the webhook has it, else
    // by Meta's business-scoped user id (a username hides the number). The batch may hold several
    // messages from one person; the latest names them.
    const people = new Map<string, InboundRow>();
    const personKey = (m: InboundRow) => `${m.organizationId}|${m.waId ? `w:${m.waId}` : `u:${m.userId}`}`;
    for (const m of list) {
      const seen = people.get(personKey(m));
      if (!seen || seen.sentAt < m.sentAt) people.set(personKey(m), m);
    }
    // In one order (organisation, then the person), so two batches inserting the same people at
    // once take their row locks in the same order and cannot deadlock.
    const inOrder = (a: InboundRow, b: InboundRow) => personKey(a).localeCompare(personKey(b));
    const byNumber = [...people.values()].filter((c) => c.waId).sort(inOrder);
    const byUserId = [...people.values()].filter((c) => !c.waId).sort(inOrder);
    await lockPeople(tx, [...people.keys()]);
    const contactId = new Map<string, string>();
    const created: { id: string; organization_id: string; wa_id?: string; name: string | null }[] = [];
    if (byNumber.length) {
      // Someone known so far only by their user id (their number hidden) who now shows it: the same
      // contact takes the number, rather than a second contact for the same person.
      const joining = byNumber.filter((c) => c.userId);
      if (joining.length)
        await tx.execute(sql`
          update contacts c set wa_id = t.w, phone = '+' || t.w
          from unnest(${sql.param(joining.map((c) => c.organizationId))}::uuid[], ${sql.param(joining.map((c) => c.waId))}::text[],
                      ${sql.param(joining.map((c) => c.userId))}::text[]) as t(o, w, u)
          where c.organization_id = t.o and c.user_id = t.u and c.wa_id is null
            and not exists (select 1 from contacts d where d.organization_id = t.o and d.wa_id = t.w)`);
      // The people of `list` as rows t(o, w, u, n, s): organisation, number, user id, name, sent at.
      const asRows = (list: InboundRow[]) => {
        const col = <K extends keyof InboundRow>(key: K) => sql.param(list.map((c) => c[key]));
        return sql`unnest(${col("organizationId")}::uuid[], ${col("waId")}::text[], ${col("userId")}::text[], ${col("name")}::text[], ${col("sentAt")}::timestamptz[]) as t(o, w, u, n, s)`;
      };
      // Known people are read (their person locks are held): those whose row holds nothing new
      // (same name, seen less than LAST_SEEN_STEP_MS before this message) are not rewritten, so a
      // conversation's messages no longer make a new row version, in the contacts' ten indexes, each
      // (decision 094). No row lock: the person locks order the batches (decision 095).
      const known = await rows<{ id: string; organization_id: string; wa_id: string; name: string | null; fresh: boolean }>(
        tx,
        sql`select c.id, c.organization_id, c.wa_id, c.name,
                   (c.name is not distinct from t.n and c.last_seen_at >= t.s - make_interval(secs => ${LAST_SEEN_STEP_MS / 1000})
                    and (c.user_id is not null or t.u is null)) as fresh
            from ${asRows(byNumber)}
            join contacts c on c.organization_id = t.o and c.wa_id = t.w`,
      );
      for (const c of known) if (c.fresh) contactId.set(`${c.organization_id}|w:${c.wa_id}`, c.id);
      const writing = byNumber.filter((c) => !contactId.has(personKey(c)));
      const saved = writing.length
        ? await rows<{ id: string; organization_id: string; wa_id: string; name: string | null; inserted: boolean }>(
            tx,
            sql`insert into contacts (organization_id, wa_id, user_id, phone, name, last_seen_at)
                select o, w, u, '+' || w, n, s from ${asRows(writing)}
                on conflict (organization_id, wa_id) where wa_id is not null
                do update set name = excluded.name, last_seen_at = greatest(contacts.last_seen_at, excluded.last_seen_at),
                              -- Unless another contact already holds that user id (merging two contacts is the contacts page's).
                              user_id = coalesce(contacts.user_id, case when not exists (
                                select 1 from contacts d where d.organization_id = excluded.organization_id and d.user_id = excluded.user_id)
                                then excluded.user_id end)
                returning id, organization_id, wa_id, name, (xmax = 0) as inserted`,
          )
        : [];
      for (const c of saved) contactId.set(`${c.organization_id}|w:${c.wa_id}`, c.id);
      created.push(...saved.filter((c) => c.inserted));
    }
    if (byUserId.length) {
      const col = <K extends keyof InboundRow>(key: K) => sql.param(byUserId.map((c) => c[key]));
      const saved = await rows<{ id: string; organization_id: string; user_id: string; name: string | null; inserted: boolean }>(
        tx,
        sql`insert into contacts (organization_id, user_id, name, last_seen_at)
            select o, u, n, s from unnest(${col("organizationId")}::uuid[], ${col("userId")}::text[], ${col("name")}::text[], ${col("sentAt")}::timestamptz[]) as t(o, u, n, s)
            on conflict (organization_id, user_id) where user_id is not null
            do update set name = excluded.name, last_seen_at = greatest(contacts.last_seen_at, excluded.last_seen_at)
            returning id, organization_id, user_id, name, (xmax = 0) as inserted`,
      );
      for (const c of saved) contactId.set(`${c.organization_id}|u:${c.user_id}`, c.id);
      created.push(...saved.filter((c) => c.inserted));
    }
    // Customers seen for the first time: contact.created for the REST hooks subscribed to it.
    await enqueueContactsCreated(
      tx,
      created.map((c) => ({
        organizationId: c.organization_id,
        id: c.id,
        name: c.name,
        phone: c.wa_id ? `+${c.wa_id}` : null,
        waId: c.wa_id ?? null,
      })),
    );
    const contactOf = (m: InboundRow) => contactId.get(personKey(m)) ?? null;
    const mcol = <K extends keyof InboundRow>(key: K) => sql.param(list.map((m) => m[key]));
    const inserted = await rows<{
      id: string;
      createdAt: string;
      organization_id: string;
      message_type: string;
      phone_number_id: string;
      contact_id: string | null;
      wamid: string;
    }>(
      tx,
      // A message Meta delivers again (a retry, a batch replayed, in any later month) is recognised by
      // its key in message_wamids (decision 174): the keys go in first, and a message is inserted
      // only for a key that went in, with the id and created_at the key names. Two batches racing on
      // one wamid wait on the key's primary key.
      sql`with t as materialized (
            select gen_random_uuid() as id, now() as at, t.*
            from unnest(${mcol("organizationId")}::uuid[], ${sql.param(list.map(contactOf))}::uuid[],
                        ${mcol("body")}::text[], ${mcol("wamid")}::text[], ${mcol("phoneNumberId")}::text[], ${mcol("type")}::text[],
                        ${mcol("payload")}::jsonb[], ${mcol("sentAt")}::timestamptz[], ${mcol("waId")}::text[]) as t(o, c, b, w, p, ty, pl, s, f)
          ), k as (
            insert into message_wamids (organization_id, wamid, message_id, created_at)
            select o, w, id, at from t
            on conflict (organization_id, wamid) do nothing
            returning message_id
          )
          insert into messages (id, organization_id, contact_id, direction, status, body, wamid, phone_number_id, message_type, payload, sent_at, recipient_phone, created_at)
          select t.id, o, c, 'inbound', 'received', b, w, p, ty, pl, s, case when f is null then null else '+' || f end, t.at
          from t join k on k.message_id = t.id
          returning id, created_at::text as "createdAt", organization_id, message_type, phone_number_id, contact_id, wamid`,
    );
    // Customers' images, voice notes, documents...: downloaded into storage by a job of their own.
    await enqueueInboundMedia(
      tx,
      inserted.map((m) => ({ id: m.id, createdAt: m.createdAt, type: m.message_type })),
    );
    // Each customer's message opens (or extends) their 24-hour service window with that number.
    const windows = new Map<string, { organizationId: string; phoneNumberId: string; contactId: string; at: string }>();
    for (const m of list) {
      const contact = contactOf(m);
      if (!contact) continue;
      const key = `${m.organizationId}|${m.phoneNumberId}|${contact}`;
      const seen = windows.get(key);
      if (!seen || seen.at < m.sentAt)
        windows.set(key, { organizationId: m.organizationId, phoneNumberId: m.phoneNumberId, contactId: contact, at: m.sentAt });
    }
    const conversationOf = await upsertConversations(tx, [...windows.values()], inserted);
    const byWamid = new Map(list.map((m) => [`${m.organizationId}|${m.wamid}`, m]));
    // A customer from a Click-to-WhatsApp ad: the ad on the conversation and the contact (decision 154).
    const sentRow = (m: { organization_id: string; wamid: string }) => byWamid.get(`${m.organization_id}|${m.wamid}`);
    await recordAdReferrals(
      tx,
      inserted.map((m) => ({
        organizationId: m.organization_id,
        contactId: m.contact_id,
        conversationId: (m.contact_id && conversationOf.get(`${m.organization_id}|${m.phone_number_id}|${m.contact_id}`)) || null,
        messageId: m.id,
        phoneNumberId: m.phone_number_id,
        payload: sentRow(m)?.payload ?? "{}",
        sentAt: sentRow(m)?.sentAt ?? new Date().toISOString(),
      })),
    );
    // A customer's cart (an `order` message): an order with its items, once (decision 138).
    // …and, when the organisation's automation says so, its total asked for by M-Pesa (a job an order).
    await queueOrderPayments(tx, await recordInboundOrders(tx, ordersOf(list, inserted, conversationOf)));
    // A campaign's recipient writing back within 72 hours of its delivery: a reply in its figures.
    await markCampaignReplies(
      tx,
      list
        .filter((m) => m.waId)
        .map((m) => ({ organizationId: m.organizationId, phoneNumberId: m.phoneNumberId, from: `+${m.waId}`, sentAt: m.sentAt })),
    );
    await receivedEventsFor(
      tx,
      inserted.map((m) => ({ id: m.id, organizationId: m.organization_id })),
    );
    // Keyword rules, the welcome, the away message, flows, the assistant: one job for the batch's
    // messages they may answer, which decides each outside this transaction (not a consent keyword:
    // the ledger's answer below always wins). Before the inbox's change log is locked.
    const automationsStarted = performance.now();
    // A tap on a payment request's button (or the number it asked for) is the request's alone.
    const forPayments = await claimPaymentReplies(
      tx,
      inserted.map((m) => ({ ...m, payload: sentRow(m)?.payload ?? "{}" })),
    );
    const arriving = await queueAutomationsArrival(tx, forPayments.size ? inserted.filter((m) => !forPayments.has(m.id)) : inserted);
    noteAutomationsArrival(arriving, performance.now() - automationsStarted);
    // The inbox: each new message live in open lists and threads (in the order they were stored).
    await logFoundMessageEvents(
      tx,
      "message",
      inserted.flatMap((m) => {
        const conversation = m.contact_id && conversationOf.get(`${m.organization_id}|${m.phone_number_id}|${m.contact_id}`);
        return conversation ? [{ organization_id: m.organization_id, conversation_id: conversation, message_id: m.id }] : [];
      }),
    );
    // STOP, ACHA, START…: the consent ledger, and an answer; they always win over automations.
    const consentKeywords = await applyConsentKeywords(
      tx,
      inserted.map((m) => ({ ...m, body: sentRow(m)?.body ?? "" })),
    );
    // An opt-out ends the customer's flow: the ledger's answer is the last word.
    await stopSessionsOnOptOut(tx, [...consentKeywords]);
  }
}
