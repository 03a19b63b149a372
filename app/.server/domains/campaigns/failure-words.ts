import { m } from "~/paraglide/messages";

/**
 * Why a message failed, in words a business owner understands: Meta's error codes
 * (../shared/reference/whatsapp-cloud-api.md, the error table) and Jumbe's own refusals. Each is
 * said in the request's language when it is read (the API's in English).
 */
const META: Record<number, () => string> = {
  0: m.messaging_failure_meta_0,
  190: m.messaging_failure_reconnect,
  368: m.messaging_failure_meta_368,
  470: m.messaging_failure_window,
  130429: m.messaging_failure_meta_130429,
  130472: m.messaging_failure_meta_130472,
  131000: m.messaging_failure_meta_131000,
  131005: m.messaging_failure_meta_131005,
  131008: m.messaging_failure_meta_131008,
  131009: m.messaging_failure_meta_131009,
  131016: m.messaging_failure_meta_131016,
  131021: m.messaging_failure_meta_131021,
  131026: m.messaging_failure_meta_131026,
  131031: m.messaging_failure_meta_131031,
  131042: m.messaging_failure_meta_131042,
  131045: m.messaging_failure_meta_131045,
  131047: m.messaging_failure_window,
  131048: m.messaging_failure_meta_131048,
  131049: m.messaging_failure_meta_131049,
  131050: m.messaging_failure_meta_131050,
  131051: m.messaging_failure_meta_131051,
  131052: m.messaging_failure_meta_131052,
  131053: m.messaging_failure_meta_131053,
  131056: m.messaging_failure_meta_131056,
  131057: m.messaging_failure_meta_131057,
  132000: m.messaging_failure_meta_132000,
  132001: m.messaging_failure_meta_132001,
  132005: m.messaging_failure_meta_132005,
  132007: m.messaging_failure_meta_132007,
  132012: m.messaging_failure_meta_132012,
  132015: m.messaging_failure_meta_132015,
  132016: m.messaging_failure_meta_132016,
  132018: m.messaging_failure_meta_132018,
  133010: m.messaging_failure_meta_133010,
};

const JUMBE: Record<string, () => string> = {
  whatsapp_reconnect_needed: m.messaging_failure_reconnect,
  messaging_limit_reached: m.messaging_failure_limit_reached,
  number_not_connected: m.messaging_failure_number_not_connected,
  not_opted_in: m.messaging_failure_not_opted_in,
  organization_closing: m.messaging_failure_organization_closing,
  // A message outside a campaign that waited out a suspension too long (admin/users/suspension.ts).
  organization_suspended: m.messaging_failure_organization_suspended,
};

/**
 * Meta's codes whose meaning differs for a template message. 131047 ("Re-engagement message") says
 * only a template reaches someone who has not written for 24 hours; when it refuses a template, that
 * is the advice it cannot mean (decision 114).
 */
const META_TEMPLATE: Record<number, () => string> = {
  131047: m.messaging_failure_template_window,
};

/**
 * The reason in words for a failed message's code and title (Meta's title when the code is unknown);
 * `template` when the message was a template (every campaign's, a template from the inbox).
 */
export function failureInWords(
  code: number | null | undefined,
  title: string | null | undefined,
  options: { template?: boolean } = {},
): string {
  if (options.template && code !== null && code !== undefined && META_TEMPLATE[code]) return META_TEMPLATE[code]();
  if (code !== null && code !== undefined && META[code]) return META[code]();
  if (title && JUMBE[title]) return JUMBE[title]();
  if (title) return code ? m.messaging_failure_titled_code({ title, code }) : title;
  return code ? m.messaging_failure_code({ code }) : m.messaging_failure_unknown();
}

/** Why a person was left out of a campaign, in words (read when shown: the request's language). */
export const LEFT_OUT_WORDS: Record<string, string> = {
  get not_opted_in() {
    return m.messaging_left_out_not_opted_in();
  },
  get erased() {
    return m.messaging_left_out_erased();
  },
  get invalid_number() {
    return m.messaging_left_out_invalid_number();
  },
  get duplicate() {
    return m.messaging_left_out_duplicate();
  },
  get missing_value() {
    return m.messaging_left_out_missing_value();
  },
  get cancelled() {
    return m.messaging_left_out_cancelled();
  },
  get no_products() {
    return m.messaging_left_out_no_products();
  },
};
