import { Refusal } from "../../infrastructure/refusal";
import { m } from "~/paraglide/messages";
/**
 * Why Jumbe will not queue a message, checked before Meta is called: a stable code for programs and
 * a plain sentence for people. The API answers it as `{ code, message }` with `status`.
 */
export type SendRefusalStatus = 402 | 404 | 409 | 422;

export type SendRefusalCode =
  | "invalid_phone_number"
  | "no_whatsapp_number"
  | "number_not_registered"
  | "whatsapp_reconnect_needed"
  | "template_not_found"
  | "template_not_approved"
  | "parameter_mismatch"
  | "outside_service_window"
  | "not_opted_in"
  | "message_not_found"
  | "media_not_found"
  | "media_type_mismatch"
  | "idempotency_conflict"
  | "organization_closing"
  | "insufficient_balance";

export const refuseSend = (status: SendRefusalStatus, code: SendRefusalCode, message: string) =>
  new Refusal({ domain: "send", status, code, message });
export const refuse = refuseSend;

/**
 * The organisation is closing (its owner asked; its data is erased at the end of the grace period):
 * nothing is sent, whoever asks. Reopening it in Account Settings lifts this at once. In the
 * request's language (English for the API and for Jumbe's own work, which stores it).
 */
export const closingSendsNothing = () => m.validation_send_closing();

export const organisationClosing = () => refuse(409, "organization_closing", closingSendsNothing());
