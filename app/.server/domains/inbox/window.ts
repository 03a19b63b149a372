import type { ServiceWindow } from "~/lib/inbox";
import { SERVICE_WINDOW_MS } from "../messaging";

/** The customer's service window as of `now`: open for 24 hours after their last message (Meta's rule). */
export function serviceWindow(lastInboundAt: Date | string | null, now: Date = new Date()): ServiceWindow {
  if (!lastInboundAt) return { open: false, closesAt: null };
  const closes = new Date(new Date(lastInboundAt).getTime() + SERVICE_WINDOW_MS);
  return { open: closes.getTime() > now.getTime(), closesAt: closes.toISOString() };
}
