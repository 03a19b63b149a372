import type { ServiceWindow } from "~/lib/inbox";
import { formatWhen } from "~/lib/dates";
import { m } from "~/paraglide/messages";

/** The 24-hour window in words: "Open, 3 h 20 min left", "Closed", "Customer has not written". */
export function windowWords(window: ServiceWindow, now: string, short = false) {
  if (!window.closesAt) return short ? m.inbox_window_closed() : m.inbox_window_never();
  if (!window.open) return short ? m.inbox_window_closed() : m.inbox_window_closed_at({ when: formatWhen(window.closesAt) });
  const left = timeLeft(window.closesAt, now);
  return short ? m.inbox_window_open_short({ left }) : m.inbox_window_open_long({ left });
}

/** What is left until `until`: "3 h 20 min", "72 h", "5 min" (at least a minute). */
export function timeLeft(until: string, now: string) {
  const minutes = Math.max(1, Math.round((Date.parse(until) - Date.parse(now)) / 60_000));
  const hours = Math.floor(minutes / 60);
  return minutes < 60
    ? m.inbox_window_left_minutes({ minutes })
    : minutes % 60
      ? m.inbox_window_left_hours_minutes({ hours, minutes: minutes % 60 })
      : m.inbox_window_left_hours({ hours });
}
