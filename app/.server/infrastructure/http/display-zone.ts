import { AsyncLocalStorage } from "node:async_hooks";
import { setDisplayZoneSource } from "~/lib/dates";

/**
 * The signed-in organisation's time zone for everything a request renders: the signed-in pages'
 * middleware runs the rest of the request inside it, and formatWhen/formatDay read it. A request
 * without one (public pages, jobs, e-mails) shows Nairobi's.
 */
const requestZone = new AsyncLocalStorage<string>();
setDisplayZoneSource(() => requestZone.getStore());

export function inDisplayZone<T>(zone: string, work: () => T): T {
  return requestZone.run(zone, work);
}
