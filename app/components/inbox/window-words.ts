import type { ServiceWindow } from "~/lib/inbox";
import { formatWhen } from "~/lib/dates";

/** The 24-hour window in words: "Open, 3 h 20 min left", "Closed", "Customer has not written". */
export function windowWords(window: ServiceWindow, now: string, short = false) {
  if (!window.closesAt) return short ? "Window closed" : "The customer has not written to this number yet: only a template can reach them.";
  if (!window.open)
    return short ? "Window closed" : `The 24-hour window closed ${formatWhen(window.closesAt)}: only a template can reach them now.`;
  const minutes = Math.max(1, Math.round((Date.parse(window.closesAt) - Date.parse(now)) / 60_000));
  const left = minutes >= 60 ? `${Math.floor(minutes / 60)} h${minutes % 60 ? ` ${minutes % 60} min` : ""}` : `${minutes} min`;
  return short ? `Open, ${left} left` : `The 24-hour window is open for ${left} more.`;
}
