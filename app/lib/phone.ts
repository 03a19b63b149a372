import { parsePhoneNumberFromString, type CountryCode } from "libphonenumber-js/max";

/**
 * The one place a typed phone number becomes E.164: members' profiles, message recipients, contacts
 * and M-Pesa numbers all come here, so a number is valid on a profile exactly when it is valid as a
 * recipient. The "max" metadata knows each country's allocated ranges (Kenya's Safaricom, Airtel and
 * Telkom 07xx and 01xx blocks among them); "min" checks lengths only and let unallocated ranges such
 * as 0109 through. It weighs about 150 KB, so this module is for server code: no component imports it.
 */

/** Numbers without a country code are Kenyan unless the caller says otherwise. */
export const DEFAULT_COUNTRY: CountryCode = "KE";

/** Digits with the marks people write between them: a leading plus, spaces, dots, dashes and brackets. */
export function isPhoneShaped(input: string) {
  const raw = input.trim();
  return raw.length > 0 && raw.length <= 40 && /^[+\d\s().-]+$/.test(raw);
}

/**
 * E.164 (`+254712345678`) for a valid mobile or fixed number, else null. `0712 345 678`,
 * `254712345678`, `00254 712 345 678` and `+254 712 345 678` are one number: more than ten digits
 * without a plus are taken as international (2547… without its plus sign).
 */
export function normalizePhone(input: string, country: CountryCode = DEFAULT_COUNTRY): string | null {
  if (typeof input !== "string" || !isPhoneShaped(input)) return null;
  const raw = input.trim();
  const digits = raw.replace(/\D/g, "");
  const candidate = raw.startsWith("+") || raw.startsWith("00") ? raw.replace(/^00/, "+") : digits.length > 10 ? `+${digits}` : raw;
  const parsed = parsePhoneNumberFromString(candidate, country);
  return parsed?.isValid() ? parsed.number : null;
}

/** A Kenyan mobile number (Safaricom, Airtel, Telkom: 07xx and 01xx) in E.164, else null. */
export function normalizeKenyanMobile(input: string): string | null {
  const e164 = normalizePhone(input, "KE");
  return e164 && /^\+254[17]\d{8}$/.test(e164) ? e164 : null;
}
