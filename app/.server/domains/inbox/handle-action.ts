import { data } from "react-router";
import * as z from "zod/mini";
import type { ConversationRow } from "~/lib/inbox";
import { type CurrentUser, type GuardArgs, can, intent, intentAction } from "../auth";
import { enqueueJob } from "../../infrastructure/jobs/queue";
import { discardUploadedMedia, type MediaRef } from "../messaging";
import {
  addNote,
  assignConversation,
  INBOX_MARK_READ_QUEUE,
  refuseInbox,
  markConversationOpened,
  retryMessage,
  sendProductsReply,
  sendReply,
  sendTemplateReply,
  setConversationState,
  type InboxActor,
} from "./actions";
import { setPresence } from "./live";
import { findConversation } from "./list";
import { replyTemplates } from "./page";
import { listQuickReplies } from "./quick-replies";
import { readReplyForm } from "./reply-form";
import { COPY_CODE_MAX, headerMediaInput, LINK_MAX } from "../campaigns";
import type { ReplyTemplate } from "~/lib/inbox";
import { isRefusal } from "../../infrastructure/refusal";
import { cancelPaymentRequest, createPaymentRequest } from "../payments";
import { PaymentRequestFormSchema } from "~/lib/schemas/payment-requests";
import { productMessage, requestOrderPayment } from "../shop";
import { m } from "~/paraglide/messages";

/** What a template's media header takes, and how to give it, by its kind. */
const HEADER_WORDS = {
  image: { takes: m.inbox_action_header_takes_image, give: m.inbox_action_give_header_image },
  video: { takes: m.inbox_action_header_takes_video, give: m.inbox_action_give_header_video },
  document: { takes: m.inbox_action_header_takes_document, give: m.inbox_action_give_header_document },
} as const;

/**
 * A media header's file for a template send: the uploaded file (of the header's kind) or an https
 * link, checked as campaigns check theirs; nothing for a template without one.
 */
function templateHeaderMedia(
  chosen: ReplyTemplate,
  link: string,
  attachment: { id: string; kind: string; fileName: string | null } | null,
): MediaRef | undefined {
  if (!chosen.headerMedia) {
    if (attachment || link.trim()) throw refuseInbox(400, m.inbox_action_no_media_header({ name: chosen.name }), "attachment");
    return undefined;
  }
  const kind = chosen.headerMedia;
  if (attachment) {
    if (link.trim()) throw refuseInbox(400, m.inbox_action_upload_or_link(), "headerLink");
    if (attachment.kind !== kind) throw refuseInbox(415, HEADER_WORDS[kind].takes(), "attachment");
    return { mediaId: attachment.id, ...(kind === "document" && attachment.fileName ? { filename: attachment.fileName } : {}) };
  }
  if (!link.trim()) throw refuseInbox(400, HEADER_WORDS[kind].give(), "attachment");
  try {
    return headerMediaInput({ link });
  } catch (error) {
    if (isRefusal(error, "campaign")) throw refuseInbox(400, error.message, "headerLink");
    throw error;
  }
}

export type InboxOutcome =
  | { kind: "done"; toast?: string }
  | { kind: "quiet" }
  | { kind: "refused"; status: number; errors: Record<string, string>; values: Record<string, string> };

type Member = Pick<CurrentUser, "user" | "organization" | "role">;
type Attachment = Awaited<ReturnType<typeof readReplyForm>>["attachment"];

/** The composer's fields, each its last text as posted (a file's field left out): the inbox reads them by name. */
const InboxFields = z.record(z.string(), z.unknown());
const lastText = (value: unknown): string | undefined => {
  const last = Array.isArray(value) ? value[value.length - 1] : value;
  return typeof last === "string" ? last : undefined;
};
const textsOf = (value: Record<string, unknown>) =>
  new Map(Object.entries(value).flatMap(([name, posted]) => (lastText(posted) === undefined ? [] : [[name, lastText(posted)!] as const])));

/** What one intent does with the conversation, the member's actor, the fields and the attachment. */
type InboxWork = (input: {
  current: Member;
  actor: InboxActor;
  conversation: ConversationRow;
  field: (name: string) => string;
  /** The names after `prefix` of the ticked boxes (`<prefix><id>` posted as "on"). */
  ticked: (prefix: string) => string[];
  attachment: Attachment;
  intent: string;
}) => Promise<InboxOutcome>;

/**
 * A post to a conversation's page, on the form protocol (decision 119): a member who sees the inbox
 * (inbox:view), the conversation theirs (404 before anything else), a role that may answer
 * (inbox:reply: the page's 403 with its sentence, before the form is read), then the intent carried
 * out. A multipart post is the composer's (its attachment streamed to storage, readReplyForm).
 * Refusals come back at their field with what was typed, so the page shows them without JavaScript;
 * a refused send keeps no file.
 */
export async function inboxPost(args: GuardArgs & { params: { id?: string } }) {
  // Looked up once, before the form is read (the read and the refused role's answer both ask first).
  const found: { conversation?: ConversationRow } = {};
  const conversationOf = async (current: Member) => {
    found.conversation ??= (await findConversation(current.organization.id, args.params.id ?? "")) ?? undefined;
    if (!found.conversation) throw data(m.inbox_conversation_not_found(), { status: 404 });
    return found.conversation;
  };
  let attachment: Attachment = null;
  const multipart = /^multipart\/form-data/i.test(args.request.headers.get("content-type") ?? "");
  const inboxIntent = (work: InboxWork) =>
    intent(
      InboxFields,
      async ({ value, user, intent: name }) => {
        const texts = textsOf(value);
        const field = (field: string) => texts.get(field) ?? "";
        const ticked = (prefix: string) =>
          [...texts].filter(([k, v]) => k.startsWith(prefix) && v === "on").map(([k]) => k.slice(prefix.length));
        try {
          const actor: InboxActor = { userId: user.user.id, organizationId: user.organization.id };
          return await work({ current: user, actor, conversation: await conversationOf(user), field, ticked, attachment, intent: name });
        } catch (error) {
          if (attachment && (isRefusal(error, "inbox") || isRefusal(error, "send")))
            await discardUploadedMedia(user.organization.id, attachment.id);
          const values = Object.fromEntries([...texts].filter(([k]) => k !== "intent").map(([k, v]) => [k, v.slice(0, 5000)]));
          return refusedOutcome(error, name, values);
        }
      },
      {
        permission: "inbox:reply",
        // The fields are read as they were posted (any text): a post the schema refuses cannot be sent; said as an unknown action.
        invalid: (): InboxOutcome => ({ kind: "refused", status: 400, errors: { form: m.inbox_unknown_action() }, values: {} }),
      },
    );
  const outcome = await intentAction(args, {
    permission: "inbox:view",
    intents: Object.fromEntries(Object.entries(INTENTS).map(([name, work]) => [name, inboxIntent(work)])),
    unknown: inboxIntent(async () => {
      throw refuseInbox(400, m.inbox_unknown_action(), "form");
    }),
    forbidden: async (current): Promise<InboxOutcome> => {
      await conversationOf(current);
      return { kind: "refused", status: 403, errors: { form: m.inbox_role_reads_only() }, values: {} };
    },
    read: async (request, current) => {
      await conversationOf(current);
      if (!multipart) return undefined;
      const posted = await readReplyForm(current.organization.id, request);
      attachment = posted.attachment;
      const form = new FormData();
      for (const [name, text] of posted.fields) form.set(name, text);
      return form;
    },
    refused: (refusal) => refusedOutcome(refusal, "", refusal.values ?? {}),
  });
  return { conversation: found.conversation!, outcome };
}

/** A refusal at its field with what was typed: the inbox's own, or the sending engine's at the field it is about. */
function refusedOutcome(error: unknown, intent: string, values: Record<string, string>): InboxOutcome {
  if (isRefusal(error, "shop"))
    return { kind: "refused", status: error.status, errors: { [error.field ?? "products"]: error.message }, values };
  if (isRefusal(error, "inbox"))
    return { kind: "refused", status: error.status, errors: { [error.field ?? "body"]: error.message }, values };
  if (isRefusal(error, "send"))
    return {
      kind: "refused",
      status: error.status,
      errors: {
        [error.code === "outside_service_window"
          ? "template"
          : intent === "template"
            ? error.code.startsWith("media_")
              ? "attachment"
              : "template"
            : "body"]: error.message,
      },
      values,
    };
  throw error;
}

/** The template a member chose, its placeholders, header and buttons checked, sent. */
const sendTemplate: InboxWork = async ({ actor, conversation, field, attachment }) => {
  const templates = await replyTemplates(actor.organizationId, conversation.phoneNumberId);
  const chosen = templates.find((t) => t.id === field("template"));
  if (!chosen) throw refuseInbox(422, m.inbox_action_choose_template(), "template");
  const parameters = chosen.parameters.map((_, i) => field(`p${i + 1}`).trim());
  const blank = parameters.findIndex((p) => !p);
  if (blank >= 0) throw refuseInbox(400, m.inbox_action_give_value({ placeholder: `{{${chosen.parameters[blank]}}}` }), `p${blank + 1}`);
  if (parameters.some((p) => /[\n\t]| {5,}/.test(p)))
    throw refuseInbox(400, m.inbox_action_value_whitespace(), `p${parameters.findIndex((p) => /[\n\t]| {5,}/.test(p)) + 1}`);
  if (chosen.headerTakesValue && !field("headerText").trim()) throw refuseInbox(400, m.inbox_action_give_header_value(), "headerText");
  const header = templateHeaderMedia(chosen, field("headerLink"), attachment);
  const buttons = chosen.buttons.map((button) => {
    const name = `b${button.index}`;
    const value = field(name).trim();
    if (!value)
      throw refuseInbox(
        400,
        button.kind === "url" ? m.inbox_action_give_link_end({ button: button.text }) : m.inbox_action_give_code(),
        name,
      );
    if (/[\n\t]/.test(value)) throw refuseInbox(400, m.inbox_action_button_whitespace(), name);
    if (button.kind === "copy_code" && value.length > COPY_CODE_MAX)
      throw refuseInbox(400, m.inbox_action_copy_code_max({ max: COPY_CODE_MAX }), name);
    if (value.length > LINK_MAX) throw refuseInbox(400, m.inbox_action_link_max({ max: LINK_MAX }), name);
    return { index: button.index, value };
  });
  await sendTemplateReply(actor, conversation, {
    name: chosen.name,
    language: chosen.language,
    parameters,
    headerText: chosen.headerTakesValue ? field("headerText").trim() : undefined,
    headerMedia: header,
    buttons,
  });
  return { kind: "done", toast: m.inbox_action_template_sent({ name: chosen.name }) };
};

/**
 * The composer's "Request payment" (issue 76): the form's fields checked by its schema, then the
 * request made and sent (payments domain); a refusal comes back at its field.
 */
const requestPayment: InboxWork = async ({ actor, conversation, field }) => {
  const names = ["amount", "description", "reference", "expiresInMinutes", "shortcodeId"] as const;
  const parsed = PaymentRequestFormSchema.safeParse(Object.fromEntries(names.map((name) => [name, field(name)])));
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw refuseInbox(422, issue.message, String(issue.path[0] ?? "payment"));
  }
  try {
    await createPaymentRequest(actor, conversation.id, parsed.data, { source: "inbox" });
  } catch (error) {
    if (isRefusal(error, "payment"))
      throw refuseInbox(error.status, error.message, error.field === "conversationId" ? "payment" : (error.field ?? "payment"));
    throw error;
  }
  return { kind: "done", toast: m.payreq_form_sent() };
};

/** A request's card's "Cancel request": refused at the card while a prompt rings or once it closed. */
const cancelPayment: InboxWork = async ({ actor, field }) => {
  try {
    await cancelPaymentRequest(actor, field("requestId"), { via: "inbox" });
  } catch (error) {
    if (isRefusal(error, "payment")) throw refuseInbox(error.status, error.message, "payment-card");
    throw error;
  }
  return { kind: "done", toast: m.payreq_card_cancelled() };
};

/** A cart's "Ask for payment": the order's total asked of its customer (the shop, then payments). */
const requestOrderPay: InboxWork = async ({ actor, conversation, field }) => {
  try {
    await requestOrderPayment(actor, field("orderId"), conversation.id);
  } catch (error) {
    if (isRefusal(error, "payment")) throw refuseInbox(error.status, error.message, "form");
    throw error;
  }
  return { kind: "done", toast: m.shop_order_pay_sent() };
};

/** A product, a product list or the catalogue, from the composer's shop form (the products ticked by id). */
const sendProducts: InboxWork = async ({ actor, conversation, field, ticked }) => {
  if (!conversation.window.open) throw refuseInbox(409, m.inbox_reply_window_closed(), "template");
  const interactive = await productMessage(actor.organizationId, {
    kind: field("productKind"),
    productIds: ticked("product_"),
    header: field("productHeader"),
    body: field("productBody"),
  });
  await sendProductsReply(actor, conversation, interactive);
  return { kind: "done", toast: m.shop_send_sent() };
};

/** Resolve or reopen. */
const setState: InboxWork = async ({ actor, conversation, intent }) => {
  await setConversationState(actor, conversation, intent === "resolve" ? "resolved" : "open");
  return { kind: "done", toast: intent === "resolve" ? m.inbox_action_resolved() : m.inbox_action_reopened() };
};

/** The conversation page's intents (every one needs inbox:reply; assigning others inbox:assign, checked against who is assigned). */
const INTENTS: Record<string, InboxWork> = {
  send: async ({ actor, conversation, field, attachment }) => {
    let text = field("body");
    const quick = field("quickReply");
    if (!text.trim() && quick) text = (await listQuickReplies(actor.organizationId)).find((q) => q.id === quick)?.body ?? "";
    await sendReply(actor, conversation, {
      text,
      replyTo: field("replyTo") || null,
      attachment: attachment ? { mediaId: attachment.id, kind: attachment.kind, fileName: attachment.fileName } : undefined,
    });
    return { kind: "done" };
  },
  template: sendTemplate,
  products: sendProducts,
  "order-payment": requestOrderPay,
  note: async ({ actor, conversation, field }) => {
    await addNote(actor, conversation, field("note"));
    return { kind: "done" };
  },
  assign: async ({ current, actor, conversation, field }) => {
    const assignee = field("assignee") || null;
    const mayAssign =
      can(current.role, "inbox:assign") || assignee === actor.userId || (assignee === null && conversation.assignee?.id === actor.userId);
    if (!mayAssign) throw refuseInbox(403, m.inbox_action_assign_forbidden(), "form");
    await assignConversation(actor, conversation, assignee);
    return { kind: "done", toast: assignee ? m.inbox_action_assigned() : m.inbox_action_unassigned() };
  },
  take: async ({ actor, conversation }) => {
    await assignConversation(actor, conversation, actor.userId);
    return { kind: "done", toast: m.inbox_action_taken() };
  },
  unassign: async ({ current, actor, conversation }) => {
    if (conversation.assignee?.id !== actor.userId && !can(current.role, "inbox:assign"))
      throw refuseInbox(403, m.inbox_action_unassign_forbidden(), "form");
    await assignConversation(actor, conversation, null);
    return { kind: "done", toast: m.inbox_action_unassigned() };
  },
  resolve: setState,
  reopen: setState,
  retry: async ({ actor, conversation, field }) => {
    await retryMessage(actor, conversation, field("message"));
    return { kind: "done", toast: m.inbox_action_retrying() };
  },
  payment: requestPayment,
  "payment-cancel": cancelPayment,
  read: async ({ actor, conversation }) => {
    await markConversationOpened(actor.organizationId, conversation);
    return { kind: "quiet" };
  },
  typing: async ({ actor, conversation }) => {
    await setPresence(actor.organizationId, conversation.id, actor.userId, "typing");
    if (conversation.window.open)
      await enqueueJob(
        INBOX_MARK_READ_QUEUE,
        { organizationId: actor.organizationId, conversationId: conversation.id, typing: true },
        { uniqueKey: `inbox-typing:${conversation.id}` },
      );
    return { kind: "quiet" };
  },
};
