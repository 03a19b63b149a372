import { mediaLabel, orderWords, type MediaKind, type MessageContent } from "~/lib/inbox";
import { m } from "~/paraglide/messages";

/**
 * What a message in a thread shows: parsed from what Meta sent (inbound: the message object of the
 * webhook, reference §4.4) or from what Jumbe asked Meta to send (outbound: the Graph request, with
 * a template rendered from its components as the customer saw it). Payloads come from outside and
 * from old rows: nothing here throws; what cannot be read falls back to the stored one-line body.
 */

export interface ContentSource {
  /** messages.id */
  id: string;
  direction: "inbound" | "outbound";
  /** messages.message_type */
  messageType: string;
  /** messages.body (Jumbe's one-line summary) */
  body: string;
  /** Inbound: Meta's message object as the webhook carried it; outbound: Jumbe's Graph request (messages.payload). */
  payload: unknown;
  /** Outbound templates: message_templates.components (joined by messages.template_id). */
  template: { components: Record<string, unknown>[] } | null;
  /** The media_files row, when Jumbe holds the file. */
  mediaFile: { mimeType: string; size: number; fileName: string | null } | null;
  /** Inbound media whose download failed: error_title 'media_download_failed', error_details says why. */
  errorTitle: string | null;
  errorDetails: string | null;
  /** The organisation's retention removed its body and payload (messages.body_expired_at, decision 165). */
  bodyExpired?: boolean;
}

type Obj = Record<string, unknown>;

const MEDIA_KINDS: readonly MediaKind[] = ["image", "video", "audio", "document", "sticker"];
/** Jumbe's own upload in a stored request, replaced by Meta's id only in what is sent (messaging/media.ts). */
const JUMBE_MEDIA = "jumbe-media:";
const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;

const isObj = (value: unknown): value is Obj => typeof value === "object" && value !== null && !Array.isArray(value);
const objOf = (value: unknown): Obj => (isObj(value) ? value : {});
const listOf = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
/** A non-blank string, else null. */
const str = (value: unknown): string | null => (typeof value === "string" && value.trim() ? value : null);
const num = (value: unknown): number | null => {
  const n = typeof value === "string" && value.trim() ? Number(value) : value;
  return typeof n === "number" && Number.isFinite(n) ? n : null;
};

/** The message's content by kind; never throws (a payload that cannot be read shows the stored body). */
export function messageContent(source: ContentSource): MessageContent {
  if (source.bodyExpired) return { kind: "unsupported", text: m.retention_inbox_body_expired() };
  try {
    const payload = objOf(source.payload);
    const type = str(payload.type) ?? source.messageType;
    const content = source.direction === "inbound" ? inboundContent(source, payload, type) : outboundContent(source, payload, type);
    return content ?? fallback(source);
  } catch {
    return fallback(source);
  }
}

function fallback(source: ContentSource): MessageContent {
  const body = typeof source.body === "string" ? source.body.trim() : "";
  return body ? { kind: "text", text: body } : { kind: "unsupported", text: m.inbox_content_not_shown() };
}

function inboundContent(source: ContentSource, payload: Obj, type: string): MessageContent | null {
  const part = payload[type];
  if ((MEDIA_KINDS as readonly string[]).includes(type)) return inboundMedia(source, type as MediaKind, part);
  switch (type) {
    case "text":
      return textOf(objOf(part).body);
    case "location":
      return locationOf(part);
    case "contacts":
      return contactsOf(payload.contacts);
    case "interactive":
      return interactiveReply(objOf(part));
    case "button": {
      const button = objOf(part);
      const title = str(button.text) ?? str(button.payload);
      return title ? { kind: "choice", title, description: null } : null;
    }
    case "reaction":
      return reactionOf(part);
    case "order":
      return orderOf(objOf(part));
    case "system":
      return systemOf(objOf(part));
    case "unsupported":
      return unsupportedOf(payload);
    default:
      return { kind: "unsupported", text: unknownKind(type) };
  }
}

function inboundMedia(source: ContentSource, media: MediaKind, value: unknown): MessageContent | null {
  if (!isObj(value) && !source.mediaFile) return null;
  const part = objOf(value);
  const file = source.mediaFile;
  return {
    kind: "media",
    media,
    caption: str(part.caption),
    fileName: file?.fileName ?? str(part.filename),
    mimeType: file?.mimeType ?? str(part.mime_type),
    size: file?.size ?? null,
    url: file ? mediaUrl(source.id) : null,
    unavailable: file ? null : source.errorTitle ? failureWords(media, source.errorDetails) : m.inbox_content_downloading(),
    voice: media === "audio" && part.voice === true,
  };
}

/** Why a customer's file is not here, in words: the download job's reason, which already names the kind. */
function failureWords(media: MediaKind, details: string | null) {
  return str(details) ?? downloadFailed(media);
}

function downloadFailed(media: MediaKind) {
  switch (media) {
    case "image":
      return m.inbox_content_download_failed_image();
    case "video":
      return m.inbox_content_download_failed_video();
    case "audio":
      return m.inbox_content_download_failed_audio();
    case "document":
      return m.inbox_content_download_failed_document();
    case "sticker":
      return m.inbox_content_download_failed_sticker();
  }
}

/** The address of a message's file in Jumbe (app/routes/app/chat/media.ts). */
export const mediaUrl = (messageId: string) => `/chat/media/${messageId}`;

function textOf(value: unknown): MessageContent | null {
  const text = str(value);
  return text ? { kind: "text", text } : null;
}

function locationOf(value: unknown): MessageContent | null {
  const location = objOf(value);
  const latitude = num(location.latitude);
  const longitude = num(location.longitude);
  if (latitude === null || longitude === null || Math.abs(latitude) > 90 || Math.abs(longitude) > 180) return null;
  return { kind: "location", latitude, longitude, name: str(location.name), address: str(location.address) };
}

/** Shared contact cards (the same shape in a webhook and in a send): names, numbers, e-mails. */
function contactsOf(value: unknown): MessageContent | null {
  const people = listOf(value)
    .filter(isObj)
    .map((card) => {
      const name = objOf(card.name);
      const parts = [name.prefix, name.first_name, name.middle_name, name.last_name, name.suffix].map(str).filter(Boolean);
      const phones = listOf(card.phones)
        .filter(isObj)
        .map((p) => str(p.phone) ?? (str(p.wa_id) ? `+${String(p.wa_id)}` : null))
        .filter((p): p is string => !!p);
      const emails = listOf(card.emails)
        .filter(isObj)
        .map((e) => str(e.email))
        .filter((e): e is string => !!e);
      return { name: str(name.formatted_name) ?? (parts.join(" ") || phones[0] || m.inbox_content_contact()), phones, emails };
    });
  return people.length ? { kind: "contacts", people } : null;
}

function interactiveReply(interactive: Obj): MessageContent | null {
  const type = str(interactive.type);
  if (type === "button_reply" || type === "list_reply") {
    const reply = objOf(interactive[type]);
    const title = str(reply.title) ?? str(reply.id);
    return title ? { kind: "choice", title, description: str(reply.description) } : null;
  }
  if (type === "nfm_reply")
    return {
      kind: "choice",
      title: str(objOf(interactive.nfm_reply).body) ?? m.inbox_content_flow_sent(),
      description: m.inbox_content_flow_answers(),
    };
  return { kind: "unsupported", text: m.inbox_content_interactive_unsupported() };
}

function reactionOf(value: unknown): MessageContent | null {
  const reaction = objOf(value);
  // An empty emoji is Meta's way of saying the reaction was removed.
  return typeof reaction.emoji === "string" ? { kind: "reaction", emoji: reaction.emoji } : null;
}

function orderOf(order: Obj): MessageContent {
  const items = listOf(order.product_items)
    .filter(isObj)
    .reduce<number>((sum, item) => sum + Math.max(1, Math.floor(num(item.quantity) ?? 1)), 0);
  return { kind: "order", items, text: str(order.text) };
}

function systemOf(system: Obj): MessageContent {
  const newNumber = str(system.wa_id) ?? str(system.new_wa_id);
  if (str(system.type) === "user_changed_number" && newNumber)
    return { kind: "unsupported", text: m.inbox_content_number_changed({ number: newNumber.replace(/^\+/, "") }) };
  return { kind: "unsupported", text: str(system.body) ?? m.inbox_content_whatsapp_notice() };
}

function unsupportedOf(payload: Obj): MessageContent {
  const error = objOf(listOf(payload.errors)[0]);
  const detail = str(objOf(error.error_data).details) ?? str(error.title);
  return {
    kind: "unsupported",
    text: detail ? m.inbox_content_unsupported_detail({ detail: detail.replace(/\.$/, "") }) : m.inbox_content_unsupported(),
  };
}

// ---- outbound: Jumbe's Graph request ------------------------------------------------------------

function outboundContent(source: ContentSource, graph: Obj, type: string): MessageContent | null {
  const part = graph[type];
  if ((MEDIA_KINDS as readonly string[]).includes(type)) return outboundMedia(source, type as MediaKind, part);
  switch (type) {
    case "text":
      return textOf(objOf(part).body);
    case "template":
      return templateOf(source, objOf(part));
    case "interactive":
      return interactiveOf(objOf(part), source.body);
    case "reaction":
      return reactionOf(part);
    case "location":
      return locationOf(part);
    case "contacts":
      return contactsOf(part);
    default:
      return null;
  }
}

function outboundMedia(source: ContentSource, media: MediaKind, value: unknown): MessageContent | null {
  if (!isObj(value)) return null;
  const id = typeof value.id === "string" ? value.id : "";
  const held = id.startsWith(JUMBE_MEDIA);
  const file = source.mediaFile;
  return {
    kind: "media",
    media,
    caption: str(value.caption),
    fileName: str(value.filename) ?? file?.fileName ?? null,
    mimeType: file?.mimeType ?? null,
    size: file?.size ?? null,
    url: held ? mediaUrl(source.id) : null,
    unavailable: held ? null : str(value.link) ? m.inbox_content_sent_as_link() : m.inbox_content_no_copy(),
    voice: false,
  };
}

const PRODUCT_BUTTONS: Record<string, () => string> = {
  product: () => m.shop_thread_view_product(),
  product_list: () => m.shop_thread_view_items(),
  catalog_message: () => m.shop_thread_view_catalog(),
};

/** A product message as sent: its words, the products' names Jumbe kept (`summary`) and WhatsApp's button. */
function productsOf(interactive: Obj, type: string, summary: string): MessageContent {
  return {
    kind: "interactive",
    header: str(objOf(interactive.header).text),
    body: [str(objOf(interactive.body).text), str(summary)].filter(Boolean).join("\n\n"),
    footer: str(objOf(interactive.footer).text),
    buttons: [PRODUCT_BUTTONS[type]!()],
  };
}

function interactiveOf(interactive: Obj, summary: string): MessageContent | null {
  const kind = str(interactive.type);
  if (kind && kind in PRODUCT_BUTTONS) return productsOf(interactive, kind, summary);
  const body = str(objOf(interactive.body).text);
  if (!body) return null;
  const header = objOf(interactive.header);
  const action = objOf(interactive.action);
  const type = str(interactive.type);
  const buttons =
    type === "button"
      ? listOf(action.buttons).map((b) => str(objOf(objOf(b).reply).title))
      : type === "list"
        ? [str(action.button)]
        : type === "cta_url"
          ? [str(objOf(action.parameters).display_text)]
          : [];
  return {
    kind: "interactive",
    header: str(header.text),
    body,
    footer: str(objOf(interactive.footer).text),
    buttons: buttons.filter((b): b is string => !!b),
  };
}

/** A template as the customer saw it: its components with the message's parameters filled in. */
function templateOf(source: ContentSource, graph: Obj): MessageContent {
  const name = str(graph.name) ?? "template";
  const sent = listOf(graph.components).filter(isObj);
  const sentPart = (type: string) => sent.find((c) => String(c.type).toLowerCase() === type);
  const components = listOf(source.template?.components).filter(isObj);
  const part = (type: string) => components.find((c) => String(c.type).toUpperCase() === type);
  const header = part("HEADER");
  const body = part("BODY");
  const footer = part("FOOTER");
  const headerParameters = listOf(sentPart("header")?.parameters).filter(isObj);
  const bodyParameters = listOf(sentPart("body")?.parameters).filter(isObj);

  const format = String(header?.format ?? "").toUpperCase();
  const mediaFormat = ["IMAGE", "VIDEO", "DOCUMENT"].includes(format) ? (format.toLowerCase() as MediaKind) : null;
  const sentMediaParameter = headerParameters.find((p) => p.type === "image" || p.type === "video" || p.type === "document");
  const sentMedia = sentMediaParameter ? (String(sentMediaParameter.type) as MediaKind) : null;
  const sentMediaId = objOf(sentMediaParameter?.[String(sentMediaParameter?.type)]).id;
  const headerMedia = mediaFormat ?? sentMedia;
  let headerText: string | null = null;
  if (format === "TEXT") headerText = fill(str(header?.text) ?? "", headerParameters) || null;
  else if (format === "LOCATION") {
    const location = objOf(headerParameters.find((p) => p.type === "location")?.location);
    headerText = str(location.name) ?? str(location.address) ?? m.inbox_content_location();
  } else if (!header) headerText = str(headerParameters.find((p) => p.type === "text")?.text);

  const bodyText = body
    ? str(body.text)
      ? fill(String(body.text), bodyParameters)
      : authenticationBody(body, bodyParameters)
    : bodyParameters.length
      ? bodyParameters.map(parameterText).filter(Boolean).join(", ")
      : fallback(source).kind === "text"
        ? source.body.trim()
        : "";
  const expiry = num(footer?.code_expiration_minutes);
  return {
    kind: "template",
    name,
    header: headerText,
    headerMedia,
    headerUrl: headerMedia && typeof sentMediaId === "string" && sentMediaId.startsWith(JUMBE_MEDIA) ? mediaUrl(source.id) : null,
    body: bodyText,
    footer: str(footer?.text) ?? (expiry ? `This code expires in ${expiry} minutes.` : null),
    buttons: templateButtons(part("BUTTONS")),
  };
}

/** A parameter's words: text, or the fallback of a currency or date (what WhatsApp shows when it cannot localise). */
function parameterText(parameter: Obj): string {
  switch (parameter.type) {
    case "currency":
      return str(objOf(parameter.currency).fallback_value) ?? "";
    case "date_time":
      return str(objOf(parameter.date_time).fallback_value) ?? "";
    case "text":
    default:
      return typeof parameter.text === "string" ? parameter.text : "";
  }
}

/** `{{1}}` takes the first parameter, `{{name}}` the one of that parameter_name; one not given stays as it is. */
function fill(text: string, parameters: Obj[]) {
  return text.replace(PLACEHOLDER, (whole, key: string) => {
    const parameter = /^\d+$/.test(key) ? parameters[Number(key) - 1] : parameters.find((p) => p.parameter_name === key);
    const value = parameter ? parameterText(parameter) : "";
    return value || whole;
  });
}

/** Authentication templates have no body text: WhatsApp writes it around the code (Meta's fixed wording). */
function authenticationBody(body: Obj, parameters: Obj[]) {
  const code = parameters[0] ? parameterText(parameters[0]) : "";
  const security = body.add_security_recommendation === true ? " For your security, do not share this code." : "";
  return `${code || "{{1}}"} is your verification code.${security}`;
}

function templateButtons(part: Obj | undefined): string[] {
  return listOf(part?.buttons)
    .filter(isObj)
    .map((button) => {
      const type = String(button.type ?? "").toUpperCase();
      if (type === "COPY_CODE") return "Copy offer code";
      if (type === "OTP") return str(button.text) ?? "Copy code";
      return str(button.text) ?? "";
    })
    .filter(Boolean);
}

/** "The customer sent an order_status message…": a kind of message the inbox does not know, named as Meta names it. */
function unknownKind(type: string) {
  const word =
    type
      .replace(/[^\w-]+/g, " ")
      .trim()
      .slice(0, 40) || "unknown";
  return /^[aeiou]/i.test(word) ? m.inbox_content_unknown_an({ type: word }) : m.inbox_content_unknown_a({ type: word });
}

// ---- one line -----------------------------------------------------------------------------------

const MEDIA_ICONS: Record<MediaKind, string> = {
  image: "📷",
  video: "🎥",
  audio: "🎵",
  document: "📄",
  sticker: "💟",
};

/** At most this many characters in a line (the list cuts it further with CSS). */
const LINE_LENGTH = 200;

function oneLine(text: string) {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > LINE_LENGTH ? `${line.slice(0, LINE_LENGTH - 1).trimEnd()}…` : line;
}

/** One line for the conversation list and reply quotes: "📷 Photo: caption", "📍 Location: Westlands". */
export function contentLine(content: MessageContent): string {
  switch (content.kind) {
    case "text":
      return oneLine(content.text);
    case "media": {
      if (content.media === "document")
        return oneLine(`📄 ${content.fileName ?? mediaLabel("document")}${content.caption ? `: ${content.caption}` : ""}`);
      const label = content.voice ? `🎤 ${m.inbox_media_voice()}` : `${MEDIA_ICONS[content.media]} ${mediaLabel(content.media)}`;
      return oneLine(content.caption ? `${label}: ${content.caption}` : label);
    }
    case "location": {
      const place = content.name ?? content.address ?? `${content.latitude.toFixed(5)}, ${content.longitude.toFixed(5)}`;
      return oneLine(`📍 ${m.inbox_line_location({ place })}`);
    }
    case "contacts": {
      const names = content.people.map((p) => p.name).join(", ");
      return oneLine(
        `👤 ${content.people.length === 1 ? m.inbox_line_contact({ names }) : m.inbox_line_contacts({ count: content.people.length, names })}`,
      );
    }
    case "template":
      return oneLine([content.header, content.body].filter(Boolean).join(": ") || m.inbox_message_template({ name: content.name }));
    case "interactive":
      return oneLine(content.body);
    case "choice":
      return oneLine(content.title);
    case "reaction":
      return content.emoji ? m.inbox_message_reacted_with({ emoji: content.emoji }) : m.inbox_message_reaction_removed();
    case "order":
      return oneLine(`${orderWords(content.items)}${content.text ? `: ${content.text}` : ""}`);
    case "unsupported":
      return oneLine(content.text);
  }
}
