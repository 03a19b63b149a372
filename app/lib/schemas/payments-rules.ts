// The limits and words of the Payments settings forms (issue 76), without zod: the page imports them
// from here; the schemas (payments.ts) are read by the server.
import { m } from "~/paraglide/messages";

export const SHORTCODE_LABEL_MAX = 60;
/** Daraja's consumer keys and secrets are 48 and 64 characters, passkeys 64; room to spare, no more. */
export const CREDENTIAL_MAX = 200;
/** A paybill, a store number or a till: 5 to 7 digits. */
export const SHORTCODE_PATTERN = /^\d{5,7}$/;

export const SHORTCODE_KIND_OPTIONS = ["paybill", "till"] as const;
export const SHORTCODE_ENVIRONMENT_OPTIONS = ["sandbox", "production"] as const;

// Getters: each text is read in the language of the request that reports it, never at load.
export const PAYMENTS_MESSAGES = {
  get labelRequired() {
    return m.settings_payments_validation_label_required();
  },
  get labelMax() {
    return m.settings_payments_validation_label_max({ max: SHORTCODE_LABEL_MAX });
  },
  get kind() {
    return m.settings_payments_validation_kind();
  },
  get shortcode() {
    return m.settings_payments_validation_shortcode();
  },
  get tillRequired() {
    return m.settings_payments_validation_till_required();
  },
  get tillForPaybill() {
    return m.settings_payments_validation_till_for_paybill();
  },
  get keyRequired() {
    return m.settings_payments_validation_key_required();
  },
  get secretRequired() {
    return m.settings_payments_validation_secret_required();
  },
  get passkeyRequired() {
    return m.settings_payments_validation_passkey_required();
  },
  get credentialMax() {
    return m.settings_payments_validation_credential_max({ max: CREDENTIAL_MAX });
  },
  get environment() {
    return m.settings_payments_validation_environment();
  },
};
