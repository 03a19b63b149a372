import { sql } from "drizzle-orm";
import type { ConversationRow } from "~/lib/inbox";
import { MAX_NOTE_LENGTH, MAX_TEXT_LENGTH } from "~/lib/inbox";
import { db, heardOwnChange, rawQuery, type Executor } from "../../infrastructure/db/client";
import type { MessageKey } from "../../infrastructure/db/message-keys";
import { queryRows } from "../../infrastructure/db/query";
import { enqueueJob } from "../../infrastructure/jobs/queue";
import {
  type MediaRef,
  type InteractiveProducts,
  type OutboundContent,
  queueMessage,
  logConversationEvents,
  logMessageEvents,
  lockConversations,
} from "../messaging";

import { Refusal, type RefusalStatus } from "../../infrastructure/refusal";
import { formatNumber } from "~/lib/dates";
import { SMS_ONLY_NUMBER } from "~/lib/sms-only";
import { m } from "~/paraglide/messages";

/** Who acts in the inbox: a member of the organisation. */
export interface InboxActor {
  userId: string;
  organizationId: string;
}

/** The job that marks a conversation's customer messages read at Meta (the blue ticks). */
export const INBOX_MARK_READ_QUEUE = "inbox.mark-read";

/** A refusal the page shows at the composer or the control that caused it. */
export const refuseInbox = (status: RefusalStatus, message: string, field = "body") =>
  new Refusal({ domain: "inbox", status, message, field });

/**
 * In the message's transaction: the conversation moves to the top and open lists and threads see it.
 * A member answering holds it: automations and the assistant stay silent until it is resolved. The
 * conversation's lock first (messaging/conversation-lock.ts): an automated reply being queued
 * meanwhile finishes first, any later one finds the conversation held.
 */
const touchConversation = (conversation: ConversationRow) => async (tx: Executor, message: MessageKey) => {
  await lockConversations(tx, [conversation.id]);
  await tx.execute(sql`
    update conversations set last_message_at = greatest(last_message_at, now()), person_held_at = coalesce(person_held_at, now())
    where id = ${conversation.id}`);
  await logMessageEvents(tx, "message", [message]);
};

/**
 * The customer's number to answer, or a refusal for a customer known only by their username, or for
 * an SMS-only conversation (no WhatsApp number on it: decision 150; answered with "Send as SMS").
 */
function recipientOf(conversation: ConversationRow) {
  if (conversation.phoneNumberId === SMS_ONLY_NUMBER) throw refuseInbox(409, m.validation_send_sms_only());
  if (!conversation.phone) throw refuseInbox(409, m.inbox_reply_username_only());
  return conversation.phone;
}

/**
 * Sends an agent's message (text, a file, or both: the text becomes the file's caption) to the
 * customer from the conversation's number, through the sending engine. Refused outside the 24-hour
 * window (a template then) and when blank; `replyTo` quotes one of the conversation's messages.
 */
export async function sendReply(
  actor: InboxActor,
  conversation: ConversationRow,
  reply: {
    text: string;
    replyTo?: string | null;
    attachment?: { mediaId: string; kind: OutboundContent["kind"]; fileName: string | null };
  },
) {
  const text = reply.text.replace(/\r\n/g, "\n").trim();
  if (!text && !reply.attachment) throw refuseInbox(400, m.inbox_reply_blank());
  if (text.length > MAX_TEXT_LENGTH)
    throw refuseInbox(400, m.inbox_reply_too_long({ max: formatNumber(MAX_TEXT_LENGTH), count: formatNumber(text.length) }));
  const to = recipientOf(conversation);
  if (!conversation.window.open) throw refuseInbox(409, m.inbox_reply_window_closed(), "template");
  let content: OutboundContent;
  if (reply.attachment) {
    const kind = reply.attachment.kind as "image" | "video" | "audio" | "document" | "sticker";
    const captioned = kind !== "audio" && kind !== "sticker";
    if (text && !captioned) throw refuseInbox(400, m.inbox_reply_no_caption());
    if (text.length > 1024 && captioned) throw refuseInbox(400, m.inbox_reply_caption_max({ max: formatNumber(1024) }));
    content = {
      kind,
      media: {
        mediaId: reply.attachment.mediaId,
        ...(text ? { caption: text } : {}),
        ...(kind === "document" && reply.attachment.fileName ? { filename: reply.attachment.fileName } : {}),
      },
    };
  } else content = { kind: "text", text };
  return queueMessage(actor.organizationId, {
    to,
    from: conversation.phoneNumberId,
    content,
    replyTo: reply.replyTo || undefined,
    source: "inbox",
    sentBy: actor.userId,
    onQueued: touchConversation(conversation),
  });
}

/** Sends a product, a product list or the catalogue (the shop's message, already checked): inside the window only. */
export async function sendProductsReply(actor: InboxActor, conversation: ConversationRow, interactive: InteractiveProducts) {
  recipientOf(conversation);
  if (!conversation.window.open) throw refuseInbox(409, m.inbox_reply_window_closed(), "template");
  return queueMessage(actor.organizationId, {
    to: recipientOf(conversation),
    from: conversation.phoneNumberId,
    content: { kind: "interactive", interactive },
    source: "inbox",
    sentBy: actor.userId,
    onQueued: touchConversation(conversation),
  });
}

/** Sends one of the number's approved templates with its values: the way in when the window is closed. */
export async function sendTemplateReply(
  actor: InboxActor,
  conversation: ConversationRow,
  template: {
    name: string;
    language: string;
    parameters: string[];
    headerText?: string;
    /** A media header's file: an uploaded file's id or an https link. */
    headerMedia?: MediaRef;
    /** Dynamic link endings and copy codes, by the button's position. */
    buttons?: { index: number; value: string }[];
  },
) {
  return queueMessage(actor.organizationId, {
    to: recipientOf(conversation),
    from: conversation.phoneNumberId,
    content: {
      kind: "template",
      template: {
        name: template.name,
        language: template.language,
        parameters: template.parameters,
        ...(template.headerText ? { header: { text: template.headerText } } : {}),
        ...(template.headerMedia ? { header: template.headerMedia } : {}),
        ...(template.buttons?.length ? { buttons: template.buttons } : {}),
      },
    },
    source: "inbox",
    sentBy: actor.userId,
    onQueued: touchConversation(conversation),
  });
}

/** Sends a failed message again, as a new message with the same request, once. */
export async function retryMessage(actor: InboxActor, conversation: ConversationRow, messageId: string) {
  const [failed] = await rawQuery<{
    id: string;
    createdAt: string;
    payload: Record<string, unknown>;
    message_type: string;
    body: string;
    template_id: string | null;
    template_category: string | null;
    context_wamid: string | null;
  }>(
    `select m.id, m.created_at::text as "createdAt", m.payload, m.message_type, m.body, m.template_id, m.pricing_category as template_category, m.context_wamid
     from messages m join contacts c on c.id = m.contact_id
     where m.organization_id = $1 and m.id = $2::uuid and m.direction = 'outbound' and m.failed_at is not null and m.retried_at is null
       and m.contact_id = $3 and m.phone_number_id = $4`,
    [actor.organizationId, messageId, conversation.contactId, conversation.phoneNumberId],
  );
  if (!failed) throw refuseInbox(404, m.inbox_retry_none());
  if (failed.message_type !== "template" && !conversation.window.open) throw refuseInbox(409, m.inbox_reply_window_closed(), "template");
  return db().transaction(async (tx) => {
    const claimed = await queryRows<unknown>(
      tx,
      sql`update messages set retried_at = now() where id = ${failed.id} and created_at = ${failed.createdAt}::timestamptz and retried_at is null returning id`,
    );
    if (!claimed.length) throw refuseInbox(409, m.inbox_retry_done());
    const inserted = await queryRows<MessageKey>(
      tx,
      sql`
      insert into messages (organization_id, contact_id, direction, status, body, phone_number_id, message_type, payload, source,
                            recipient_phone, template_id, context_wamid, next_attempt_at, pricing_category, sent_by)
      select organization_id, contact_id, 'outbound', 'queued', body, phone_number_id, message_type, payload, 'inbox',
             recipient_phone, template_id, context_wamid, now(), pricing_category, ${actor.userId}
      from messages where id = ${failed.id} and created_at = ${failed.createdAt}::timestamptz
      returning id, created_at::text as "createdAt"`,
    );
    const message = inserted[0]!;
    await touchConversation(conversation)(tx, message);
    await logMessageEvents(tx, "status", [failed]);
    return message.id;
  });
}

/** An internal note in the thread: members see it, the customer never does. */
export async function addNote(actor: InboxActor, conversation: ConversationRow, body: string) {
  const text = body.replace(/\r\n/g, "\n").trim();
  if (!text) throw refuseInbox(400, m.inbox_note_blank(), "note");
  if (text.length > MAX_NOTE_LENGTH) throw refuseInbox(400, m.inbox_note_too_long({ max: formatNumber(MAX_NOTE_LENGTH) }), "note");
  await db().transaction(async (tx) => {
    await writeEntry(tx, actor, conversation.id, "note", { body: text });
  });
}

/**
 * Assigns the conversation to a member of the organisation (who may answer in the inbox), or to
 * nobody. Whether the actor may assign others is the route's check (inbox:assign); taking it
 * yourself and letting go of your own is every agent's.
 */
export async function assignConversation(actor: InboxActor, conversation: ConversationRow, assigneeId: string | null) {
  if (assigneeId) {
    const [member] = await rawQuery<{ id: string }>(
      `select id from users where id = $1::uuid and organization_id = $2 and org_role in ('owner', 'admin', 'agent')`,
      [assigneeId, actor.organizationId],
    );
    if (!member) throw refuseInbox(422, m.inbox_assign_not_member(), "assignee");
  }
  await db().transaction(async (tx) => {
    // Assigned to a person, it is held: under the lock automated replies are queued under.
    if (assigneeId) await lockConversations(tx, [conversation.id]);
    const changed = await queryRows<unknown>(
      tx,
      sql`
      update conversations set assigned_to = ${assigneeId}::uuid,
                               person_held_at = case when ${assigneeId}::uuid is null then person_held_at else coalesce(person_held_at, now()) end
      where id = ${conversation.id} and organization_id = ${actor.organizationId} and assigned_to is distinct from ${assigneeId}::uuid
      returning id`,
    );
    if (!changed.length) return;
    await writeEntry(tx, actor, conversation.id, assigneeId ? "assigned" : "unassigned", {
      subjectId: assigneeId ?? conversation.assignee?.id ?? null,
    });
  });
}

/** Resolves (the customer is answered) or reopens the conversation. */
export async function setConversationState(actor: InboxActor, conversation: ConversationRow, state: "open" | "resolved") {
  await db().transaction(async (tx) => {
    const changed = await queryRows<unknown>(
      tx,
      sql`
      update conversations set status = ${state}, resolved_at = case when ${state} = 'resolved' then now() else null end,
                               -- Resolving gives the conversation back to automations.
                               person_held_at = case when ${state} = 'resolved' then null else person_held_at end
      where id = ${conversation.id} and organization_id = ${actor.organizationId} and status <> ${state}
      returning id`,
    );
    if (!changed.length) return;
    await writeEntry(tx, actor, conversation.id, state === "resolved" ? "resolved" : "reopened", {});
  });
}

async function writeEntry(
  tx: Executor,
  actor: InboxActor,
  conversationId: string,
  kind: "note" | "assigned" | "unassigned" | "resolved" | "reopened",
  extra: { body?: string; subjectId?: string | null },
) {
  const entry = await queryRows<{ id: string }>(
    tx,
    sql`
    insert into conversation_entries (organization_id, conversation_id, kind, actor_id, subject_id, body)
    values (${actor.organizationId}, ${conversationId}, ${kind}, ${actor.userId}, ${extra.subjectId ?? null}, ${extra.body ?? ""})
    returning id`,
  );
  await logConversationEvents(tx, [{ organizationId: actor.organizationId, conversationId, kind: "entry", entryId: entry[0]!.id }]);
}

/**
 * An agent opened the conversation: its unread count goes to zero at once (every member's list
 * shows it), and a job marks the customer's messages read at Meta, so the blue ticks show on their
 * phone without the page waiting for Graph.
 */
export async function markConversationOpened(organizationId: string, conversation: ConversationRow) {
  if (conversation.unread === 0) return;
  const zeroed = await db().transaction(async (tx) => {
    const zeroed = await queryRows<unknown>(
      tx,
      sql`
      update conversations set unread_count = 0 where id = ${conversation.id} and organization_id = ${organizationId} and unread_count > 0
      returning id`,
    );
    if (!zeroed.length) return false;
    await logConversationEvents(tx, [{ organizationId, conversationId: conversation.id }]);
    await enqueueJob(
      INBOX_MARK_READ_QUEUE,
      { organizationId, conversationId: conversation.id },
      { executor: tx, uniqueKey: `inbox-read:${conversation.id}` },
    );
    return true;
  });
  // The inbox's unread count in every page's shell is kept per instance (decision 182): this GET's
  // NOTIFY drops it, and the agent's next page must not show the count from before.
  if (zeroed) await heardOwnChange();
}

/** The last customer message of the conversation not yet marked read at Meta (marking it marks all before it). */
export async function latestUnreadInbound(organizationId: string, conversationId: string) {
  const [row] = await rawQuery<{ id: string }>(
    `select m.id from conversations v
     join messages m on m.contact_id = v.contact_id and m.organization_id = v.organization_id and m.phone_number_id = v.phone_number_id
     where v.id = $1 and v.organization_id = $2 and m.direction = 'inbound' and m.wamid is not null and m.message_type <> 'reaction'
     order by m.created_at desc, m.seq desc limit 1`,
    [conversationId, organizationId],
  );
  return row?.id ?? null;
}

/** The conversation's state changes as the thread names them: refuses a state that needs a permission the member lacks. */
export function refuseUnless(allowed: boolean, message?: string) {
  if (!allowed) throw refuseInbox(403, message ?? m.inbox_role_cannot(), "form");
}
