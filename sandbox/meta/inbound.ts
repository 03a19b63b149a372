import { deflateSync } from "node:zlib";
import { pngChunk } from "./png";
import { webhookSha256, type MediaDesk } from "./media";
import type { PhoneNumber } from "./state";
import { INBOUND_TYPES, type InboundInput } from "./types";
import { digitsOnly, newWamid, pooledRandomBytes, unixSeconds } from "./util";

/**
 * Simulated customer messages as Meta's `messages` webhook carries them (reference §4.4 and the
 * OpenAPI examples). Throws readable Errors on bad input.
 */

type Obj = Record<string, unknown>;

export interface BuiltInbound {
  wamid: string;
  /** Absent for system messages, which carry no contacts. */
  contacts?: Obj[];
  message: Obj;
  /** Who the customer is for the 24-hour window: the wa_id, else the BSUID. */
  customer: string;
  /** System messages are not the customer writing: they open no window. */
  opensWindow: boolean;
  /** When the customer sent it (ms): `now`, or `ageSeconds` before it. */
  sentAt: number;
  mediaId?: string;
  /** Written from an ad: an answer within 24 hours opens the free entry window. */
  fromAd?: boolean;
}

const MEDIA_TYPES = ["image", "video", "audio", "document", "sticker"];

function text(value: unknown, name: string, max: number, required = false): string | undefined {
  if (value === undefined || value === null || value === "") {
    if (required) throw new Error(`${name} is required for this message type.`);
    return undefined;
  }
  if (typeof value !== "string") throw new Error(`${name} must be text.`);
  if (value.length > max) throw new Error(`${name} must be at most ${max} characters.`);
  return value;
}

const BSUID = /^[A-Z]{2}\.[A-Za-z0-9]{6,64}$/;

/**
 * The customer's identity. With a phone number: `from` and `wa_id` (and the BSUID when given).
 * Username-only (2026): no number at all, only `user_id` / `from_user_id`. Guess (the reference
 * specifies no more): the username rides in contacts[].profile.username beside the name.
 */
function identity(input: InboundInput) {
  const rawFrom = input.from === undefined || input.from === null ? "" : String(input.from);
  const from = digitsOnly(rawFrom);
  if (rawFrom.trim() && (!/^\d{7,15}$/.test(from) || !/^\+?[\d\s().-]+$/.test(rawFrom.trim())))
    throw new Error("from must be the customer's phone number in digits, e.g. 254712345678.");
  const userId = text(input.userId, "userId", 80);
  if (userId !== undefined && !BSUID.test(userId)) throw new Error('userId must be a business-scoped user id such as "KE.1234567890".');
  if (!from && !userId) throw new Error("from (the customer's number) or userId (a username-only customer) is required.");
  const username = text(input.username, "username", 64);
  const name = typeof input.name === "string" && input.name.trim() ? input.name.trim().slice(0, 256) : "WhatsApp User";
  const contact: Obj = {
    profile: { name, ...(username ? { username } : {}) },
    ...(from ? { wa_id: from } : {}),
    ...(userId ? { user_id: userId } : {}),
  };
  const sender: Obj = { ...(from ? { from } : {}), ...(userId ? { from_user_id: userId } : {}) };
  return { from, userId, contact, sender, customer: from || userId! };
}

/** The longest `ageSeconds`: 30 days. */
export const MAX_AGE_SECONDS = 30 * 24 * 3600;

/** When the customer sent the message: `ageSeconds` (whole seconds, 0 to 30 days) before `now`. */
function sentAtOf(input: InboundInput, now: number) {
  const age = input.ageSeconds;
  if (age === undefined || age === null) return now;
  if (typeof age !== "number" || !Number.isInteger(age) || age < 0 || age > MAX_AGE_SECONDS)
    throw new Error(`ageSeconds must be a whole number of seconds from 0 to ${MAX_AGE_SECONDS} (30 days).`);
  return now - age * 1000;
}

/** The inbound message for the input; media types store a generated sample in the media desk. */
export function buildInbound(input: InboundInput, phone: PhoneNumber, media: MediaDesk, now: number): BuiltInbound {
  const type = input.type ?? "text";
  if (!(INBOUND_TYPES as readonly string[]).includes(type)) throw new Error(`type must be one of ${INBOUND_TYPES.join(", ")}.`);
  const sentAt = sentAtOf(input, now);
  const who = identity(input);
  const wamid = newWamid();
  const base: Obj = { ...who.sender, id: wamid, timestamp: String(unixSeconds(sentAt)) };
  const context = contextOf(input, phone);
  let mediaId: string | undefined;
  let message: Obj;
  switch (type) {
    case "text":
      message = { ...base, type, text: { body: text(input.text, "text", 4096, true) } };
      break;
    case "location":
      message = { ...base, type, location: location(input) };
      break;
    case "contacts": {
      const contactName = text(input.contactName, "contactName", 256) ?? "Wanjiru Kamau";
      const phoneNumber = digitsOnly(text(input.contactPhone, "contactPhone", 32) ?? "254722000111");
      message = {
        ...base,
        type,
        contacts: [
          {
            name: { formatted_name: contactName, first_name: contactName.split(" ")[0] },
            phones: [{ phone: `+${phoneNumber}`, wa_id: phoneNumber, type: "CELL" }],
          },
        ],
      };
      break;
    }
    case "button":
      if (!context) throw new Error("contextId (the template message's wamid) is required for a button reply.");
      message = {
        ...base,
        context,
        type,
        button: { payload: text(input.payload, "payload", 256, true), text: text(input.text ?? input.payload, "text", 256, true) },
      };
      break;
    case "button_reply":
    case "list_reply": {
      if (!context) throw new Error("contextId (the interactive message's wamid) is required for an interactive reply.");
      const reply: Obj = {
        id: text(input.replyId, "replyId", type === "button_reply" ? 256 : 200, true),
        title: text(input.title, "title", type === "button_reply" ? 20 : 24, true),
      };
      const description = type === "list_reply" ? text(input.description, "description", 72) : undefined;
      if (description) reply.description = description;
      message = { ...base, context, type: "interactive", interactive: { type, [type]: reply } };
      break;
    }
    case "reaction":
      if (typeof input.emoji !== "string") throw new Error('emoji is required for a reaction ("" removes one).');
      message = {
        ...base,
        type,
        reaction: { message_id: text(input.messageId, "messageId", 256, true), emoji: input.emoji },
      };
      break;
    case "order":
      message = { ...base, ...(context ? { context } : {}), type, order: orderOf(input) };
      break;
    case "unsupported":
      message = {
        ...base,
        type,
        errors: [
          {
            code: 131051,
            title: "Message type unknown",
            message: "Message type unknown",
            error_data: { details: "Message type is currently not supported." },
          },
        ],
      };
      break;
    case "user_changed_number": {
      const newWaId = digitsOnly(text(input.newWaId, "newWaId", 32, true)!);
      if (!/^\d{7,15}$/.test(newWaId)) throw new Error("newWaId must be the customer's new number in digits.");
      if (!who.from) throw new Error("from (the customer's old number) is required for user_changed_number.");
      // No contacts[]; the new number is system.wa_id (older payloads: system.new_wa_id).
      return {
        wamid,
        message: {
          from: who.from,
          id: wamid,
          timestamp: base.timestamp,
          type: "system",
          system: { body: `User ${who.from} changed from ${who.from} to ${newWaId}`, wa_id: newWaId, type: "user_changed_number" },
        },
        customer: who.customer,
        opensWindow: false,
        sentAt,
      };
    }
    default: {
      const sample = sampleFile(type as "image", input);
      const stored = media.addInbound(phone, sample);
      mediaId = stored.id;
      const object: Obj = { mime_type: stored.mimeType, sha256: webhookSha256(stored), id: stored.id };
      const caption = text(input.caption, "caption", 1024);
      if (caption && ["image", "video", "document"].includes(type)) object.caption = caption;
      if (type === "document") object.filename = sample.fileName;
      if (type === "audio") object.voice = !!input.voice;
      if (type === "sticker") object.animated = !!input.animated;
      message = { ...base, ...(context ? { context } : {}), type, [type]: object };
    }
  }
  const referral = referralOf(input);
  if (referral) message.referral = referral;
  return {
    wamid,
    contacts: [who.contact],
    message,
    customer: who.customer,
    opensWindow: true,
    sentAt,
    ...(mediaId ? { mediaId } : {}),
    ...(referral ? { fromAd: true } : {}),
  };
}

/** A made-up ad's `referral` as Meta puts it on the customer's first message (reference commerce §2.1). */
function referralOf(input: InboundInput): Obj | undefined {
  const ad = input.ad;
  if (ad === undefined || ad === null) return undefined;
  if (typeof ad !== "object") throw new Error("ad must be an object (sourceId, headline, body).");
  const sourceId = text(ad.sourceId, "ad.sourceId", 32, true)!;
  if (!/^\d{6,20}$/.test(sourceId)) throw new Error("ad.sourceId must be the ad's numeric id (6 to 20 digits).");
  const sourceType = ad.sourceType ?? "ad";
  if (sourceType !== "ad" && sourceType !== "post") throw new Error('ad.sourceType must be "ad" or "post".');
  const imageUrl = text(ad.imageUrl, "ad.imageUrl", 2048);
  const welcome = text(ad.welcomeMessage, "ad.welcomeMessage", 1024);
  return {
    source_url: text(ad.sourceUrl, "ad.sourceUrl", 2048) ?? `https://fb.me/${sourceId.slice(-8)}`,
    source_id: sourceId,
    source_type: sourceType,
    body: text(ad.body, "ad.body", 1024, true),
    headline: text(ad.headline, "ad.headline", 256, true),
    media_type: "image",
    ...(imageUrl ? { image_url: imageUrl } : {}),
    ctwa_clid: text(ad.ctwaClid, "ad.ctwaClid", 512) ?? `ARA${pooledRandomBytes(24).toString("base64url")}`,
    ...(welcome ? { welcome_message: { text: welcome } } : {}),
  };
}

/**
 * A cart sent from a product message (reference commerce §1.6): the catalog, an optional note, and
 * its items with the price in major units as Meta sends it.
 */
function orderOf(input: InboundInput): Obj {
  const order = input.order;
  if (!order || typeof order !== "object") throw new Error("order (catalogId and items) is required for an order.");
  const catalogId = text(order.catalogId, "order.catalogId", 64, true);
  if (!Array.isArray(order.items) || order.items.length === 0 || order.items.length > 100)
    throw new Error("order.items must hold 1 to 100 items.");
  const items = order.items.map((item) => {
    if (!item || typeof item !== "object") throw new Error("order.items must be objects.");
    const quantity = item.quantity;
    if (!Number.isInteger(quantity) || quantity < 1 || quantity > 999)
      throw new Error("An item's quantity must be a whole number from 1 to 999.");
    if (typeof item.itemPrice !== "number" || !Number.isFinite(item.itemPrice) || item.itemPrice < 0)
      throw new Error("An item's itemPrice must be a number (major units).");
    return {
      product_retailer_id: text(item.retailerId, "retailerId", 100, true),
      quantity,
      item_price: item.itemPrice,
      currency: text(item.currency, "currency", 3, true),
    };
  });
  return { catalog_id: catalogId, text: text(order.text, "order.text", 1024) ?? "", product_items: items };
}

/** `context` of a reply: the business's message replied to. */
function contextOf(input: InboundInput, phone: PhoneNumber): Obj | undefined {
  const id = text(input.contextId, "contextId", 256);
  return id ? { from: digitsOnly(phone.displayPhoneNumber), id } : undefined;
}

function location(input: InboundInput): Obj {
  const latitude = input.latitude ?? -1.2921;
  const longitude = input.longitude ?? 36.8219;
  if (typeof latitude !== "number" || !Number.isFinite(latitude) || Math.abs(latitude) > 90)
    throw new Error("latitude must be a number from -90 to 90.");
  if (typeof longitude !== "number" || !Number.isFinite(longitude) || Math.abs(longitude) > 180)
    throw new Error("longitude must be a number from -180 to 180.");
  const name = text(input.locationName, "locationName", 256);
  const address = text(input.address, "address", 512);
  return { latitude, longitude, ...(name ? { name } : {}), ...(address ? { address } : {}) };
}

// ---- generated samples ----------------------------------------------------------------------------

export const isMediaType = (type: string) => MEDIA_TYPES.includes(type);

/** A small file of the type, valid enough that its magic bytes and MIME type agree. */
function sampleFile(type: "image" | "video" | "audio" | "document" | "sticker", input: InboundInput) {
  switch (type) {
    case "image":
      return { mimeType: "image/png", bytes: png() };
    case "video":
      // An ISO base media file's first box: ftyp, brand mp42.
      return { mimeType: "video/mp4", bytes: Buffer.from("000000186674797069736f6d0000020069736f6d6d703432", "hex") };
    case "audio":
      return input.voice
        ? { mimeType: "audio/ogg; codecs=opus", bytes: Buffer.concat([Buffer.from("OggS"), Buffer.alloc(60, 0)]) }
        : { mimeType: "audio/mpeg", bytes: Buffer.concat([Buffer.from("ID3"), Buffer.from([4, 0, 0, 0, 0, 0, 0]), Buffer.alloc(54, 0)]) };
    case "document": {
      const fileName = text(input.filename, "filename", 240) ?? "risiti.pdf";
      const pdf =
        "%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n";
      return { mimeType: "application/pdf", bytes: Buffer.from(pdf), fileName };
    }
    case "sticker":
      return { mimeType: "image/webp", bytes: webp(!!input.animated), animated: !!input.animated };
  }
}

/** A 2×2 PNG in Jumbe green (also a made-up ad's picture, served at /ad-media/<ad id>.png). */
export function png() {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(2, 0);
  header.writeUInt32BE(2, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const row = Buffer.from([0, 0x25, 0xd3, 0x66, 0x25, 0xd3, 0x66]);
  return Buffer.concat([
    Buffer.from("89504e470d0a1a0a", "hex"),
    pngChunk("IHDR", header),
    pngChunk("IDAT", deflateSync(Buffer.concat([row, row]))),
    pngChunk("IEND", Buffer.alloc(0)),
  ]);
}

/** A WebP container with a VP8X chunk; its animation flag set for an animated sticker. */
function webp(animated: boolean) {
  const vp8x = Buffer.alloc(18);
  vp8x.write("VP8X", 0, "latin1");
  vp8x.writeUInt32LE(10, 4);
  vp8x[8] = animated ? 0x02 : 0;
  const size = Buffer.alloc(4);
  size.writeUInt32LE(4 + vp8x.length);
  return Buffer.concat([Buffer.from("RIFF"), size, Buffer.from("WEBP"), vp8x]);
}
