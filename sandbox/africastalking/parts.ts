/**
 * SMS length maths as the operators count it (3GPP TS 23.038): GSM-7 when every character is in the
 * GSM 03.38 basic set or its extension table (extension characters take two septets), else UCS-2
 * (UTF-16 code units). One part holds 160 septets / 70 units; a concatenated message 153 / 67 a part.
 * The sandbox's own copy: it imports nothing from Jumbe (whose client has `smsParts`).
 */
const GSM_BASIC =
  "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà";
const GSM_EXTENSION = "\f^{}\\[~]|€";
const BASIC = new Set(GSM_BASIC);
const EXTENSION = new Set(GSM_EXTENSION);

export interface PartsCount {
  encoding: "GSM-7" | "UCS-2";
  /** Septets (GSM-7, extension characters counted twice) or UTF-16 code units (UCS-2). */
  units: number;
  parts: number;
}

export function countParts(text: string): PartsCount {
  let septets = 0;
  for (const c of text) {
    if (BASIC.has(c)) septets += 1;
    else if (EXTENSION.has(c)) septets += 2;
    else {
      const units = text.length;
      return { encoding: "UCS-2", units, parts: units <= 70 ? 1 : Math.ceil(units / 67) };
    }
  }
  return { encoding: "GSM-7", units: septets, parts: septets <= 160 ? 1 : Math.ceil(septets / 153) };
}
