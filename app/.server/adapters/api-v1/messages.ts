import type { z } from "zod";
import { rawQuery } from "../../infrastructure/db/client";
import type { OutboundContent } from "../../domains/messaging/content";
import { MEDIA_KINDS } from "../../domains/messaging/content";
import { hashRequest, queueMessage } from "../../domains/messaging/queue";
import { normaliseRecipient } from "../../domains/messaging/recipient";
import { messageView } from "../../domains/messaging/views";
import { ApiProblem, refusalProblem } from "./problem";
import { decodeMessageCursor, encodeMessageCursor, type MessagesQuery, type SendMessage } from "./message-schemas";

/** The API's body as the pipeline's content: exactly one kind (the schema made sure). */
function contentOf(body: z.output<typeof SendMessage>): OutboundContent {
  if (body.text !== undefined) return { kind: "text", text: body.text, previewUrl: body.previewUrl };
  if (body.template !== undefined)
    return {
      kind: "template",
      template: {
        name: body.template,
        language: body.language,
        parameters: body.parameters ?? [],
        header: body.header,
        buttons: body.buttons,
      },
    };
  if (body.interactive) return { kind: "interactive", interactive: body.interactive };
  if (body.reaction) return { kind: "reaction", messageId: body.reaction.messageId, emoji: body.reaction.emoji };
  for (const kind of MEDIA_KINDS) {
    const media = body[kind];
    if (media) return { kind, media };
  }
  throw new ApiProblem(
    400,
    "invalid_request",
    "Give the message: text, template, image, video, audio, document, sticker, interactive or reaction.",
  );
}

const asProblem = (error: unknown) => refusalProblem(error, "send");

/** POST /api/v1/messages: checked and queued; Meta is called by the dispatcher. */
export async function sendApiMessage(
  organizationId: string,
  body: z.output<typeof SendMessage>,
  idempotencyKey?: string,
  onReplay?: () => void,
) {
  try {
    return await queueMessage(
      organizationId,
      { to: body.to, from: body.from, content: contentOf(body), replyTo: body.replyTo, source: "api" },
      idempotencyKey ? { key: idempotencyKey, requestHash: hashRequest(body), onReplay } : undefined,
    );
  } catch (error) {
    throw asProblem(error);
  }
}

const BUSINESS_NUMBER = `m.created_at::text as cursor_at, (select '+' || p.phone_digits from whatsapp_phone_numbers p where p.phone_number_id = m.phone_number_id and p.organization_id = m.organization_id order by p.disconnected_at nulls first limit 1) as business_number`;

export async function getApiMessage(organizationId: string, id: string) {
  const [row] = await rawQuery(`select m.*, ${BUSINESS_NUMBER} from messages m where m.organization_id = $1 and m.id = $2`, [
    organizationId,
    id,
  ]);
  if (!row) throw new ApiProblem(404, "not_found", "No message with this id in your organisation: unknown, malformed or another's.");
  return messageView(row, (row.business_number as string | null) ?? null);
}

/** GET /api/v1/messages: newest first, a keyset page at a time. */
export async function listApiMessages(organizationId: string, query: z.output<typeof MessagesQuery>) {
  const params: unknown[] = [organizationId];
  const where = ["m.organization_id = $1"];
  if (query.status) {
    params.push(query.status);
    where.push(`m.status = $${params.length}`);
  }
  if (query.direction) {
    params.push(query.direction);
    where.push(`m.direction = $${params.length}`);
  }
  if (query.to) {
    let to: string;
    try {
      to = normaliseRecipient(query.to);
    } catch (error) {
      throw asProblem(error);
    }
    params.push(to);
    where.push(`m.recipient_phone = $${params.length}`);
  }
  const cursor = query.cursor ? decodeMessageCursor(query.cursor) : undefined;
  if (cursor) {
    params.push(cursor.at, cursor.id);
    where.push(`(m.created_at, m.id) < ($${params.length - 1}::timestamptz, $${params.length}::uuid)`);
  }
  params.push(query.limit + 1);
  const rows = await rawQuery(
    `select m.*, ${BUSINESS_NUMBER} from messages m where ${where.join(" and ")}
     order by m.created_at desc, m.id desc limit $${params.length}`,
    params,
  );
  const page = rows.slice(0, query.limit);
  const last = page[page.length - 1];
  return {
    data: page.map((row) => messageView(row, (row.business_number as string | null) ?? null)),
    nextCursor: rows.length > query.limit && last ? encodeMessageCursor(String(last.cursor_at), String(last.id)) : null,
  };
}
