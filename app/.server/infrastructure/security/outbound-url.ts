import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import ipaddr from "ipaddr.js";
import { env } from "../config/env";

/**
 * The one check of an address a tenant gives Jumbe's server to call (decision 099): webhooks out, REST
 * hooks, a rule's webhook, a flow's HTTP step and the assistant's model endpoint, when it is saved and
 * again when it is called. https in production (http too elsewhere), no user name or password in the
 * URL, and a host whose every address is public: a tenant must not make Jumbe call into its own
 * network (SSRF). Each caller says the outcome in its own words (`reason`).
 */

// Only addresses that ipaddr.js classes as plain unicast pass, and on top of its special ranges (it
// names loopback, private, link-local, CGNAT, multicast, reserved, documentation, IPv4-mapped/translated,
// NAT64 64:ff9b::/96, 6to4 and Teredo) the IANA special-purpose ranges it does not know yet. Every
// IPv6 form that carries an IPv4 address is refused outright rather than decoded.
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

const LOOPBACK = [ipaddr.parseCIDR("127.0.0.0/8"), ipaddr.parseCIDR("::1/128")];

/** The longest URL any of them takes. */
export const OUTBOUND_URL_MAX = 2048;

/** True for an address Jumbe may never call. */
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

/** 127.0.0.0/8 or ::1. */
export function isLoopbackAddress(address: string) {
  if (!isIP(address)) return false;
  const parsed = ipaddr.parse(address);
  return LOOPBACK.some(([net, bits]) => net.kind() === parsed.kind() && (parsed as ipaddr.IPv6).match(net as ipaddr.IPv6, bits));
}

/**
 * A caller's rule. `loopback`: whether 127.0.0.0/8 and ::1 may be called; unless told,
 * WEBHOOK_ALLOW_LOOPBACK (never in production). `production`: whether only https is taken; unless
 * told, the deployment's (a check of a flow's steps is given it).
 */
export interface OutboundRule {
  loopback?: boolean;
  production?: boolean;
}

const loopbackAllowed = (rule: OutboundRule) => rule.loopback ?? Boolean(env().WEBHOOK_ALLOW_LOOPBACK);

/** isForbiddenAddress, except loopback when the rule allows it. */
export function isForbiddenTarget(address: string, rule: OutboundRule = {}) {
  if (!isForbiddenAddress(address)) return false;
  return !(loopbackAllowed(rule) && isLoopbackAddress(address));
}

export type Resolver = (host: string) => Promise<string[]>;
export const systemResolver: Resolver = async (host) => (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/** Why an address was refused; each caller words it. */
export type OutboundRefusal = "empty" | "too_long" | "invalid" | "scheme" | "credentials" | "unresolved" | "private";

export type OutboundShape = { ok: true; url: URL; host: string } | { ok: false; reason: OutboundRefusal };

/**
 * What can be told without DNS: a full URL, its scheme (https; http outside production), no user name
 * or password, and a host written as an address that is allowed. A host name is not looked up here.
 */
export function checkOutboundShape(raw: string, rule: OutboundRule = {}): OutboundShape {
  const value = raw.trim();
  if (!value) return { ok: false, reason: "empty" };
  if (value.length > OUTBOUND_URL_MAX) return { ok: false, reason: "too_long" };
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { ok: false, reason: "invalid" };
  }
  const production = rule.production ?? env().production;
  if (url.protocol !== "https:" && (production || url.protocol !== "http:")) return { ok: false, reason: "scheme" };
  if (url.username || url.password) return { ok: false, reason: "credentials" };
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (!host) return { ok: false, reason: "invalid" };
  if (isIP(host) && isForbiddenTarget(host, rule)) return { ok: false, reason: "private" };
  return { ok: true, url, host };
}

export type OutboundTarget = { ok: true; url: string; addresses: string[] } | { ok: false; reason: OutboundRefusal; host?: string };

/**
 * The whole check: checkOutboundShape, then every address the host resolves to allowed. Answers the
 * addresses that passed: a caller that can connects to one of exactly these (never to a second
 * lookup's answer), so a name cannot be rebound in between.
 */
export async function resolveOutboundTarget(
  raw: string,
  rule: OutboundRule = {},
  resolve: Resolver = systemResolver,
): Promise<OutboundTarget> {
  const shape = checkOutboundShape(raw, rule);
  if (!shape.ok) return shape;
  const { url, host } = shape;
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = await resolve(host);
    } catch {
      return { ok: false, reason: "unresolved", host };
    }
  }
  if (!addresses.length || addresses.some((address) => isForbiddenTarget(address, rule))) return { ok: false, reason: "private", host };
  url.hash = "";
  return { ok: true, url: url.toString(), addresses };
}
