import { Refusal } from "../../infrastructure/refusal";
import { m } from "~/paraglide/messages";

/** Why a change to the organisation's M-Pesa shortcodes is refused. Nothing has changed when one is thrown. */
export const refusePayments = (
  status: 400 | 403 | 404 | 409,
  code: "forbidden" | "not_found" | "duplicate" | "confirm_first" | "in_use",
  message: string,
  field?: "businessShortCode",
) => new Refusal({ domain: "payment", status, code, message, field });

/** The sentences, each read when used (in the request's language). */
export const PAYMENTS_REFUSALS = {
  get forbidden() {
    return m.settings_payments_refusal_forbidden();
  },
  get notFound() {
    return m.settings_payments_refusal_not_found();
  },
  get duplicate() {
    return m.settings_payments_refusal_duplicate();
  },
  get inUse() {
    return m.settings_payments_refusal_in_use();
  },
  get confirmFirst() {
    return m.settings_payments_refusal_confirm();
  },
};
