import type { ConversationRow } from "~/lib/inbox";
import { type CurrentUser, can } from "../auth";
import { enqueueJob } from "../../infrastructure/jobs/queue";
import { discardUploadedMedia, type MediaRef } from "../messaging";
import {
  addNote,
  assignConversation,
  INBOX_MARK_READ_QUEUE,
  refuseInbox,
  markConversationOpened,
  retryMessage,
  sendReply,
  sendTemplateReply,
  setConversationState,
  type InboxActor,
} from "./actions";
import { setPresence } from "./live";
import { replyTemplates } from "./page";
import { listQuickReplies } from "./quick-replies";
import { readReplyForm } from "./reply-form";
import { COPY_CODE_MAX, headerMediaInput, LINK_MAX } from "../campaigns";
import type { ReplyTemplate } from "~/lib/inbox";
import { isRefusal } from "../../infrastructure/refusal";
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

type FormReader = (request: Request) => Promise<FormData>;

const INTENTS = new Set(["send", "template", "note", "assign", "take", "unassign", "resolve", "reopen", "retry", "read", "typing"]);

/**
 * A post to a conversation's page, checked against the member's role (inbox:reply to act at all,
 * inbox:assign to assign others) and carried out; refusals come back at their field with what was
 * typed, so the page shows them without JavaScript.
 */
// long: one switch over the conversation page's intents, each a few lines, sharing the role check and the refusal shown at its field
export async function handleInboxAction(
  current: Pick<CurrentUser, "user" | "organization" | "role">,
  conversation: ConversationRow,
  request: Request,
  readForm: FormReader,
): Promise<InboxOutcome> {
  const actor: InboxActor = { userId: current.user.id, organizationId: current.organization.id };
  const multipart = /^multipart\/form-data/i.test(request.headers.get("content-type") ?? "");
  const refusedRole = (): InboxOutcome => ({
    kind: "refused",
    status: 403,
    errors: { form: m.inbox_role_reads_only() },
    values: {},
  });
  if (!can(current.role, "inbox:reply")) return refusedRole();
  let fields: Map<string, string>;
  let attachment: Awaited<ReturnType<typeof readReplyForm>>["attachment"] = null;
  try {
    if (multipart) ({ fields, attachment } = await readReplyForm(actor.organizationId, request));
    else {
      const form = await readForm(request);
      fields = new Map([...form].flatMap(([k, v]) => (typeof v === "string" ? [[k, v] as [string, string]] : [])));
    }
  } catch (error) {
    if (isRefusal(error, "inbox"))
      return { kind: "refused", status: error.status, errors: { [error.field ?? "body"]: error.message }, values: error.values ?? {} };
    throw error;
  }
  const field = (name: string) => fields.get(name) ?? "";
  const intent = field("intent");
  const values = Object.fromEntries([...fields].filter(([k]) => k !== "intent").map(([k, v]) => [k, v.slice(0, 5000)]));
  try {
    if (!INTENTS.has(intent)) throw refuseInbox(400, m.inbox_unknown_action(), "form");
    switch (intent) {
      case "send": {
        let text = field("body");
        const quick = field("quickReply");
        if (!text.trim() && quick) text = (await listQuickReplies(actor.organizationId)).find((q) => q.id === quick)?.body ?? "";
        await sendReply(actor, conversation, {
          text,
          replyTo: field("replyTo") || null,
          attachment: attachment ? { mediaId: attachment.id, kind: attachment.kind, fileName: attachment.fileName } : undefined,
        });
        return { kind: "done" };
      }
      case "template": {
        const templates = await replyTemplates(actor.organizationId, conversation.phoneNumberId);
        const chosen = templates.find((t) => t.id === field("template"));
        if (!chosen) throw refuseInbox(422, m.inbox_action_choose_template(), "template");
        const parameters = chosen.parameters.map((_, i) => field(`p${i + 1}`).trim());
        const blank = parameters.findIndex((p) => !p);
        if (blank >= 0)
          throw refuseInbox(400, m.inbox_action_give_value({ placeholder: `{{${chosen.parameters[blank]}}}` }), `p${blank + 1}`);
        if (parameters.some((p) => /[\n\t]| {5,}/.test(p)))
          throw refuseInbox(400, m.inbox_action_value_whitespace(), `p${parameters.findIndex((p) => /[\n\t]| {5,}/.test(p)) + 1}`);
        if (chosen.headerTakesValue && !field("headerText").trim())
          throw refuseInbox(400, m.inbox_action_give_header_value(), "headerText");
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
      }
      case "note":
        await addNote(actor, conversation, field("note"));
        return { kind: "done" };
      case "assign": {
        const assignee = field("assignee") || null;
        const mayAssign =
          can(current.role, "inbox:assign") ||
          assignee === actor.userId ||
          (assignee === null && conversation.assignee?.id === actor.userId);
        if (!mayAssign) throw refuseInbox(403, m.inbox_action_assign_forbidden(), "form");
        await assignConversation(actor, conversation, assignee);
        return { kind: "done", toast: assignee ? m.inbox_action_assigned() : m.inbox_action_unassigned() };
      }
      case "take":
        await assignConversation(actor, conversation, actor.userId);
        return { kind: "done", toast: m.inbox_action_taken() };
      case "unassign":
        if (conversation.assignee?.id !== actor.userId && !can(current.role, "inbox:assign"))
          throw refuseInbox(403, m.inbox_action_unassign_forbidden(), "form");
        await assignConversation(actor, conversation, null);
        return { kind: "done", toast: m.inbox_action_unassigned() };
      case "resolve":
      case "reopen":
        await setConversationState(actor, conversation, intent === "resolve" ? "resolved" : "open");
        return { kind: "done", toast: intent === "resolve" ? m.inbox_action_resolved() : m.inbox_action_reopened() };
      case "retry":
        await retryMessage(actor, conversation, field("message"));
        return { kind: "done", toast: m.inbox_action_retrying() };
      case "read":
        await markConversationOpened(actor.organizationId, conversation);
        return { kind: "quiet" };
      case "typing":
        await setPresence(actor.organizationId, conversation.id, actor.userId, "typing");
        if (conversation.window.open)
          await enqueueJob(
            INBOX_MARK_READ_QUEUE,
            { organizationId: actor.organizationId, conversationId: conversation.id, typing: true },
            { uniqueKey: `inbox-typing:${conversation.id}` },
          );
        return { kind: "quiet" };
    }
    throw refuseInbox(400, m.inbox_unknown_action(), "form");
  } catch (error) {
    // A refused send keeps no file.
    if (attachment && (isRefusal(error, "inbox") || isRefusal(error, "send")))
      await discardUploadedMedia(actor.organizationId, attachment.id);
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
}
