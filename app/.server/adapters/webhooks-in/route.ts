import { sql } from "drizzle-orm";
import type { Job } from "../../infrastructure/jobs/queue";
import { phoneDigits } from "../../domains/whatsapp/phone-format";
import { isObject, type WebhookChange } from "./parse";
import { ChangeWork, rows, type Account, type Phone } from "./write";
import type { Executor } from "../../infrastructure/db/client";

/**
 * Routing webhook changes to their tenant: by the phone number id of a `messages` change, by the
 * WABA (and the number's digits) of quality and account updates. Changes for a WABA nobody has
 * connected yet are kept in webhook_unrouted_changes and replayed once it is.
 */

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
      case "user_preferences": {
        const metadata = change.value.metadata;
        const phone = isObject(metadata) ? phoneById.get(String(metadata.phone_number_id)) : undefined;
        if (phone) work.userPreferences(change, phone);
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
      case "message_template_status_update":
      case "message_template_quality_update":
      case "template_category_update": {
        const account = accountByWaba.get(change.entryId);
        if (account) work.template(change, account);
        else routed = false;
        break;
      }
      default:
        // Fields Jumbe does not use yet (alerts, history...) stay in webhook_events for later.
        break;
    }
    if (!routed) unrouted.push(change);
  }
  await work.write(tx);
  return unrouted;
}

export async function storeUnrouted(tx: Executor, changes: WebhookChange[]) {
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
    const stored = await rows<{
      id: number | string;
      event_id: number | string;
      waba_id: string;
      entry_time: number | string | null;
      field: string;
      value: Record<string, unknown>;
    }>(
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
