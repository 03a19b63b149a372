/** Digits only: "+254 711 000 001" (Graph) and "254711000001" (webhook metadata) compare equal. */
export function phoneDigits(display: string) {
  return display.replace(/\D/g, "");
}

/** "+254711000001" for showing and for the organisation's primary number. */
export function e164(display: string) {
  return `+${phoneDigits(display)}`;
}

/** Meta's quality colours as the spec names them (high, medium, low). */
export function qualityLabel(rating: string | null | undefined) {
  switch ((rating ?? "").toUpperCase()) {
    case "GREEN":
      return "high";
    case "YELLOW":
      return "medium";
    case "RED":
      return "low";
    default:
      return "unknown";
  }
}
