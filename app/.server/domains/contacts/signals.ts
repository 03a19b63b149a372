import { sql } from "drizzle-orm";
import { rawQuery, type Executor } from "../../infrastructure/db/client";
import { queryRows } from "../../infrastructure/db/query";
import { enqueueJob, type Job } from "../../infrastructure/jobs/queue";
import { log } from "../../infrastructure/log";
import { queueMessage } from "../messaging";
import { consentKeyword, consentReply, recordConsent, type ConsentEvent, type ConsentStatus } from "./consent";
import { isRefusal } from "../../infrastructure/refusal";

/**
 * What people say about hearing from a business, wherever it arrives: a keyword message (STOP,
 * ACHA, START…), Meta's "Stop promotions" button, a failed send Meta explains with 131050 (the
 * person stopped marketing messages), and Meta's user_preferences webhook. Each becomes an event of
 * the consent ledger in the webhook's own transaction; a keyword is also answered, by a job.
 */

export const CONSENT_REPLY_QUEUE = "contacts.consent-reply";

type Row = Record<string, unknown>;
const rows = async <T = Row>(executor: Executor, query: ReturnType<typeof sql>) => await queryRows<T>(executor, query);

/** Meta's quick reply on marketing templates: the person stops marketing from this business. */
const STOP_PROMOTIONS = /^stop promotions$/i;

/** Consent keywords are short: a longer message is a conversation, whatever words it holds. */
const CONSENT_MAX_LENGTH = 60;

/**
 * What a customer's message says about consent, from its type and text alone: Meta's "Stop
 * promotions" button, or a keyword (STOP, ACHA, START…) in a text or button of at most 60 characters.
 */
export function consentOfMessage(messageType: string, body: string) {
  if (messageType !== "text" && messageType !== "button") return null;
  if ([...body].length > CONSENT_MAX_LENGTH) return null;
  if (messageType === "button" && STOP_PROMOTIONS.test(body.trim()))
    return { status: "opted_out" as const, language: "en" as const, fromMeta: true };
  const keyword = consentKeyword(body);
  return keyword ? { ...keyword, fromMeta: false } : null;
}

/**
 * Customers' new messages that are consent keywords: recorded, and each answered once. Answers their
 * ids. Told apart by their type and text in memory (the webhook's batch has both), so a batch
 * without one costs no statement.
 */
export async function applyConsentKeywords(
  tx: Executor,
  inserted: readonly {
    id: string;
    organization_id: string;
    contact_id: string | null;
    message_type: string;
    body: string;
    wamid: string;
  }[],
): Promise<Set<string>> {
  const events: ConsentEvent[] = [];
  const replies: { organizationId: string; messageId: string; status: ConsentStatus; language: "en" | "sw" }[] = [];
  for (const m of inserted) {
    const consent = m.contact_id ? consentOfMessage(m.message_type, m.body) : null;
    if (!consent) continue;
    const { fromMeta, ...keyword } = consent;
    events.push({
      organizationId: m.organization_id,
      contactId: m.contact_id!,
      status: keyword.status,
      source: fromMeta ? "meta" : "keyword",
      evidence: `"${m.body.slice(0, 60)}" on WhatsApp (${m.wamid})`,
    });
    replies.push({ organizationId: m.organization_id, messageId: m.id, ...keyword });
  }
  if (!events.length) return new Set();
  await recordConsent(tx, events);
  // The language they wrote in, for the answer and for later, when not known yet.
  for (const r of replies)
    await tx.execute(sql`
      update contacts set language = coalesce(language, ${r.language})
      where id = (select contact_id from messages where id = ${r.messageId})`);
  for (const reply of replies)
    await enqueueJob(CONSENT_REPLY_QUEUE, reply, { executor: tx, uniqueKey: `consent-reply:${reply.messageId}` });
  return new Set(replies.map((r) => r.messageId));
}

/** Sends of ours that Meta failed with 131050: the person stopped marketing messages. */
export async function applyMarketingStops(
  tx: Executor,
  statuses: { organizationId: string; wamid: string; status: string; errors: string | null }[],
) {
  const stopped = statuses.filter((s) => s.status === "failed" && s.errors && /"code"\s*:\s*131050\b/.test(s.errors));
  if (!stopped.length) return;
  const found = await rows<{ organization_id: string; contact_id: string; wamid: string }>(
    tx,
    sql`select m.organization_id, coalesce(m.contact_id, c.id) as contact_id, m.wamid
        from message_wamids w
        join messages m on m.id = w.message_id and m.created_at = w.created_at and m.organization_id = w.organization_id
        left join contacts c on c.organization_id = m.organization_id and c.phone = m.recipient_phone
        where (w.organization_id, w.wamid) in (select * from unnest(${sql.param(stopped.map((s) => s.organizationId))}::uuid[],
                                                                   ${sql.param(stopped.map((s) => s.wamid))}::text[]))
          and coalesce(m.contact_id, c.id) is not null`,
  );
  await recordConsent(
    tx,
    found.map((f) => ({
      organizationId: f.organization_id,
      contactId: f.contact_id,
      status: "opted_out",
      source: "meta",
      evidence: `Meta: the person stopped marketing messages (131050 on ${f.wamid})`,
    })),
  );
}

/** Meta's user_preferences webhook: marketing_messages stop or resume, by the person's WhatsApp id. */
export async function applyUserPreferences(
  tx: Executor,
  preferences: { organizationId: string; waId: string; value: string; detail: string }[],
) {
  const known = preferences.filter((p) => p.value === "stop" || p.value === "resume");
  if (!known.length) return;
  // Someone Jumbe has not met yet is still remembered: a contact by their number.
  const contacts = await rows<{ id: string; organization_id: string; wa_id: string }>(
    tx,
    sql`insert into contacts (organization_id, wa_id, phone, name)
        select o, w, '+' || w, '+' || w from unnest(${sql.param(known.map((p) => p.organizationId))}::uuid[],
                                                     ${sql.param(known.map((p) => p.waId))}::text[]) as t(o, w)
        on conflict (organization_id, wa_id) where wa_id is not null do update set updated_at = contacts.updated_at
        returning id, organization_id, wa_id`,
  );
  const byKey = new Map(contacts.map((c) => [`${c.organization_id}|${c.wa_id}`, c.id]));
  await recordConsent(
    tx,
    known.flatMap((p) => {
      const contactId = byKey.get(`${p.organizationId}|${p.waId}`);
      return contactId
        ? [
            {
              organizationId: p.organizationId,
              contactId,
              status: p.value === "stop" ? ("opted_out" as const) : ("opted_in" as const),
              source: "meta" as const,
              evidence: `Meta: marketing messages ${p.value}${p.detail ? ` (${p.detail.slice(0, 200)})` : ""}`,
            },
          ]
        : [];
    }),
  );
}

/** The answer to a keyword, inside the window the keyword opened; a refusal is logged and dropped. */
export async function sendConsentReplies(
  jobs: Job<{ organizationId: string; messageId: string; status: ConsentStatus; language: "en" | "sw" }>[],
) {
  for (const { payload } of jobs) {
    const [m] = await rawQuery<{ phone_number_id: string; phone: string | null; business: string }>(
      `select m.phone_number_id, c.phone,
              coalesce((select p.verified_name from whatsapp_phone_numbers p
                        where p.phone_number_id = m.phone_number_id and p.organization_id = m.organization_id and p.disconnected_at is null
                        limit 1), o.name) as business
       from messages m join contacts c on c.id = m.contact_id join organizations o on o.id = m.organization_id
       where m.id = $1 and m.organization_id = $2`,
      [payload.messageId, payload.organizationId],
    );
    if (!m?.phone) continue;
    try {
      await queueMessage(payload.organizationId, {
        to: m.phone,
        from: m.phone_number_id,
        content: { kind: "text", text: consentReply(payload.status, payload.language, m.business) },
        replyTo: payload.messageId,
        source: "system",
      });
    } catch (error) {
      if (!isRefusal(error, "send")) throw error;
      log().warn({ organizationId: payload.organizationId, code: error.code }, "consent keyword not answered");
    }
  }
}
