import { byCount } from "~/lib/intl";
import { m } from "~/paraglide/messages";

/**
 * The inbox's shapes, shared by the server (app/.server/domains/inbox/) and the browser (/chat and its live
 * stream): what a conversation in the list, a message in a thread and a live event carry.
 */

/** The list's filters (spec: search plus these); `all` is every conversation. */
export const INBOX_FILTERS = ["all", "open", "resolved", "mine", "unassigned"] as const;
export type InboxFilter = (typeof INBOX_FILTERS)[number];

/** The longest message Meta takes as text, and the longest note. */
export const MAX_TEXT_LENGTH = 4096;
export const MAX_NOTE_LENGTH = 2000;

export interface MemberRef {
  id: string;
  name: string;
}

/** The customer's 24-hour service window with the business number (Meta's rule). */
export interface ServiceWindow {
  open: boolean;
  /** When it closes (open) or closed (closed after a customer message); null: the customer never wrote. */
  closesAt: string | null;
}

/** One conversation as the list shows it. */
export interface ConversationRow {
  id: string;
  contactId: string;
  /** The customer's name, or their number when WhatsApp gave none. */
  name: string;
  phone: string | null;
  phoneNumberId: string;
  /** The business number, E.164. */
  businessNumber: string;
  lastMessage: { text: string; direction: "inbound" | "outbound"; status: MessageStatus } | null;
  lastMessageAt: string;
  lastInboundAt: string | null;
  unread: number;
  status: "open" | "resolved";
  assignee: MemberRef | null;
  window: ServiceWindow;
  /** The Click-to-WhatsApp ad the customer last came from (decision 154), or null. */
  ad: ConversationAd | null;
  /** Until when Meta's free entry window (an answered ad entry) makes every message free; null: none opened. */
  freeEntryUntil: string | null;
}

export interface ConversationAd {
  headline: string | null;
  body: string | null;
  /** The ad's (or post's) address. */
  sourceUrl: string | null;
  /** Where Jumbe serves the ad's picture (its thumbnail, else its image) once fetched into storage; null: none. */
  picture: string | null;
}

/** A conversation as a line of the list shows it (and the live stream's rows, which carry more, update it). */
export type ConversationListRow = Omit<
  ConversationRow,
  "contactId" | "phone" | "businessNumber" | "lastInboundAt" | "ad" | "freeEntryUntil"
>;

/** A line shows the start of the last message: a phone about 40 characters of it, a wide list 50. */
export const LIST_PREVIEW_MAX = 80;

/** The list's line of a conversation: what it shows and filters on, not the thread's header details. */
export function listRowOf({
  contactId: _contact,
  phone: _phone,
  businessNumber: _number,
  lastInboundAt: _inbound,
  ad: _ad,
  freeEntryUntil: _free,
  ...row
}: ConversationRow): ConversationListRow {
  const last = row.lastMessage;
  if (!last || last.text.length <= LIST_PREVIEW_MAX) return row;
  return { ...row, lastMessage: { ...last, text: `${last.text.slice(0, LIST_PREVIEW_MAX - 1).trimEnd()}…` } };
}

export type MessageStatus = "queued" | "sent" | "delivered" | "read" | "failed" | "received";

export type MediaKind = "image" | "video" | "audio" | "document" | "sticker";

/** A kind of file in words: "Photo", "Video"… (read when called: the request's language). */
export function mediaLabel(kind: MediaKind) {
  switch (kind) {
    case "image":
      return m.inbox_media_photo();
    case "video":
      return m.inbox_media_video();
    case "audio":
      return m.inbox_media_audio();
    case "document":
      return m.inbox_media_document();
    case "sticker":
      return m.inbox_media_sticker();
  }
}

/** "🛒 Order: 3 items": a customer's cart in a line. */
export function orderWords(items: number) {
  return `🛒 ${byCount(
    items,
    () => m.inbox_message_order_one({ count: items }),
    () => m.inbox_message_order_other({ count: items }),
  )}`;
}

/** What a message shows, by kind: parsed from Meta's payload (inbound) or Jumbe's request (outbound). */
export type MessageContent =
  | { kind: "text"; text: string }
  | {
      kind: "media";
      media: MediaKind;
      caption: string | null;
      fileName: string | null;
      mimeType: string | null;
      /** Bytes, when Jumbe holds the file. */
      size: number | null;
      /** Jumbe's copy (a /chat/... address); null while it downloads, or when it could not be fetched. */
      url: string | null;
      /** Why there is no file, in words (download failed, too large...). */
      unavailable: string | null;
      /** A voice note (audio recorded in WhatsApp). */
      voice: boolean;
    }
  | { kind: "location"; latitude: number; longitude: number; name: string | null; address: string | null }
  | { kind: "contacts"; people: { name: string; phones: string[]; emails: string[] }[] }
  | {
      kind: "template";
      name: string;
      /** The header's text with its value, or a media header's kind. */
      header: string | null;
      headerMedia: MediaKind | null;
      /** A media header's file in Jumbe (a /chat/... address), when the header was Jumbe's upload. */
      headerUrl?: string | null;
      body: string;
      footer: string | null;
      buttons: string[];
    }
  | { kind: "interactive"; header: string | null; body: string; footer: string | null; buttons: string[] }
  /** The customer tapped a button or picked a list row. */
  | { kind: "choice"; title: string; description: string | null }
  | { kind: "reaction"; emoji: string }
  | {
      kind: "order";
      items: number;
      text: string | null;
      /** The order Jumbe made of the cart (decision 138): its lines, total and page. */
      cart?: {
        orderId: string;
        totalCents: number;
        /** received (the team may ask for payment), awaiting_payment, paid or cancelled. */
        status: "received" | "awaiting_payment" | "paid" | "cancelled";
        lines: { name: string; quantity: number; unitPriceCents: number }[];
      };
    }
  | { kind: "unsupported"; text: string };

export interface ThreadMessage {
  type: "message";
  id: string;
  direction: "inbound" | "outbound";
  /** When the customer sent it (inbound) or Jumbe stored it (outbound). */
  at: string;
  status: MessageStatus;
  content: MessageContent;
  /** The message it answers, in a line. */
  replyTo: { id: string | null; direction: "inbound" | "outbound" | null; text: string } | null;
  /** Reactions to it (the customer's and the business's). */
  reactions: { emoji: string; from: "customer" | "business" }[];
  /** Why it failed, in words; null unless failed. */
  failure: string | null;
  /** Whether an agent may send it again (failed, and not already retried). */
  retryable: boolean;
  /** The member who wrote it in the inbox; null for customers, campaigns and the API. */
  sentBy: MemberRef | null;
  /** Where it came from when not the inbox: campaign, broadcast, api, automation, system. */
  source: string | null;
  /** An automation's message: which one sent it (issue 44). */
  automation: { kind: "rule" | "welcome" | "away" | "flow" | "assistant"; rule: string | null } | null;
  /** "sms" when it travelled by SMS (issue 77); WhatsApp otherwise. */
  channel?: "sms";
}

/** Why an automation handed a conversation to a person (issue 44): the thread's hand-over lines say it in words. */
export const HANDOVER_REASONS = [
  "asked_for_person",
  "assistant_tool",
  "no_knowledge",
  "model_error",
  "turn_limit",
  "over_cap",
  "flow",
  "rule",
] as const;
export type HandoverReason = (typeof HANDOVER_REASONS)[number];

export interface ThreadEntry {
  type: "entry";
  id: string;
  at: string;
  kind: "note" | "assigned" | "unassigned" | "resolved" | "reopened" | "handover";
  actor: MemberRef | null;
  subject: MemberRef | null;
  /** A note's text; a hand-over's detail (a flow's or rule's name, a model's error), or "". */
  body: string;
  /** A hand-over's reason. */
  reason?: HandoverReason;
}

export type ThreadItem = ThreadMessage | ThreadEntry;

/** Who else is on a conversation now. */
export interface PresenceMember extends MemberRef {
  state: "viewing" | "typing";
}

/** What the inbox's event stream sends (event `inbox`), one change at a time. */
export interface InboxLiveEvent {
  id: number;
  kind: "message" | "status" | "conversation" | "entry";
  conversationId: string;
  /** The conversation as the list shows it now. */
  conversation: ConversationRow | null;
  /** For the stream of this conversation's thread only: the message or entry as it is now. */
  item: ThreadItem | null;
}

/** A template an agent may send from the inbox: approved, on the number's account, no file or per-message link needed. */
export interface ReplyTemplate {
  id: string;
  name: string;
  language: string;
  category: string;
  header: string | null;
  body: string;
  footer: string | null;
  /** The body's placeholders in order: "1", "2"… or their names. */
  parameters: string[];
  headerTakesValue: boolean;
  /** A media header's kind: its file is given with each send (an upload or an https link). */
  headerMedia: "image" | "video" | "document" | null;
  /** The buttons that take a value: a dynamic link's ending, a copy code. */
  buttons: { index: number; kind: "url" | "copy_code"; text: string; url: string | null }[];
}
