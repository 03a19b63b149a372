import { createHash, createHmac, randomBytes, randomInt, randomUUID } from "node:crypto";

/** HTML-escapes text for element content and quoted attribute values. */
export const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

/**
 * JSON as Meta sends it: JSON.stringify, then every non-ASCII UTF-16 code unit as a lowercase
 * `\uXXXX` escape (an emoji becomes its two surrogate escapes) and "/" as "\/", like PHP's
 * json_encode. "/" never appears outside strings in JSON, so escaping it everywhere is safe.
 */
export function serializeLikeMeta(body: unknown): string {
  const json = JSON.stringify(body);
  if (json === undefined) throw new TypeError("serializeLikeMeta: the body is not JSON-serialisable");
  return json.replace(/[\u0080-\uffff/]/g, (c) => (c === "/" ? "\\/" : `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`));
}

/** The X-Hub-Signature-256 header value: HMAC-SHA256 of the exact bytes, keyed with the app secret. */
export function signPayload(bytes: string | Buffer, appSecret: string): string {
  return `sha256=${createHmac("sha256", appSecret).update(bytes).digest("hex")}`;
}

/** A Graph-style numeric id: 15 or 16 digits, no leading zero. */
export function randomNumericId(): string {
  const length = randomInt(15, 17);
  let id = String(randomInt(1, 10));
  while (id.length < length) id += String(randomInt(0, 10));
  return id;
}

/**
 * A template id: 16 digits below Number.MAX_SAFE_INTEGER, like Meta's, because webhooks carry it
 * as a JSON number and a receiver's JSON.parse must read it back exactly.
 */
export function newTemplateId(): string {
  let id = String(randomInt(1, 9));
  while (id.length < 16) id += String(randomInt(0, 10));
  return id;
}

/** A 16-digit numeric id derived from a seed, so the demo business keeps its ids across restarts. */
export function stableNumericId(seed: string): string {
  const hash = createHash("sha256").update(`jumbe-meta-sandbox:${seed}`).digest();
  const value = hash.readBigUInt64BE(0) % 9_000_000_000_000_000n;
  return (value + 1_000_000_000_000_000n).toString();
}

/** A long business token shaped like Meta's ("EAA…"). */
export const newAccessToken = () => `EAA${randomBytes(150).toString("base64url")}`;

/** An Embedded Signup authorization code. */
export const newAuthCode = () => `AQ${randomBytes(96).toString("base64url")}`;

/**
 * Random bytes for the ids made on every Graph call (wamids, trace ids): taken from a pool that
 * one call to the operating system's generator refills, rather than one such call per id, which
 * was the sandbox's largest cost per message after HTTP itself.
 */
const POOL_BYTES = 8192;
let pool = Buffer.alloc(0);
let poolAt = POOL_BYTES;
export function pooledRandomBytes(size: number): Buffer {
  if (size > POOL_BYTES) return randomBytes(size);
  if (poolAt + size > pool.length) {
    pool = randomBytes(POOL_BYTES);
    poolAt = 0;
  }
  const bytes = pool.subarray(poolAt, poolAt + size);
  poolAt += size;
  return bytes;
}

/** "wamid." and base64 of random bytes (36 bytes: no padding). */
export const newWamid = () => `wamid.${pooledRandomBytes(36).toString("base64")}`;

/** fbtrace_id / x-fb-trace-id: 11 base64url-ish characters like Meta's. */
export const newTraceId = () => pooledRandomBytes(9).toString("base64").replace(/[+/]/g, "A").slice(0, 11);

export const newTemplateNamespace = () => randomUUID().replace(/-/g, "_");

export const digitsOnly = (value: string) => value.replace(/\D/g, "");

/** Graph's formatted display number: "+254 711 000 001", "+1 631-555-5555", else "+<digits>". */
export function formatDisplayNumber(input: string): string {
  const d = digitsOnly(input);
  if (/^(254|255|256|250|257|211|251)\d{9}$/.test(d)) return `+${d.slice(0, 3)} ${d.slice(3, 6)} ${d.slice(6, 9)} ${d.slice(9)}`;
  if (/^1\d{10}$/.test(d)) return `+1 ${d.slice(1, 4)}-${d.slice(4, 7)}-${d.slice(7)}`;
  if (/^44\d{10}$/.test(d)) return `+44 ${d.slice(2, 6)} ${d.slice(6)}`;
  return `+${d}`;
}

/** A phone number a person typed: 8 to 15 digits, optionally with "+", spaces, dashes, dots, brackets. */
export const isPlausiblePhone = (input: string) => /^\+?[\d\s().-]+$/.test(input.trim()) && /^\d{8,15}$/.test(digitsOnly(input));

export const unixSeconds = (ms: number) => Math.floor(ms / 1000);

/** JSON for inside an inline <script>: no "</script>", no HTML comment openers, no line separators. */
export const scriptJson = (value: unknown) =>
  JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);

/** An absolute http(s) URL, or null. */
export function parseHttpUrl(value: unknown): URL | null {
  if (typeof value !== "string" || value.length > 2048) return null;
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:" ? url : null;
  } catch {
    return null;
  }
}
