import { z } from "zod";

/**
 * Reading Meta's webhook deliveries: an envelope is `entry[] × changes[]`; each change names its
 * `field` and carries a `value` object. Parsing is forgiving by the element: an entry or change that
 * does not have that shape is skipped and the rest of the delivery still counts.
 */

export interface WebhookChange {
  eventId: number;
  entryId: string;
  /** Unix seconds, when Meta put it on the entry. */
  entryTime?: number;
  field: string;
  value: Record<string, unknown>;
  /** Set when the change comes back from webhook_unrouted_changes. */
  unroutedId?: number;
}

const envelopeSchema = z.object({ object: z.literal("whatsapp_business_account"), entry: z.array(z.unknown()) });
const entrySchema = z.object({ id: z.unknown().optional(), time: z.unknown().optional(), changes: z.array(z.unknown()) });
const changeSchema = z.object({ field: z.string(), value: z.record(z.string(), z.unknown()) });

/**
 * JSON can carry U+0000 or half a surrogate pair only as a `\u` escape (a raw NUL is not valid JSON
 * and UTF-8 cannot encode a lone surrogate), so a body without such an escape is stored as parsed
 * and skips the walk over every value (5% of the server's time under a stream of status webhooks).
 */
const MAY_NEED_CLEANING = /\\u(?:0000|[dD][89a-fA-F])/;

/** `entry[] × changes[]` of one delivery, or null when it is not a WhatsApp Business envelope. */
export function parseEnvelope(eventId: number, body: string): WebhookChange[] | null {
  let json: unknown;
  try {
    json = MAY_NEED_CLEANING.test(body) ? cleanJson(JSON.parse(body)) : JSON.parse(body);
  } catch {
    return null;
  }
  const envelope = envelopeSchema.safeParse(json);
  if (!envelope.success) return null;
  const changes: WebhookChange[] = [];
  for (const rawEntry of envelope.data.entry) {
    const entry = entrySchema.safeParse(rawEntry);
    if (!entry.success) continue;
    const entryTime = Number(entry.data.time);
    for (const rawChange of entry.data.changes) {
      const change = changeSchema.safeParse(rawChange);
      if (!change.success) continue;
      changes.push({
        eventId,
        entryId: String(entry.data.id ?? ""),
        entryTime: Number.isFinite(entryTime) && entryTime > 0 ? entryTime : undefined,
        field: change.data.field,
        value: change.data.value,
      });
    }
  }
  return changes;
}

/** The words of an inbound message, for lists and search: its text, caption or reply, else its type. */
export function messageText(message: Record<string, unknown>): string {
  const type = String(message.type ?? "");
  const part = isObject(message[type]) ? (message[type] as Record<string, unknown>) : {};
  if (type === "text" && typeof part.body === "string") return part.body;
  if (typeof part.caption === "string") return part.caption;
  if (type === "button" && typeof part.text === "string") return part.text;
  if (type === "interactive") {
    const reply = isObject(part.button_reply) ? part.button_reply : isObject(part.list_reply) ? part.list_reply : undefined;
    if (reply && typeof reply.title === "string") return reply.title;
  }
  if (type === "reaction" && typeof part.emoji === "string") return part.emoji;
  if (type === "location") return [part.name, part.address].filter((v) => typeof v === "string").join(", ") || "Location";
  if (type === "contacts" && Array.isArray(message.contacts)) {
    const names = message.contacts
      .map((c) => (isObject(c) && isObject(c.name) ? c.name.formatted_name : undefined))
      .filter((n): n is string => typeof n === "string" && n.length > 0);
    if (names.length) return `Contact: ${names.join(", ")}`;
  }
  if (type === "document" && typeof part.filename === "string") return part.filename;
  return `[${type || "unknown"}]`;
}

// A code unit of a surrogate pair without its other half.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * Makes parsed JSON storable: PostgreSQL text and jsonb hold neither U+0000 nor half a surrogate
 * pair, both of which valid JSON may carry as escapes. NUL is dropped and a lone surrogate becomes
 * U+FFFD, in keys as in values.
 */
export function cleanJson(value: unknown): unknown {
  if (typeof value === "string") return value.replaceAll("\u0000", "").replace(LONE_SURROGATE, "\ufffd");
  if (Array.isArray(value)) return value.map(cleanJson);
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [cleanJson(k) as string, cleanJson(v)]));
  return value;
}

export function unixToIso(value: unknown) {
  const seconds = Number(value);
  return new Date(Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : Date.now()).toISOString();
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
