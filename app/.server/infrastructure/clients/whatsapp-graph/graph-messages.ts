import type { GraphCaller } from "./graph-call";
import { GraphNetworkError } from "./graph-errors";

/** Messages: one sent (never retried here), a customer's marked read. */

export interface SentMessage {
  wamid: string;
  /** The wa_id Meta answered for `to` (it may differ from the input). */
  waId?: string;
  /** Template sends: "accepted", "held_for_quality_assessment" or "paused". */
  messageStatus?: string;
}

export function messageCalls(graph: GraphCaller) {
  return {
    /**
     * POST /{phone-number-id}/messages: one attempt only, never retried here. A send is not
     * idempotent (a repeat after a lost answer is a second message); the dispatcher decides retries.
     * `body` is Meta's request (messaging_product, to, type, …) as the caller built it.
     */
    async sendMessage(phoneNumberId: string, token: string, body: Record<string, unknown>): Promise<SentMessage> {
      const answer = await graph.callOnce<{ contacts?: { wa_id?: unknown }[]; messages?: { id?: unknown; message_status?: unknown }[] }>({
        step: "messages.send",
        method: "POST",
        path: `${encodeURIComponent(phoneNumberId)}/messages`,
        body: { messaging_product: "whatsapp", ...body },
        token,
        idempotent: false,
      });
      const message = Array.isArray(answer.messages) ? answer.messages[0] : undefined;
      if (typeof message?.id !== "string" || !message.id)
        throw new GraphNetworkError("messages.send", "Graph messages.send answered without a message id");
      const waId = Array.isArray(answer.contacts) ? answer.contacts[0]?.wa_id : undefined;
      return {
        wamid: message.id,
        ...(typeof waId === "string" ? { waId } : {}),
        ...(typeof message.message_status === "string" ? { messageStatus: message.message_status } : {}),
      };
    },

    /** Marks a customer's message read (and shows the typing indicator): the blue ticks. No webhook follows. */
    async markRead(phoneNumberId: string, token: string, wamid: string, typing = false) {
      await graph.call<{ success?: boolean }>({
        step: "messages.read",
        method: "POST",
        path: `${encodeURIComponent(phoneNumberId)}/messages`,
        body: {
          messaging_product: "whatsapp",
          status: "read",
          message_id: wamid,
          ...(typing ? { typing_indicator: { type: "text" } } : {}),
        },
        token,
        idempotent: true,
      });
    },
  };
}
