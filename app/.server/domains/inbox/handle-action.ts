import type { ConversationRow } from "~/lib/inbox";
import type { CurrentUser } from "../auth/guards";
import { can } from "../auth/permissions";
import { enqueueJob } from "../../infrastructure/jobs/queue";
import { discardUploadedMedia } from "../messaging/media-files";
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
import { COPY_CODE_MAX, headerMediaInput, LINK_MAX } from "../campaigns/template-values";
import type { MediaRef } from "../messaging/content";
import type { ReplyTemplate } from "~/lib/inbox";
import { isRefusal } from "../../infrastructure/refusal";

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
    if (attachment || link.trim())
      throw refuseInbox(400, `${chosen.name} has no image, video or document header: leave out the file.`, "attachment");
    return undefined;
  }
  const kind = chosen.headerMedia;
  if (attachment) {
    if (link.trim()) throw refuseInbox(400, "Give the header's file as an upload or as a link, not both.", "headerLink");
    if (attachment.kind !== kind)
      throw refuseInbox(415, `This template's header takes ${kind === "image" ? "an image" : `a ${kind}`}.`, "attachment");
    return { mediaId: attachment.id, ...(kind === "document" && attachment.fileName ? { filename: attachment.fileName } : {}) };
  }
  if (!link.trim()) throw refuseInbox(400, `Give the header's ${kind}: upload the file or give its https:// link.`, "attachment");
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
    errors: { form: "Your role reads conversations; owners, admins and agents answer them." },
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
    if (!INTENTS.has(intent)) throw refuseInbox(400, "Unknown action.", "form");
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
        if (!chosen) throw refuseInbox(422, "Choose an approved template of this number.", "template");
        const parameters = chosen.parameters.map((_, i) => field(`p${i + 1}`).trim());
        const blank = parameters.findIndex((p) => !p);
        if (blank >= 0) throw refuseInbox(400, `Give the value of {{${chosen.parameters[blank]}}}.`, `p${blank + 1}`);
        if (parameters.some((p) => /[\n\t]| {5,}/.test(p)))
          throw refuseInbox(
            400,
            "Template values cannot hold line breaks, tabs or more than four spaces in a row (WhatsApp's rule).",
            `p${parameters.findIndex((p) => /[\n\t]| {5,}/.test(p)) + 1}`,
          );
        if (chosen.headerTakesValue && !field("headerText").trim()) throw refuseInbox(400, "Give the header's value.", "headerText");
        const header = templateHeaderMedia(chosen, field("headerLink"), attachment);
        const buttons = chosen.buttons.map((button) => {
          const name = `b${button.index}`;
          const value = field(name).trim();
          if (!value)
            throw refuseInbox(
              400,
              button.kind === "url" ? `Give the end of the link of the button ${button.text}.` : "Give the code the customer copies.",
              name,
            );
          if (/[\n\t]/.test(value)) throw refuseInbox(400, "A button's value cannot hold line breaks or tabs.", name);
          if (button.kind === "copy_code" && value.length > COPY_CODE_MAX)
            throw refuseInbox(400, `A copy code has at most ${COPY_CODE_MAX} characters.`, name);
          if (value.length > LINK_MAX) throw refuseInbox(400, `A link's ending has at most ${LINK_MAX} characters.`, name);
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
        return { kind: "done", toast: `Template ${chosen.name} is on its way.` };
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
        if (!mayAssign) throw refuseInbox(403, "Only owners and admins assign conversations to others; take it yourself instead.", "form");
        await assignConversation(actor, conversation, assignee);
        return { kind: "done", toast: assignee ? "Conversation assigned." : "Conversation unassigned." };
      }
      case "take":
        await assignConversation(actor, conversation, actor.userId);
        return { kind: "done", toast: "The conversation is yours." };
      case "unassign":
        if (conversation.assignee?.id !== actor.userId && !can(current.role, "inbox:assign"))
          throw refuseInbox(403, "Only owners and admins unassign others' conversations.", "form");
        await assignConversation(actor, conversation, null);
        return { kind: "done", toast: "Conversation unassigned." };
      case "resolve":
      case "reopen":
        await setConversationState(actor, conversation, intent === "resolve" ? "resolved" : "open");
        return { kind: "done", toast: intent === "resolve" ? "Conversation resolved." : "Conversation reopened." };
      case "retry":
        await retryMessage(actor, conversation, field("message"));
        return { kind: "done", toast: "Sending it again." };
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
    throw refuseInbox(400, "Unknown action.", "form");
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
