import { sql } from "drizzle-orm";
import { rawQuery, type Executor } from "../../../infrastructure/db/client";
import type { MessageKey } from "../../../infrastructure/db/message-keys";
import { isRefusal } from "../../../infrastructure/refusal";
import { log } from "../../../infrastructure/log";
import { logMessageEvents, queueMessage, type OutboundContent } from "../../messaging";
import { buttonId } from "./words";
import type { Locale } from "~/paraglide/runtime";
import { m } from "~/paraglide/messages";

/** Who a request's answers go to: its customer, on the number the conversation is with. */
export interface RequestCustomer {
  organizationId: string;
  requestId: string;
  conversationId: string | null;
  phoneNumberId: string;
  /** E.164. */
  phone: string;
  language: string | null;
}

export async function customerOfRequest(organizationId: string, requestId: string): Promise<RequestCustomer | null> {
  const [row] = await rawQuery<{
    conversation_id: string | null;
    phone_number_id: string | null;
    phone: string | null;
    language: string | null;
  }>(
    `select r.conversation_id, v.phone_number_id, c.phone, c.language
     from payment_requests r join contacts c on c.id = r.contact_id left join conversations v on v.id = r.conversation_id
     where r.organization_id = $1 and r.id = $2`,
    [organizationId, requestId],
  );
  if (!row?.phone || !row.phone_number_id) return null;
  return {
    organizationId,
    requestId,
    conversationId: row.conversation_id,
    phoneNumberId: row.phone_number_id,
    phone: row.phone,
    language: row.language,
  };
}

/** Text, or text with a "Try again" button for this request. */
export function answer(text: string, locale: Locale, retryOf?: string): OutboundContent {
  return retryOf
    ? {
        kind: "interactive",
        interactive: {
          type: "button",
          body: text,
          buttons: [{ id: buttonId(retryOf, "retry"), title: m.payreq_button_retry({}, { locale }) }],
        },
      }
    : { kind: "text", text };
}

/**
 * Queues an answer to the customer, in the thread live. A closed window (the callback came a day
 * later) or a disconnected number is logged: the team sees the request's state on its card.
 */
export async function tellCustomer(customer: RequestCustomer, content: OutboundContent) {
  try {
    await queueMessage(customer.organizationId, {
      to: customer.phone,
      from: customer.phoneNumberId,
      content,
      source: "system",
      onQueued: async (tx: Executor, message: MessageKey) => {
        if (customer.conversationId)
          await tx.execute(
            sql`update conversations set last_message_at = greatest(last_message_at, now()) where id = ${customer.conversationId}`,
          );
        await logMessageEvents(tx, "message", [message]);
      },
    });
  } catch (error) {
    if (!isRefusal(error, "send")) throw error;
    log().warn({ requestId: customer.requestId, code: error.code }, "a payment request's answer to the customer could not be queued");
  }
}
