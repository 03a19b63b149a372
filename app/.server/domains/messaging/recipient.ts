import type { CountryCode } from "libphonenumber-js/max";
import { DEFAULT_COUNTRY, isPhoneShaped, normalizePhone } from "~/lib/phone";
import { refuse } from "./refusals";
import { m } from "~/paraglide/messages";

/**
 * The recipient in E.164 (`+254712345678`). `0712 345 678`, `254712345678` and `+254 712 345 678`
 * are one person. Meta prepends the business number's country code to a number without `+`, so
 * Jumbe always sends the `+` form. Refused: anything that is not a valid mobile or fixed number.
 */
export function normaliseRecipient(input: string, country: CountryCode = DEFAULT_COUNTRY): string {
  const raw = input.trim();
  if (!isPhoneShaped(raw)) throw refuse(422, "invalid_phone_number", m.validation_send_not_a_phone({ raw: raw.slice(0, 40) }));
  const e164 = normalizePhone(raw, country);
  if (!e164) throw refuse(422, "invalid_phone_number", m.validation_send_phone_invalid({ raw }));
  return e164;
}

/** E.164 without its plus sign: what Meta's webhooks carry as wa_id and recipient_id. */
export const digitsOf = (e164: string) => e164.replace(/^\+/, "");
