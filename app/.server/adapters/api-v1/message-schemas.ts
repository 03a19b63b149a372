import { z } from "zod";
import { MEDIA_KINDS } from "../../domains/messaging/content";

/** The message endpoints' shapes (schemas.ts holds the others); the OpenAPI document is generated from them. */

export const MediaRef = z
  .object({
    link: z
      .url({ protocol: /^https?$/ })
      .max(2048)
      .optional()
      .describe("A public http(s) address Meta fetches the file from."),
    mediaId: z.uuid().optional().describe("The id of a file uploaded first with POST /api/v1/media."),
    caption: z.string().min(1).max(1024).optional().describe("Images, videos and documents."),
    filename: z.string().min(1).max(240).optional().describe("Documents: the name the customer sees."),
  })
  .strict()
  .refine((m) => !!m.link !== !!m.mediaId, "give link or mediaId, not both")
  .meta({ id: "MediaRef" });

const InteractiveButtons = z
  .object({
    type: z.literal("button"),
    body: z.string().min(1).max(1024),
    header: z.string().min(1).max(60).optional(),
    footer: z.string().min(1).max(60).optional(),
    buttons: z
      .array(z.object({ id: z.string().min(1).max(256), title: z.string().min(1).max(20) }).strict())
      .min(1)
      .max(3)
      .refine((b) => new Set(b.map((x) => x.title)).size === b.length, "button titles must differ")
      .refine((b) => new Set(b.map((x) => x.id)).size === b.length, "button ids must differ"),
  })
  .strict();

const InteractiveList = z
  .object({
    type: z.literal("list"),
    body: z.string().min(1).max(4096),
    header: z.string().min(1).max(60).optional(),
    footer: z.string().min(1).max(60).optional(),
    button: z.string().min(1).max(20).describe("The label of the button that opens the list."),
    sections: z
      .array(
        z
          .object({
            title: z.string().min(1).max(24).optional(),
            rows: z
              .array(
                z
                  .object({
                    id: z.string().min(1).max(200),
                    title: z.string().min(1).max(24),
                    description: z.string().min(1).max(72).optional(),
                  })
                  .strict(),
              )
              .min(1),
          })
          .strict(),
      )
      .min(1)
      .max(10)
      .refine((s) => s.reduce((n, x) => n + x.rows.length, 0) <= 10, "a list has at most 10 rows in all")
      .refine((s) => s.length === 1 || s.every((x) => x.title), "with several sections each needs a title"),
  })
  .strict();

const KINDS = ["text", "template", ...MEDIA_KINDS, "interactive", "reaction"] as const;

export const SendMessage = z
  .object({
    to: z
      .string()
      .min(1)
      .max(40)
      .describe("The customer's number: +254712345678, 254712345678 or 0712345678 (Kenya unless it has a country code)."),
    from: z
      .string()
      .min(1)
      .max(40)
      .optional()
      .describe("A connected number of yours (its phone number id or the number). Default: your first connected number."),
    text: z.string().min(1).max(4096).optional().describe("A text message (only inside the customer's 24-hour service window)."),
    previewUrl: z.boolean().optional().describe("Text: show a preview of the first link (default: when the text has one)."),
    template: z.string().min(1).max(512).optional().describe("An approved template's name: sends a template message, allowed at any time."),
    language: z.string().min(2).max(15).optional().describe("The template's language; needed only when it has several."),
    parameters: z
      .array(z.string().min(1).max(1024))
      .max(100)
      .optional()
      .describe("The template body's placeholders in order: {{1}}, {{2}}..."),
    header: z
      .object({
        text: z.string().min(1).max(60).optional().describe("A text header's placeholder."),
        link: z
          .url({ protocol: /^https?$/ })
          .max(2048)
          .optional(),
        mediaId: z.uuid().optional(),
        filename: z.string().min(1).max(240).optional(),
      })
      .strict()
      .optional()
      .describe("A template's header value: text for a TEXT header, link or mediaId for a media header."),
    buttons: z
      .array(z.object({ index: z.int().min(0).max(9), value: z.string().min(1).max(2000) }).strict())
      .max(10)
      .optional()
      .describe("A template's dynamic URL suffixes and copy codes, by the button's position (from 0)."),
    image: MediaRef.optional(),
    video: MediaRef.optional(),
    audio: MediaRef.optional(),
    document: MediaRef.optional(),
    sticker: MediaRef.optional(),
    interactive: z.discriminatedUnion("type", [InteractiveButtons, InteractiveList]).optional().describe("Reply buttons or a list."),
    reaction: z
      .object({ messageId: z.string().min(1).max(256), emoji: z.string().max(16).describe("Empty removes the reaction.") })
      .strict()
      .optional()
      .describe("A reaction to a message (its id here or its wamid)."),
    replyTo: z.string().min(1).max(256).optional().describe("Quote this message (its id here or its wamid)."),
  })
  .strict()
  .superRefine((body, ctx) => {
    const kinds = KINDS.filter((k) => body[k] !== undefined);
    if (kinds.length !== 1)
      ctx.addIssue({
        code: "custom",
        path: [],
        message: kinds.length
          ? `give one kind of message, not ${kinds.join(" and ")}`
          : "give the message: text, template, image, video, audio, document, sticker, interactive or reaction",
      });
    if (body.template === undefined)
      for (const field of ["language", "parameters", "header", "buttons"] as const)
        if (body[field] !== undefined) ctx.addIssue({ code: "custom", path: [field], message: "only with template" });
    if (body.previewUrl !== undefined && body.text === undefined)
      ctx.addIssue({ code: "custom", path: ["previewUrl"], message: "only with text" });
  });

/** The documented example: the example template of POST /api/v1/templates, every placeholder given. */
export const SEND_MESSAGE_EXAMPLE: z.input<typeof SendMessage> = {
  to: "+254712345678",
  template: "order_update",
  parameters: ["Wanjiku", "#1042"],
  header: { text: "#1042" },
  buttons: [{ index: 0, value: "1042" }],
};

const Status = z.enum(["queued", "sent", "delivered", "read", "failed", "received"]);

export const Message = z
  .object({
    id: z.uuid(),
    status: Status.describe("queued until Meta reports it sent; then sent, delivered, read, or failed. Inbound messages: received."),
    direction: z.enum(["outbound", "inbound"]),
    channel: z.enum(["whatsapp", "sms"]).describe("WhatsApp, or SMS (through your Africa's Talking account)."),
    type: z.string().describe("text, template, image, video, audio, document, sticker, interactive, reaction..."),
    to: z.string().nullable().describe("E.164."),
    from: z.string().nullable().describe("E.164."),
    phoneNumberId: z.string().nullable().describe("Your number's id at Meta."),
    text: z.string().describe("What it says, or what it is."),
    wamid: z.string().nullable().describe("WhatsApp's message id, once Meta accepted it."),
    error: z
      .object({ code: z.string(), message: z.string() })
      .nullable()
      .describe("Why it failed: meta_<code> with Meta's reason in words, or Jumbe's code."),
    pricing: z
      .object({ category: z.string().nullable(), type: z.string().nullable(), billable: z.boolean().nullable() })
      .nullable()
      .describe("What Meta's status webhooks said about pricing."),
    createdAt: z.iso.datetime(),
    acceptedAt: z.iso.datetime().nullable().describe("When Meta accepted it."),
    sentAt: z.iso.datetime().nullable(),
    deliveredAt: z.iso.datetime().nullable(),
    readAt: z.iso.datetime().nullable(),
    failedAt: z.iso.datetime().nullable(),
  })
  .meta({ id: "Message" });

export const MessageList = z
  .object({
    data: z.array(Message).describe("Newest first."),
    nextCursor: z.string().nullable().describe("Pass as `cursor` for the next page; null on the last page."),
  })
  .meta({ id: "MessageList" });

/** A cursor of the message list: base64url of "<created_at as PostgreSQL writes it>|<uuid>". */
export function decodeMessageCursor(value: string): { at: string; id: string } | undefined {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(value)) return undefined;
  const [at, id, ...rest] = Buffer.from(value, "base64url").toString().split("|");
  if (rest.length || !/^\d{4}-\d{2}-\d{2}[ T][\d:.]+(Z|[+-]\d{2}(:?\d{2})?)$/.test(at ?? "") || !/^[0-9a-f-]{36}$/.test(id ?? ""))
    return undefined;
  return { at: at!, id: id! };
}
export const encodeMessageCursor = (at: string, id: string) => Buffer.from(`${at}|${id}`).toString("base64url");

export const MessagesQuery = z
  .object({
    status: Status.optional().describe("Only messages in this status."),
    direction: z.enum(["outbound", "inbound"]).optional(),
    to: z.string().max(40).optional().describe("Only messages with this customer (any form of the number)."),
    cursor: z
      .string()
      .refine((v) => !!decodeMessageCursor(v), "not a cursor of this list: pass nextCursor from the previous page")
      .optional(),
    limit: z.coerce.number().int().min(1).max(100).default(25).describe("Messages per page, 1 to 100."),
  })
  .strict();

export const MessageIdParams = z.object({ id: z.uuid().describe("The message's id from sending it or from the list.") });
