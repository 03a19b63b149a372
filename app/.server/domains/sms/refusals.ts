import { Refusal } from "../../infrastructure/refusal";
import { m } from "~/paraglide/messages";

/** Why something about SMS is refused. Nothing has changed when one is thrown. */
export const refuseSms = (
  status: 400 | 402 | 403 | 404 | 409 | 422,
  code:
    | "forbidden"
    | "not_found"
    | "key_required"
    | "not_connected"
    | "opted_out"
    | "quiet_hours"
    | "balance"
    | "no_phone"
    | "empty"
    | "refused",
  message: string,
  field?: "apiKey" | "body",
) => new Refusal({ domain: "sms", status, code, message, field });

/** The sentences, each read when used (in the request's language). */
export const SMS_REFUSALS = {
  get forbidden() {
    return m.sms_refusal_forbidden();
  },
  get notFound() {
    return m.sms_refusal_not_found();
  },
  get keyRequired() {
    return m.sms_validation_key_required();
  },
  get notConnected() {
    return m.sms_refusal_not_connected();
  },
};
