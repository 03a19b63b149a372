/**
 * The pseudo-number of a conversation a customer opened by SMS when the organisation had no WhatsApp
 * number connected (decision 148): conversations are keyed by number and contact. Nothing goes out
 * on WhatsApp from it (decision 150); it is answered with "Send as SMS".
 */
export const SMS_ONLY_NUMBER = "sms";

/**
 * How far a conversation is SMS only, for the composer: `conversation` on the pseudo-number (nothing
 * on WhatsApp), `contact` when the customer wrote by SMS and never on WhatsApp to this number (only a
 * template or an SMS), null otherwise. The send path checks it again (messaging/queue.ts).
 */
export function smsOnlyOf(
  conversation: { phoneNumberId: string; lastInboundAt: string | null },
  items: readonly { type: string; direction?: string; channel?: string }[],
): "conversation" | "contact" | null {
  if (conversation.phoneNumberId === SMS_ONLY_NUMBER) return "conversation";
  if (conversation.lastInboundAt !== null) return null;
  return items.some((item) => item.type === "message" && item.direction === "inbound" && item.channel === "sms") ? "contact" : null;
}
