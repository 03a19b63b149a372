import { parsePhoneNumberFromString } from "libphonenumber-js/min";

/** E.164 for a Kenyan or international number (07.., 01.., +254.., 254..), or null when invalid. */
export function normalizePhone(input: string, defaultCountry: "KE" = "KE") {
  const trimmed = input.trim();
  if (!trimmed) return null;
  const candidate = /^254\d{9}$/.test(trimmed.replace(/\s/g, "")) ? `+${trimmed.replace(/\s/g, "")}` : trimmed;
  const parsed = parsePhoneNumberFromString(candidate, defaultCountry);
  return parsed?.isValid() ? parsed.number : null;
}
