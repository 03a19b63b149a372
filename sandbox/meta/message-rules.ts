/**
 * Meta's checks on a POST /{phone-number-id}/messages body, as documented (send-messages, the
 * interactive guides, media reference, error codes): the envelope, then each type's object. A
 * failed check is Meta's envelope: 131008 for a missing parameter, 131009 for a value that is not
 * valid (both with error_data.details), 100 for a malformed envelope.
 */

import { fail, type GraphResult } from "./graph-common";
import { digitsOnly, parseHttpUrl } from "./util";

type Obj = Record<string, unknown>;

const isObject = (value: unknown): value is Obj => !!value && typeof value === "object" && !Array.isArray(value);

const details = (text: string) => ({ errorData: { messaging_product: "whatsapp", details: text } });

/** 131008: a required parameter is missing. */
export const missing = (name: string) =>
  fail(400, 131008, "(#131008) Required parameter is missing", details(`The parameter ${name} is required.`));

/** 131009: a parameter's value is not valid. */
export const notValid = (text: string) => fail(400, 131009, "(#131009) Parameter value is not valid", details(text));

/** 100: the envelope itself is wrong. */
export const invalidParam = (message: string, text?: string) => fail(400, 100, `(#100) ${message}`, text ? details(text) : {});

export const MESSAGE_TYPES = [
  "audio",
  "contacts",
  "document",
  "image",
  "interactive",
  "location",
  "reaction",
  "sticker",
  "template",
  "text",
  "video",
] as const;

export const MEDIA_TYPES = ["image", "video", "audio", "document", "sticker"] as const;
export type MediaKind = (typeof MEDIA_TYPES)[number];

/** Caption: image, video and document; filename: document only. */
const CAPTIONED: readonly string[] = ["image", "video", "document"];

const LIMITS = {
  text: 4096,
  caption: 1024,
  callbackData: 512,
  buttonId: 256,
  buttonTitle: 20,
  buttons: 3,
  buttonBody: 1024,
  listBody: 4096,
  footer: 60,
  header: 60,
  listButton: 20,
  sections: 10,
  rows: 10,
  rowId: 200,
  rowTitle: 24,
  rowDescription: 72,
  sectionTitle: 24,
  /** product_list: products across all sections. */
  productItems: 30,
  productBody: 1024,
};

/** A send that passed the envelope and type checks. */
export interface CheckedSend {
  /** `to` as sent. */
  to: string;
  /** Digits of `to`: the wa_id the answer names. */
  waId: string;
  type: (typeof MESSAGE_TYPES)[number];
  callbackData?: string;
  /** Media sent by id: checked against the sandbox's media store by the caller. */
  media?: { kind: MediaKind; id: string; where: string };
  template?: { name: string; language: string; components: Obj[] };
}

/** Checks a media id of the message against the media store; undefined when it may be sent. */
export type MediaCheck = (media: { kind: MediaKind; id: string; where: string }) => GraphResult | undefined;

/** `to`: digits with an optional "+", spaces, hyphens and parentheses; 7 to 15 digits. */
function checkTo(value: unknown): { to: string; waId: string } | GraphResult {
  if (value === undefined || value === null || value === "") return missing("to");
  if (typeof value !== "string" && typeof value !== "number") return invalidParam("Param to must be a string");
  const to = String(value);
  const waId = digitsOnly(to);
  if (!/^\+?[\d\s()-]+$/.test(to.trim()) || !/^\d{7,15}$/.test(waId))
    return invalidParam("Invalid parameter", `Param to must be a phone number with its country code; got "${to.slice(0, 40)}".`);
  return { to, waId };
}

/** The envelope every send shares, then the type's own object. */
export function checkSend(body: Obj): CheckedSend | GraphResult {
  if (body.messaging_product === undefined) return invalidParam("The parameter messaging_product is required.");
  if (body.messaging_product !== "whatsapp") return invalidParam("Param messaging_product must be 'whatsapp'");
  if (body.recipient_type !== undefined && body.recipient_type !== "individual")
    return invalidParam(`Param recipient_type must be one of {individual} - got "${String(body.recipient_type).slice(0, 40)}".`);
  const target = checkTo(body.to);
  if ("status" in target) return target;
  const type = body.type ?? "text";
  if (typeof type !== "string" || !(MESSAGE_TYPES as readonly string[]).includes(type))
    return invalidParam(`Param type must be one of {${MESSAGE_TYPES.join(", ")}} - got "${String(type).slice(0, 40)}".`);
  const callbackData = body.biz_opaque_callback_data;
  if (callbackData !== undefined && (typeof callbackData !== "string" || callbackData.length > LIMITS.callbackData))
    return invalidParam(`Param biz_opaque_callback_data must be a string of at most ${LIMITS.callbackData} characters.`);
  if (body.context !== undefined) {
    const context = body.context;
    if (!isObject(context) || typeof context.message_id !== "string" || !context.message_id.trim()) return missing("context['message_id']");
  }
  const object = body[type];
  // contacts is a list of contact cards; every other type takes an object.
  if (type === "contacts") {
    if (!Array.isArray(object) || object.length === 0 || !object.every(isObject)) return missing("contacts");
    return { ...target, type, ...(typeof callbackData === "string" ? { callbackData } : {}) };
  }
  if (!isObject(object)) return missing(type);
  const checked: CheckedSend = {
    ...target,
    type: type as CheckedSend["type"],
    ...(typeof callbackData === "string" ? { callbackData } : {}),
  };
  const problem = checkObject(checked, object);
  return problem ?? checked;
}

function checkObject(send: CheckedSend, object: Obj): GraphResult | undefined {
  switch (send.type) {
    case "text":
      return checkText(object);
    case "template": {
      const template = checkTemplateShape(object);
      if ("status" in template) return template;
      send.template = template;
      return undefined;
    }
    case "interactive":
      return checkInteractive(object, send);
    case "reaction":
      if (typeof object.message_id !== "string" || !object.message_id.trim()) return missing("reaction['message_id']");
      // An empty emoji removes the reaction.
      if (typeof object.emoji !== "string") return missing("reaction['emoji']");
      if ([...object.emoji].length > 10) return notValid("reaction['emoji'] must be one emoji.");
      return undefined;
    case "location":
      if (typeof object.latitude !== "number" && typeof object.latitude !== "string") return missing("location['latitude']");
      if (typeof object.longitude !== "number" && typeof object.longitude !== "string") return missing("location['longitude']");
      if (!Number.isFinite(Number(object.latitude)) || Math.abs(Number(object.latitude)) > 90)
        return notValid("location['latitude'] must be a number from -90 to 90.");
      if (!Number.isFinite(Number(object.longitude)) || Math.abs(Number(object.longitude)) > 180)
        return notValid("location['longitude'] must be a number from -180 to 180.");
      return undefined;
    default:
      return checkMedia(send, send.type as MediaKind, object, send.type);
  }
}

function checkText(object: Obj): GraphResult | undefined {
  const body = object.body;
  if (body === undefined || body === null || body === "") return missing("text['body']");
  if (typeof body !== "string") return notValid("text['body'] must be a string.");
  if (body.length > LIMITS.text) return invalidParam(`Param text['body'] must be at most ${LIMITS.text} characters long.`);
  if (object.preview_url !== undefined && typeof object.preview_url !== "boolean")
    return notValid("text['preview_url'] must be true or false.");
  return undefined;
}

/** A media object: exactly one of `id` and `link`; caption where the type takes one; filename for documents. */
function checkMedia(send: CheckedSend, kind: MediaKind, object: Obj, where: string): GraphResult | undefined {
  const hasId = object.id !== undefined;
  const hasLink = object.link !== undefined;
  if (!hasId && !hasLink) return missing(`${where}['id'] or ${where}['link']`);
  if (hasId && hasLink) return notValid(`${where} takes either id or link, not both.`);
  if (hasId) {
    if (typeof object.id !== "string" || !/^\d{1,20}$/.test(object.id)) return notValid(`${where}['id'] must be a media id.`);
    send.media = { kind, id: object.id, where };
  } else if (!parseHttpUrl(object.link)) return notValid(`${where}['link'] must be an http or https URL.`);
  if (object.caption !== undefined) {
    if (!CAPTIONED.includes(kind)) return notValid(`${where} does not take a caption: only image, video and document messages do.`);
    if (typeof object.caption !== "string" || object.caption.length > LIMITS.caption)
      return notValid(`${where}['caption'] must be text of at most ${LIMITS.caption} characters.`);
  }
  if (object.filename !== undefined && (kind !== "document" || typeof object.filename !== "string" || object.filename.length > 240))
    return notValid(`filename is for documents only, at most 240 characters (${where}).`);
  return undefined;
}

/** Template: name and language.code; the content checks run against the template store later. */
function checkTemplateShape(object: Obj): NonNullable<CheckedSend["template"]> | GraphResult {
  if (typeof object.name !== "string" || !object.name) return missing("template['name']");
  const language = object.language;
  if (!isObject(language) || typeof language.code !== "string" || !language.code) return missing("template['language']['code']");
  const components = object.components ?? [];
  if (!Array.isArray(components) || !components.every(isObject))
    return invalidParam("Param template['components'] must be an array of objects");
  return { name: object.name, language: language.code, components };
}

const textOf = (value: unknown) => (isObject(value) && typeof value.text === "string" ? value.text : undefined);

function checkLength(value: string | undefined, limit: number, where: string): GraphResult | undefined {
  if (value !== undefined && value.length > limit) return notValid(`${where} is ${value.length} characters long; the limit is ${limit}.`);
  return undefined;
}

function checkInteractive(object: Obj, send: CheckedSend): GraphResult | undefined {
  const kind = object.type;
  if (typeof kind !== "string" || !kind) return missing("interactive['type']");
  if (kind === "product" || kind === "product_list" || kind === "catalog_message") return checkProductShape(object, kind);
  // Other documented types (cta_url, flow, …) pass with their body checked only.
  if (kind !== "button" && kind !== "list") {
    if (object.body !== undefined && !textOf(object.body)) return missing("interactive['body']['text']");
    return undefined;
  }
  const body = textOf(object.body);
  if (!body) return missing("interactive['body']['text']");
  const footer = object.footer === undefined ? undefined : textOf(object.footer);
  if (object.footer !== undefined && footer === undefined) return missing("interactive['footer']['text']");
  const tooLong =
    checkLength(body, kind === "button" ? LIMITS.buttonBody : LIMITS.listBody, "interactive['body']['text']") ??
    checkLength(footer, LIMITS.footer, "interactive['footer']['text']");
  if (tooLong) return tooLong;
  const action = object.action;
  if (!isObject(action)) return missing("interactive['action']");
  const header = checkInteractiveHeader(object.header, kind, send);
  if (header) return header;
  return kind === "button" ? checkButtons(action) : checkList(action);
}

function checkInteractiveHeader(header: unknown, kind: string, send: CheckedSend): GraphResult | undefined {
  if (header === undefined) return undefined;
  if (!isObject(header) || typeof header.type !== "string") return missing("interactive['header']['type']");
  if (header.type === "text") {
    if (typeof header.text !== "string" || !header.text) return missing("interactive['header']['text']");
    return checkLength(header.text, LIMITS.header, "interactive['header']['text']");
  }
  if (kind === "list") return notValid("A list message's header can only be text.");
  if (header.type !== "image" && header.type !== "video" && header.type !== "document")
    return notValid(`interactive['header']['type'] must be text, image, video or document; got "${header.type.slice(0, 40)}".`);
  const media = header[header.type];
  if (!isObject(media)) return missing(`interactive['header']['${header.type}']`);
  return checkMedia(send, header.type, media, `interactive['header']['${header.type}']`);
}

function checkButtons(action: Obj): GraphResult | undefined {
  const buttons = action.buttons;
  if (!Array.isArray(buttons) || buttons.length < 1 || buttons.length > LIMITS.buttons)
    return notValid(`Invalid buttons count. Min allowed buttons: 1, Max allowed buttons: ${LIMITS.buttons}`);
  const titles = new Set<string>();
  const ids = new Set<string>();
  for (const button of buttons) {
    const reply = isObject(button) && button.type === "reply" && isObject(button.reply) ? button.reply : undefined;
    if (!reply) return missing("interactive['action']['buttons'][]['reply']");
    const { id, title } = reply;
    if (typeof id !== "string" || !id) return missing("interactive['action']['buttons'][]['reply']['id']");
    if (typeof title !== "string" || !title) return missing("interactive['action']['buttons'][]['reply']['title']");
    if (id.length > LIMITS.buttonId) return notValid(`Button id length invalid. Max length: ${LIMITS.buttonId}`);
    if (title.length > LIMITS.buttonTitle) return notValid(`Button title length invalid. Min length: 1, Max length: ${LIMITS.buttonTitle}`);
    if (titles.has(title)) return notValid(`Duplicate button title: "${title}". Button titles must be unique.`);
    if (ids.has(id)) return notValid(`Duplicate button id: "${id}". Button ids must be unique.`);
    titles.add(title);
    ids.add(id);
  }
  return undefined;
}

function checkList(action: Obj): GraphResult | undefined {
  const button = action.button;
  if (typeof button !== "string" || !button) return missing("interactive['action']['button']");
  if (button.length > LIMITS.listButton)
    return notValid(`Button title length invalid. Min length: 1, Max length: ${LIMITS.listButton} (interactive['action']['button']).`);
  const sections = action.sections;
  if (!Array.isArray(sections) || sections.length < 1 || sections.length > LIMITS.sections)
    return notValid(`Invalid sections count. Min allowed sections: 1, Max allowed sections: ${LIMITS.sections}`);
  let rowCount = 0;
  const ids = new Set<string>();
  for (const section of sections) {
    if (!isObject(section) || !Array.isArray(section.rows) || section.rows.length === 0)
      return missing("interactive['action']['sections'][]['rows']");
    if (sections.length > 1 && (typeof section.title !== "string" || !section.title))
      return missing("interactive['action']['sections'][]['title']");
    const sectionTitle = checkLength(section.title as string | undefined, LIMITS.sectionTitle, "Section title");
    if (sectionTitle) return sectionTitle;
    for (const row of section.rows) {
      rowCount++;
      if (!isObject(row) || typeof row.id !== "string" || !row.id) return missing("interactive['action']['sections'][]['rows'][]['id']");
      if (typeof row.title !== "string" || !row.title) return missing("interactive['action']['sections'][]['rows'][]['title']");
      if (row.description !== undefined && typeof row.description !== "string") return notValid("A row's description must be text.");
      const problem =
        checkLength(row.id, LIMITS.rowId, "Row id") ??
        checkLength(row.title, LIMITS.rowTitle, "Row title") ??
        checkLength(row.description as string | undefined, LIMITS.rowDescription, "Row description");
      if (problem) return problem;
      if (ids.has(row.id)) return notValid(`Duplicate row id: "${row.id}". Row ids must be unique.`);
      ids.add(row.id);
    }
  }
  if (rowCount > LIMITS.rows) return notValid(`Total row count exceed max allowed count: ${LIMITS.rows}`);
  return undefined;
}

/** Product messages (reference commerce §1.5): their shape; whether the catalog holds the products is the message desk's. */
function checkProductShape(object: Obj, kind: "product" | "product_list" | "catalog_message"): GraphResult | undefined {
  const body = textOf(object.body);
  if (object.body !== undefined && !body) return missing("interactive['body']['text']");
  if (kind !== "product" && !body) return missing("interactive['body']['text']");
  const footer = object.footer === undefined ? undefined : textOf(object.footer);
  if (object.footer !== undefined && footer === undefined) return missing("interactive['footer']['text']");
  const tooLong =
    checkLength(body, LIMITS.productBody, "interactive['body']['text']") ??
    checkLength(footer, LIMITS.footer, "interactive['footer']['text']");
  if (tooLong) return tooLong;
  if (kind === "product_list") {
    if (!isObject(object.header) || object.header.type !== "text" || typeof object.header.text !== "string" || !object.header.text)
      return missing("interactive['header']['text']");
    const header = checkLength(object.header.text, LIMITS.header, "interactive['header']['text']");
    if (header) return header;
  } else if (object.header !== undefined) return notValid(`A ${kind} message cannot have a header.`);
  const action = object.action;
  if (!isObject(action)) return missing("interactive['action']");
  if (kind === "catalog_message") {
    if (action.name !== "catalog_message") return notValid("interactive['action']['name'] must be \"catalog_message\".");
    return undefined;
  }
  if (typeof action.catalog_id !== "string" || !action.catalog_id) return missing("interactive['action']['catalog_id']");
  if (kind === "product") {
    if (typeof action.product_retailer_id !== "string" || !action.product_retailer_id)
      return missing("interactive['action']['product_retailer_id']");
    return undefined;
  }
  return checkProductSections(action);
}

/** A product_list's (or an MPM template button's) sections: 1 to 10, 30 products in all, titled when several. */
export function checkProductSections(action: Obj, where = "interactive['action']"): GraphResult | undefined {
  const sections = action.sections;
  if (!Array.isArray(sections) || sections.length < 1 || sections.length > LIMITS.sections)
    return notValid(`Invalid sections count. Min allowed sections: 1, Max allowed sections: ${LIMITS.sections}`);
  let items = 0;
  for (const section of sections) {
    if (!isObject(section) || !Array.isArray(section.product_items) || section.product_items.length === 0)
      return missing(`${where}['sections'][]['product_items']`);
    if (sections.length > 1 && (typeof section.title !== "string" || !section.title)) return missing(`${where}['sections'][]['title']`);
    const title = checkLength(section.title as string | undefined, LIMITS.sectionTitle, "Section title");
    if (title) return title;
    for (const item of section.product_items) {
      items++;
      if (!isObject(item) || typeof item.product_retailer_id !== "string" || !item.product_retailer_id)
        return missing(`${where}['sections'][]['product_items'][]['product_retailer_id']`);
    }
  }
  if (items > LIMITS.productItems) return notValid(`Total product count exceed max allowed count: ${LIMITS.productItems}`);
  return undefined;
}
