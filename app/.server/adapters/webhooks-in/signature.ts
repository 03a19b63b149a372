import { createHmac, timingSafeEqual } from "node:crypto";

const HEADER = /^sha256=([0-9a-f]{64})$/i;

/**
 * Meta signs the exact bytes it sends (HMAC-SHA256 with the app secret). The check runs over the
 * raw body: parsing and re-serialising would change escaped non-ASCII characters and break it.
 */
export function isValidSignature(rawBody: Buffer, header: string | undefined, appSecret: string) {
  const match = header ? HEADER.exec(header.trim()) : null;
  if (!match) return false;
  const expected = createHmac("sha256", appSecret).update(rawBody).digest();
  const given = Buffer.from(match[1]!, "hex");
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export function signatureFor(rawBody: Buffer | string, appSecret: string) {
  return `sha256=${createHmac("sha256", appSecret).update(rawBody).digest("hex")}`;
}
