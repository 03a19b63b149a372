import ipaddr from "ipaddr.js";

/**
 * The subject a per-IP rate limit counts against. One IPv6 subscriber usually holds a whole /64
 * and can pick any address in it, so IPv6 counts per /64; an IPv4-mapped IPv6 address
 * (`::ffff:203.0.113.7`, how a dual-stack socket reports IPv4 clients) counts as its IPv4 address.
 * Anything that does not parse is counted as given, lower-cased.
 */
export function ipRateSubject(ip: string): string {
  const value = ip.trim();
  if (!ipaddr.isValid(value)) return value.toLowerCase();
  const parsed = ipaddr.process(value);
  if (parsed.kind() === "ipv4") return parsed.toString();
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4).map((part) => part.toString(16));
  return `${parts.join(":")}::/64`;
}
