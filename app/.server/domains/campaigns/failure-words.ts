/**
 * Why a message failed, in words a business owner understands: Meta's error codes
 * (../shared/reference/whatsapp-cloud-api.md, the error table) and Jumbe's own refusals.
 */
const META: Record<number, string> = {
  0: "Meta could not check Jumbe's access to the WhatsApp account.",
  190: "Meta no longer accepts Jumbe's access to the WhatsApp account: connect it again.",
  368: "Meta restricted the WhatsApp account for a policy breach.",
  470: "More than 24 hours since the person last wrote: only a template can reach them.",
  130429: "Too many messages a second for this number: Jumbe retried and gave up.",
  130472: "Meta held this message back as part of an experiment on the person's account.",
  131000: "Something went wrong at WhatsApp.",
  131005: "Jumbe's access lacks a permission the message needs.",
  131008: "A required part of the message was missing.",
  131009: "A value in the message was not allowed.",
  131016: "WhatsApp was briefly unavailable.",
  131021: "The message was addressed to the sending number itself.",
  131026: "The person could not receive it: the number may not be on WhatsApp, or their app is too old.",
  131031: "Meta locked the WhatsApp account.",
  131042: "The WhatsApp account's payment method needs attention in Meta Business Manager.",
  131045: "The number's display name certificate is not valid.",
  131047: "More than 24 hours since the person last wrote: only a template can reach them.",
  131048: "Meta slowed this number down because people reported or blocked its messages.",
  131049: "Meta did not deliver it to keep this person's experience healthy: they received many marketing messages lately.",
  131050: "The person turned off marketing messages from this business.",
  131051: "WhatsApp does not support this kind of message.",
  131052: "WhatsApp could not download the person's media.",
  131053: "WhatsApp could not upload the message's media.",
  131056: "Too many messages to this person in a short time.",
  131057: "The WhatsApp account is in maintenance mode.",
  132000: "The template's values did not match its placeholders.",
  132001: "The template does not exist in that language at Meta.",
  132005: "The message was too long once its values were filled in.",
  132007: "The template's values broke a WhatsApp content rule.",
  132012: "A template value was in the wrong format.",
  132015: "Meta paused the template for low quality.",
  132016: "Meta disabled the template for low quality.",
  132018: "A template value held a line break, a tab or too many spaces.",
  133010: "The number is not registered with WhatsApp.",
};

const JUMBE: Record<string, string> = {
  whatsapp_reconnect_needed: "Meta no longer accepts Jumbe's access to the WhatsApp account: connect it again.",
  messaging_limit_reached: "The number reached its messaging limit for new people in 24 hours.",
  number_not_connected: "The number was disconnected from Jumbe.",
  not_opted_in: "The person has not opted in to marketing messages.",
  organization_closing: "The organisation was closing: nothing was sent.",
};

/** The reason in words for a failed message's code and title (Meta's title when the code is unknown). */
export function failureInWords(code: number | null | undefined, title: string | null | undefined): string {
  if (code !== null && code !== undefined && META[code]) return META[code];
  if (title && JUMBE[title]) return JUMBE[title];
  if (title) return code ? `${title} (Meta error ${code}).` : title;
  return code ? `Meta error ${code}.` : "The message failed.";
}

/** Why a person was left out of a campaign, in words. */
export const LEFT_OUT_WORDS: Record<string, string> = {
  not_opted_in: "Not opted in to marketing messages",
  erased: "Erased at their request",
  invalid_number: "Not a valid phone number",
  duplicate: "Already in the audience",
  missing_value: "A placeholder would be empty (no fallback)",
  cancelled: "Cancelled before their turn",
};
