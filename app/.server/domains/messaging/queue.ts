import { createHash } from "node:crypto";
import { db, rawQuery } from "../../infrastructure/db/client";
import type { MessageKey } from "../../infrastructure/db/message-keys";
import { queryRows } from "../../infrastructure/db/query";
import { sql } from "drizzle-orm";
import type { OutboundContent } from "./content";
import { isFreeForm, summaryOf } from "./content";
import { composeMessage } from "./compose";
import { normaliseRecipient } from "./recipient";
import { refuse } from "./refusals";
import { resolveSenderNumber, serviceWindowClosesAt, wroteOnlyBySms } from "./sender";
import { SMS_ONLY_NUMBER } from "~/lib/sms-only";
import { wakeDispatcher } from "./dispatcher";
import { messageView, type MessageView } from "./views";
import { chargeColumns, holdForQueued, insufficientBalanceText, sendPrice } from "../billing";
import { m } from "~/paraglide/messages";

export interface SendRequest {
  to: string;
  /** A connected number (Meta's id or the number); the tenant's first connected number otherwise. */
  from?: string;
  content: OutboundContent;
  /** The message this one answers (a Jumbe message id or a wamid). */
  replyTo?: string;
  /** Who sends: the API, a campaign or broadcast, an agent in the inbox, an automation, or Jumbe itself (a consent keyword's answer). */
  source: "api" | "campaign" | "broadcast" | "inbox" | "automation" | "system";
  /** The member who wrote it (the inbox). */
  sentBy?: string;
  /**
   * Free-form messages that follow this one to the same person, queued in the same transaction and
   * sent in order after it (an automation's several answers: a flow's message and its question).
   */
  followUps?: OutboundContent[];
  /** More writes in the message's own transaction (the inbox's conversation and change log); `followUps` in order. */
  onQueued?: (
    tx: Parameters<Parameters<ReturnType<typeof db>["transaction"]>[0]>[0],
    message: MessageKey,
    followUps: MessageKey[],
  ) => Promise<void>;
}

export interface Idempotency {
  key: string;
  /** A hash of the request: the same key with another request is refused. */
  requestHash: string;
  /** Called when the answer is the first request's message again (the API says Idempotency-Replayed). */
  onReplay?: () => void;
}

/** How long an Idempotency-Key's first answer is kept. */
export const IDEMPOTENCY_HOURS = 24;

export const hashRequest = (value: unknown) => createHash("sha256").update(JSON.stringify(value)).digest("base64url");

/**
 * Checks a message against the rules Jumbe enforces before Meta (recipient, number, service window,
 * template) and stores it `queued`; the dispatcher sends it. With an idempotency key, a repeat of
 * the same request within 24 hours answers the first message again and stores nothing.
 */
export async function queueMessage(organizationId: string, request: SendRequest, idempotency?: Idempotency): Promise<MessageView> {
  if (idempotency) {
    const earlier = await previousAnswer(organizationId, idempotency);
    if (earlier) {
      idempotency.onReplay?.();
      return earlier;
    }
  }
  const to = normaliseRecipient(request.to);
  // An SMS-only conversation (no WhatsApp number on it) sends nothing on WhatsApp (decision 150).
  if (request.from === SMS_ONLY_NUMBER) throw refuse(409, "no_whatsapp_number", m.validation_send_sms_only());
  const sender = await resolveSenderNumber(organizationId, request.from);
  if (isFreeForm(request.content) && !(await serviceWindowClosesAt(organizationId, sender.phoneNumberId, to)))
    throw refuse(
      422,
      "outside_service_window",
      (await wroteOnlyBySms(organizationId, sender.phoneNumberId, to))
        ? m.validation_send_sms_only_contact({ to, number: sender.number })
        : m.validation_send_outside_window({ to, number: sender.number }),
    );
  const composed = await composeMessage(organizationId, sender, to, request.content, request.replyTo);
  const followUps = request.followUps ?? [];
  if (followUps.some((content) => !isFreeForm(content))) throw new Error("follow-ups are free-form messages only");
  const composedFollowUps = await Promise.all(followUps.map((content) => composeMessage(organizationId, sender, to, content)));
  // Meta's policy and the Data Protection Act: marketing only to people who said yes (issue 13's ledger).
  if (composed.templateCategory === "marketing" && !(await optedIn(organizationId, to)))
    throw refuse(422, "not_opted_in", m.validation_send_not_opted_in({ to }));

  const view = await db().transaction(async (tx) => {
    if (idempotency) {
      const claimed = await queryRows<unknown>(
        tx,
        sql`
        insert into api_idempotency (organization_id, key, request_hash, status, response)
        values (${organizationId}, ${idempotency.key}, ${idempotency.requestHash}, 202, '{}'::jsonb)
        on conflict (organization_id, key) do update
          set request_hash = excluded.request_hash, status = excluded.status, response = excluded.response, created_at = now()
          where api_idempotency.created_at <= now() - make_interval(hours => ${IDEMPOTENCY_HOURS})
        returning key`,
      );
      // Another request with this key won the race (or it is still fresh): its answer is the answer.
      if (!claimed.length) return null;
    }
    // A template message is paid for: a prepaid wallet holds its price now, or the send is refused.
    let charge: ReturnType<typeof chargeColumns> | null = null;
    if (composed.templateId) {
      const price = await sendPrice(tx, organizationId);
      const held = await holdForQueued(tx, price, { organizationId, count: 1, description: `A message to ${to} queued` });
      if (!held) throw refuse(402, "insufficient_balance", insufficientBalanceText());
      charge = chargeColumns(price);
    }
    const insert = (content: OutboundContent, made: typeof composed, priced: typeof charge) =>
      queryRows<Record<string, unknown>>(
        tx,
        sql`
        insert into messages (organization_id, contact_id, direction, status, body, phone_number_id, message_type, payload,
                              source, recipient_phone, template_id, context_wamid, next_attempt_at, pricing_category, sent_by,
                              price_cents, charge_state)
        values (${organizationId},
                (select id from contacts where organization_id = ${organizationId} and (phone = ${to} or wa_id = ${to.slice(1)}) limit 1),
                'outbound', 'queued', ${summaryOf(content).slice(0, 4096)}, ${sender.phoneNumberId}, ${content.kind},
                ${JSON.stringify(made.graph)}::jsonb, ${request.source}, ${to}, ${made.templateId}, ${made.contextWamid}, now(),
                ${made.templateCategory}, ${request.sentBy ?? null}, ${priced?.priceCents ?? null}, ${priced?.chargeState ?? null})
        returning *, created_at::text as "createdAt"`,
      );
    const inserted = await insert(request.content, composed, charge);
    const message = messageView(inserted[0]!, sender.number);
    const keyOf = (row: Record<string, unknown>): MessageKey => ({ id: String(row.id), createdAt: String(row.createdAt) });
    const followUpKeys: MessageKey[] = [];
    // In order: each row's seq follows the one before, and the dispatcher sends a person's messages in seq order.
    for (const [i, content] of followUps.entries()) followUpKeys.push(keyOf((await insert(content, composedFollowUps[i]!, null))[0]!));
    if (request.onQueued) await request.onQueued(tx, keyOf(inserted[0]!), followUpKeys);
    if (idempotency)
      await tx.execute(sql`
        update api_idempotency set response = ${JSON.stringify(message)}::jsonb
        where organization_id = ${organizationId} and key = ${idempotency.key}`);
    return message;
  });
  if (!view) {
    idempotency!.onReplay?.();
    return (await previousAnswer(organizationId, idempotency!))!;
  }
  wakeDispatcher();
  return view;
}

async function previousAnswer(organizationId: string, idempotency: Idempotency): Promise<MessageView | undefined> {
  const [row] = await rawQuery<{ request_hash: string; response: MessageView }>(
    `select request_hash, response from api_idempotency
     where organization_id = $1 and key = $2 and created_at > now() - make_interval(hours => ${IDEMPOTENCY_HOURS})`,
    [organizationId, idempotency.key],
  );
  if (!row) return undefined;
  if (row.request_hash !== idempotency.requestHash) throw refuse(409, "idempotency_conflict", m.validation_send_idempotency_conflict());
  return row.response;
}

/** Whether the person's contact is opted in (their consent ledger's latest event). */
async function optedIn(organizationId: string, to: string) {
  const [row] = await rawQuery<{ opt_in: string }>(
    `select opt_in from contacts where organization_id = $1 and (phone = $2 or wa_id = $3) order by phone = $2 desc limit 1`,
    [organizationId, to, to.slice(1)],
  );
  return row?.opt_in === "opted_in";
}
