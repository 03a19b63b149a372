import { parsePhoneNumberFromString, type CountryCode } from "libphonenumber-js/max";
import { refuse } from "./refusals";

/** Numbers without a country code are Kenyan unless the caller says otherwise. */
export const DEFAULT_COUNTRY: CountryCode = "KE";

/**
 * The recipient in E.164 (`+254712345678`). `0712 345 678`, `254712345678` and `+254 712 345 678`
 * are one person. Meta prepends the business number's country code to a number without `+`, so
 * Jumbe always sends the `+` form. Refused: anything that is not a valid mobile or fixed number.
 */
export function normaliseRecipient(input: string, country: CountryCode = DEFAULT_COUNTRY): string {
  const raw = input.trim();
  if (!raw || raw.length > 40 || !/^[+\d\s().-]+$/.test(raw))
    throw refuse(422, "invalid_phone_number", `"${raw.slice(0, 40)}" is not a phone number. Write it as +254712345678 or 0712345678.`);
  // 2547... without its plus sign is an international number too.
  const digits = raw.replace(/[^\d]/g, "");
  const candidate = raw.startsWith("+") || raw.startsWith("00") ? raw.replace(/^00/, "+") : digits.length > 10 ? `+${digits}` : raw;
  const parsed = parsePhoneNumberFromString(candidate, country);
  if (!parsed || !parsed.isValid())
    throw refuse(422, "invalid_phone_number", `${raw} is not a valid phone number. Write it with its country code, such as +254712345678.`);
  return parsed.number;
}

/** E.164 without its plus sign: what Meta's webhooks carry as wa_id and recipient_id. */
export const digitsOf = (e164: string) => e164.replace(/^\+/, "");
