import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";
import { eq, sql } from "drizzle-orm";
import { db } from "../db/client";
import { webhookEndpoints } from "../db/schema";
import { env } from "../config/env";
import { recordActivity } from "../activity/record";
import type { RequestMeta } from "../http/request-meta";
import type { CurrentUser } from "../auth/guards";

import { WEBHOOK_EVENTS } from "~/lib/developer";

export { WEBHOOK_EVENTS };

// Loopback, private, link-local, carrier-grade NAT, multicast, reserved and documentation ranges:
// a tenant's webhook must not make Jumbe call into its own network (SSRF).
const FORBIDDEN = new BlockList();
for (const [net, bits] of [
  ["0.0.0.0", 8], ["10.0.0.0", 8], ["100.64.0.0", 10], ["127.0.0.0", 8], ["169.254.0.0", 16], ["172.16.0.0", 12],
  ["192.0.0.0", 24], ["192.0.2.0", 24], ["192.168.0.0", 16], ["198.18.0.0", 15], ["198.51.100.0", 24], ["203.0.113.0", 24],
  ["224.0.0.0", 4], ["240.0.0.0", 4],
] as const) FORBIDDEN.addSubnet(net, bits, "ipv4");
for (const [net, bits] of [["::", 128], ["::1", 128], ["fc00::", 7], ["fe80::", 10], ["ff00::", 8], ["2001:db8::", 32], ["64:ff9b::", 96]] as const)
  FORBIDDEN.addSubnet(net, bits, "ipv6");

/** True for an address a webhook may never be delivered to. IPv4-mapped IPv6 is checked as IPv4. */
export function isForbiddenAddress(address: string) {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return FORBIDDEN.check(mapped[1]!, "ipv4");
  const family = isIP(address);
  if (!family) return true;
  return FORBIDDEN.check(address, family === 4 ? "ipv4" : "ipv6");
}

export type Resolver = (host: string) => Promise<string[]>;
const systemResolver: Resolver = async (host) => (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/**
 * Checks a webhook URL: https in production (http too elsewhere), no credentials, and a host whose
 * every address is public. Delivery checks again after its own DNS lookup, since a name can change.
 */
export async function checkWebhookUrl(raw: string, resolve: Resolver = systemResolver): Promise<{ ok: true; url: string } | { ok: false; message: string }> {
  const value = raw.trim();
  if (!value) return { ok: false, message: "Enter the URL that should receive the events." };
  if (value.length > 2048) return { ok: false, message: "The webhook URL is too long." };
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { ok: false, message: "Enter a full URL, such as https://example.co.ke/jumbe/webhooks." };
  }
  const production = env().production;
  if (url.protocol !== "https:" && (production || url.protocol !== "http:"))
    return { ok: false, message: production ? "The webhook URL must use https." : "The webhook URL must use https (or http outside production)." };
  if (url.username || url.password) return { ok: false, message: "The webhook URL must not contain a user name or password." };
  const host = url.hostname.replace(/^\[|\]$/g, "");
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = await resolve(host);
    } catch {
      return { ok: false, message: `The host name ${host} could not be resolved.` };
    }
  }
  if (!addresses.length || addresses.some(isForbiddenAddress))
    return { ok: false, message: "The webhook URL must not point to a private, loopback or link-local address." };
  url.hash = "";
  return { ok: true, url: url.toString() };
}

export async function webhookConfig(organizationId: string) {
  const [row] = await db().select().from(webhookEndpoints).where(eq(webhookEndpoints.organizationId, organizationId)).limit(1);
  return row ? { url: row.url, events: row.events, updatedAt: row.updatedAt.toISOString() } : null;
}

export async function saveWebhookConfig(current: CurrentUser, input: { url: string; events: string[] }, meta: RequestMeta, resolve?: Resolver) {
  const events = [...new Set(input.events)];
  if (!events.length) return { ok: false as const, message: "Choose at least one event." };
  if (events.some((e) => !(WEBHOOK_EVENTS as readonly string[]).includes(e))) return { ok: false as const, message: "Unknown webhook event." };
  const checked = await checkWebhookUrl(input.url, resolve);
  if (!checked.ok) return checked;
  const ordered = WEBHOOK_EVENTS.filter((e) => events.includes(e));
  await db()
    .insert(webhookEndpoints)
    .values({ organizationId: current.organization.id, url: checked.url, events: ordered, updatedBy: current.user.id })
    .onConflictDoUpdate({ target: webhookEndpoints.organizationId, set: { url: checked.url, events: ordered, updatedBy: current.user.id, updatedAt: sql`now()` } });
  await recordActivity({ organizationId: current.organization.id, userId: current.user.id, type: "settings", status: "success", action: "Webhook configuration saved", details: `${checked.url} (${ordered.join(", ")})`, meta });
  return { ok: true as const, url: checked.url, events: ordered };
}
