import { randomBytes } from "node:crypto";
import { decodeBase32IgnorePadding, encodeBase32UpperCaseNoPadding } from "@oslojs/encoding";
import { createTOTPKeyURI, generateHOTP, verifyHOTP } from "@oslojs/otp";

/**
 * Time-based one-time passwords as RFC 6238 defines them with the defaults every authenticator app
 * uses: HMAC-SHA1 over the count of 30-second steps since the epoch, truncated (RFC 4226) to 6 digits.
 * The arithmetic and the constant-time comparison are @oslojs/otp's; what stays here is the window of
 * neighbouring steps and the step a code matched, which the callers store so a code is good once.
 */
export const TOTP_DIGITS = 6;
export const TOTP_STEP_SECONDS = 30;
/** Steps either side of now a code may come from: one, for a phone clock up to 30 s off. */
export const TOTP_SKEW_STEPS = 1;

/** RFC 4648 base32 without padding (what otpauth:// links and authenticator apps expect). */
export function base32Encode(bytes: Uint8Array) {
  return encodeBase32UpperCaseNoPadding(bytes);
}

/** A new shared secret: 20 random bytes (160 bits, RFC 4226's recommended length), in base32. */
export function newTotpSecret() {
  return base32Encode(randomBytes(20));
}

/** The key a stored secret stands for; secrets typed by hand may carry spaces, dashes or lower case. */
function keyOf(secret: string) {
  return decodeBase32IgnorePadding(secret.toUpperCase().replace(/[\s-]/g, ""));
}

/** The time step of a moment. */
export function stepAt(timeMs: number) {
  return Math.floor(timeMs / 1000 / TOTP_STEP_SECONDS);
}

/** The code for one time step. */
export function codeForStep(secret: string, step: number) {
  return generateHOTP(keyOf(secret), BigInt(step), TOTP_DIGITS);
}

/**
 * The step a code belongs to when it is right for now give or take TOTP_SKEW_STEPS, else null.
 * Each comparison is constant-time and every candidate step is checked, so the time taken tells
 * neither how much of a code was right nor which step matched.
 */
export function matchingStep(secret: string, code: string, timeMs = Date.now()): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const key = keyOf(secret);
  const now = stepAt(timeMs);
  let found: number | null = null;
  for (let step = now - TOTP_SKEW_STEPS; step <= now + TOTP_SKEW_STEPS; step++) {
    if (verifyHOTP(key, BigInt(step), TOTP_DIGITS, code) && found === null) found = step;
  }
  return found;
}

/** The otpauth:// link an authenticator app reads from the QR code (Key Uri Format). */
export function otpauthUri(secret: string, account: string, issuer = "Jumbe") {
  return createTOTPKeyURI(issuer, account, keyOf(secret), TOTP_STEP_SECONDS, TOTP_DIGITS);
}
