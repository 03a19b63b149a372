import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import ipaddr from "ipaddr.js";
import { eq, sql } from "drizzle-orm";
import { db } from "../../infrastructure/db/client";
import { webhookEndpoints } from "../../infrastructure/db/schema";
import { env } from "../../infrastructure/config/env";
import { recordActivity } from "../activity/record";
import type { RequestMeta } from "../../infrastructure/http/request-meta";
import type { CurrentUser } from "../auth/guards";
import { encryptSecret } from "../../infrastructure/security/crypto";
import { newWebhookSecret } from "./secret";

import { WEBHOOK_EVENTS } from "~/lib/developer";

export { WEBHOOK_EVENTS };

// A tenant's webhook must not make Jumbe call into its own network (SSRF): only addresses that
// ipaddr.js classes as plain unicast pass, and on top of its special ranges (it names loopback,
// private, link-local, CGNAT, multicast, reserved, documentation, IPv4-mapped/translated, NAT64
// 64:ff9b::/96, 6to4 and Teredo) the IANA special-purpose ranges it does not know yet. Every IPv6
// form that carries an IPv4 address is refused outright rather than decoded.
const EXTRA_SPECIAL = [
  "198.18.0.0/15", // benchmarking
  "::/96", // IPv4-compatible (deprecated), e.g. ::127.0.0.1
  "64:ff9b:1::/48", // NAT64 local use
  "100::/64", // discard-only
  "2001::/23", // IETF protocol assignments (Teredo, benchmarking, ORCHID...)
  "3fff::/20", // documentation
  "5f00::/16", // SRv6 SIDs
  "fec0::/10", // site-local (deprecated, still routed privately)
].map((cidr) => ipaddr.parseCIDR(cidr));

/** True for an address a webhook may never be delivered to. */
export function isForbiddenAddress(address: string) {
  // node:net decides what is an address, so no lenient form (octal, short IPv4) slips through.
  const family = isIP(address);
  if (!family) return true;
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    // The URL parser writes IPv6 canonically (an embedded dotted IPv4 as hex), which ipaddr.js reads.
    parsed = ipaddr.parse(family === 6 ? new URL(`http://[${address}]/`).hostname.slice(1, -1) : address);
  } catch {
    return true;
  }
  if (parsed.range() !== "unicast") return true;
  // Same kind checked first; the cast only satisfies the overloads.
  return EXTRA_SPECIAL.some(([net, bits]) => net.kind() === parsed.kind() && (parsed as ipaddr.IPv6).match(net as ipaddr.IPv6, bits));
}

const LOOPBACK = [ipaddr.parseCIDR("127.0.0.0/8"), ipaddr.parseCIDR("::1/128")];

/**
 * isForbiddenAddress, except that loopback passes when WEBHOOK_ALLOW_LOOPBACK is set (tests and
 * local trials with a receiver on this machine; production refuses the switch at start-up).
 */
export function isForbiddenTarget(address: string) {
  if (!isForbiddenAddress(address)) return false;
  if (!env().WEBHOOK_ALLOW_LOOPBACK || !isIP(address)) return true;
  const parsed = ipaddr.parse(address);
  return !LOOPBACK.some(([net, bits]) => net.kind() === parsed.kind() && (parsed as ipaddr.IPv6).match(net as ipaddr.IPv6, bits));
}

export type Resolver = (host: string) => Promise<string[]>;
export const systemResolver: Resolver = async (host) => (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/**
 * Checks a webhook URL: https in production (http too elsewhere), no credentials, and a host whose
 * every address is public. Delivery checks again after its own DNS lookup, since a name can change.
 */
export async function checkWebhookUrl(
  raw: string,
  resolve: Resolver = systemResolver,
): Promise<{ ok: true; url: string } | { ok: false; message: string }> {
  const target = await resolveWebhookTarget(raw, resolve);
  return target.ok ? { ok: true, url: target.url } : target;
}

/**
 * The checks of checkWebhookUrl, answering the addresses that passed as well: delivery connects to
 * one of exactly these (never to a second lookup's answer), so a name cannot be rebound in between.
 */
export async function resolveWebhookTarget(
  raw: string,
  resolve: Resolver = systemResolver,
): Promise<{ ok: true; url: string; addresses: string[] } | { ok: false; message: string }> {
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
    return {
      ok: false,
      message: production ? "The webhook URL must use https." : "The webhook URL must use https (or http outside production).",
    };
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
  if (!addresses.length || addresses.some(isForbiddenTarget))
    return { ok: false, message: "The webhook URL must not point to a private, loopback or link-local address." };
  url.hash = "";
  return { ok: true, url: url.toString(), addresses };
}

export async function webhookConfig(organizationId: string) {
  const [row] = await db().select().from(webhookEndpoints).where(eq(webhookEndpoints.organizationId, organizationId)).limit(1);
  return row
    ? {
        url: row.url,
        events: row.events,
        updatedAt: row.updatedAt.toISOString(),
        secretCreatedAt: row.secretCreatedAt?.toISOString() ?? null,
        failingSince: row.failingSince?.toISOString() ?? null,
        disabledAt: row.disabledAt?.toISOString() ?? null,
      }
    : null;
}

export async function saveWebhookConfig(
  current: CurrentUser,
  input: { url: string; events: string[] },
  meta: RequestMeta,
  resolve?: Resolver,
) {
  const events = [...new Set(input.events)];
  if (!events.length) return { ok: false as const, message: "Choose at least one event." };
  if (events.some((e) => !(WEBHOOK_EVENTS as readonly string[]).includes(e)))
    return { ok: false as const, message: "Unknown webhook event." };
  const checked = await checkWebhookUrl(input.url, resolve);
  if (!checked.ok) return checked;
  const ordered = WEBHOOK_EVENTS.filter((e) => events.includes(e));
  // The first save makes the signing secret; saving again keeps it, and re-enables a disabled endpoint
  // (its owner has looked at it): deliveries start again from a clean record.
  await db()
    .insert(webhookEndpoints)
    .values({
      organizationId: current.organization.id,
      url: checked.url,
      events: ordered,
      updatedBy: current.user.id,
      secretEncrypted: encryptSecret(newWebhookSecret()),
      secretCreatedAt: sql`now()`,
    })
    .onConflictDoUpdate({
      target: webhookEndpoints.organizationId,
      set: {
        url: checked.url,
        events: ordered,
        updatedBy: current.user.id,
        updatedAt: sql`now()`,
        secretEncrypted: sql`coalesce(${webhookEndpoints.secretEncrypted}, excluded.secret_encrypted)`,
        secretCreatedAt: sql`coalesce(${webhookEndpoints.secretCreatedAt}, excluded.secret_created_at)`,
        failingSince: null,
        disabledAt: null,
      },
    });
  await recordActivity({
    organizationId: current.organization.id,
    userId: current.user.id,
    type: "settings",
    status: "success",
    action: "Webhook configuration saved",
    details: `${checked.url} (${ordered.join(", ")})`,
    meta,
  });
  return { ok: true as const, url: checked.url, events: ordered };
}
