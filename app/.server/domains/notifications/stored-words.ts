import { baseLocale, getLocale } from "~/paraglide/runtime";
import type { Message } from "../../infrastructure/words/said";
import { storedSentences } from "../../infrastructure/words/stored";

/**
 * A campaign's pause reason and notice are written by Jumbe's own work (the feeder, Meta's webhooks,
 * a start that failed), outside any reader's request: they are stored as Jumbe says them in English,
 * the language the API and the activity log keep. A page says them in its reader's language: each
 * stored sentence is matched against the English of the messages that write them, and said again
 * with the same inputs. One not known here (another part's words) shows as stored.
 */

/**
 * The messages a stored reason may be, with the kinds of their inputs (infrastructure/words/stored.ts).
 * Names, numbers, dates and Meta's codes are data, kept as written.
 */
export const PAUSE_REASONS = storedSentences([
  ["messaging_paused_wallet_empty"],
  ["messaging_paused_template_paused", { name: "data" }],
  ["messaging_paused_template_disabled", { name: "data" }],
  ["messaging_paused_recategorised_marketing", { name: "data" }],
  ["messaging_paused_recategorised", { name: "data", category: "data" }],
  ["messaging_paused_low_quality", { number: "data" }],
  ["messaging_paused_closing", { date: "data" }],
  ["messaging_notice_limit_one", { count: "data" }],
  ["messaging_notice_limit_other", { count: "data" }],
  // A scheduled campaign that failed to start says why (lifecycle.ts's checks, run again at its time).
  ["messaging_campaign_name_required"],
  ["messaging_campaign_template_required"],
  ["messaging_campaign_header_value_required"],
  ["messaging_audience_no_segment"],
  ["messaging_audience_required"],
  ["messaging_header_link_invalid"],
  ["messaging_header_link_not_https"],
  ["messaging_header_file_not_needed", { template: "data" }],
  ["messaging_parameters_value_required", { name: "data" }],
  ["messaging_parameters_unknown_field", { name: "data", field: "data" }],
  ["messaging_parameters_unmapped", { name: "data" }],
  // A sending campaign the feeder paused because a send was refused (the sending engine's words).
  ["validation_send_reconnect", { number: "data" }],
  ["validation_send_not_registered", { number: "data" }],
  ["validation_send_no_number"],
  ["validation_send_not_our_number", { wanted: "data" }],
  ["validation_send_number_disconnected"],
  ["validation_send_account_refused"],
  ["validation_send_closing"],
  ["validation_send_template_not_found", { name: "data", number: "data" }],
  ["validation_send_template_not_approved", { name: "data", language: "data", status: "data" }],
  ["validation_send_template_no_language", { name: "data", language: "data", languages: "data" }],
  ["validation_send_header_text_needed", { name: "data" }],
  ["validation_send_header_file_needed", { name: "data", format: "data" }],
  ["validation_send_button_takes_no_value", { name: "data", number: "data" }],
  ["validation_send_button_value_needed", { name: "data", number: "data", text: "data", example: "data" }],
]);

/** The message a stored English sentence is, with its inputs; null when it is not one known here. */
export function storedMessageOf(text: string): Message | null {
  return PAUSE_REASONS.read(text) ?? null;
}

/** A stored sentence in the request's language (as stored in English, or when it is not known). */
export function storedWords(text: string | null): string | null {
  if (text === null || getLocale() === baseLocale) return text;
  return PAUSE_REASONS.say(text) ?? text;
}
