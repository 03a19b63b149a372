/**
 * Why Jumbe will not queue a message, checked before Meta is called: a stable code for programs and
 * a plain sentence for people. The API answers it as `{ code, message }` with `status`.
 */
export class SendRefusal extends Error {
  constructor(
    readonly status: 404 | 409 | 422,
    readonly code: SendRefusalCode,
    message: string,
  ) {
    super(message);
    this.name = "SendRefusal";
  }
}

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
  | "idempotency_conflict";

export const refuse = (status: SendRefusal["status"], code: SendRefusalCode, message: string) => new SendRefusal(status, code, message);
