/**
 * How many parts an SMS takes, as the operators count it (3GPP TS 23.038) and Africa's Talking bills
 * it (per part): GSM-7 when every character is in the GSM 03.38 basic set or its extension table
 * (extension characters `€ [ ] { } \ ^ ~ |` and form feed take two septets), else UCS-2 (UTF-16 code
 * units: one emoji is two). A single part holds 160 septets or 70 units; once concatenated each part
 * holds 153 or 67 (the rest is the concatenation header). Pure: the browser can count as you type.
 */
const GSM_BASIC = new Set(
  "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà",
);
const GSM_EXTENSION = new Set("\f^{}\\[~]|€");

export type SmsEncoding = "GSM-7" | "UCS-2";

export interface SmsParts {
  encoding: SmsEncoding;
  /** Septets (GSM-7) or UTF-16 code units (UCS-2) the text takes. */
  units: number;
  /** Parts billed; an empty text is one part. */
  parts: number;
  /** Units one part holds at this length: 160/70 while single, 153/67 once concatenated. */
  perPart: number;
  /** Units left in the last part before another part starts. */
  remaining: number;
}

export const SMS_LIMITS = {
  "GSM-7": { single: 160, multi: 153 },
  "UCS-2": { single: 70, multi: 67 },
} as const;

/** The encoding a text needs: UCS-2 as soon as one character is outside GSM-7. */
export function smsEncoding(text: string): SmsEncoding {
  for (const c of text) if (!GSM_BASIC.has(c) && !GSM_EXTENSION.has(c)) return "UCS-2";
  return "GSM-7";
}

export function smsParts(text: string): SmsParts {
  const encoding = smsEncoding(text);
  let units = text.length;
  if (encoding === "GSM-7") {
    units = 0;
    for (const c of text) units += GSM_EXTENSION.has(c) ? 2 : 1;
  }
  const limits = SMS_LIMITS[encoding];
  if (units <= limits.single) return { encoding, units, parts: 1, perPart: limits.single, remaining: limits.single - units };
  const parts = Math.ceil(units / limits.multi);
  return { encoding, units, parts, perPart: limits.multi, remaining: parts * limits.multi - units };
}
