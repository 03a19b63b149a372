import { env } from "../../infrastructure/config/env";
import { constantTimeEqual, keyedHash } from "../../infrastructure/security/crypto";
import { readCookie } from "../../infrastructure/http/cookies";

/**
 * "Known device" cookies (decision 013): a browser that signed in to an account before keeps
 * signing in to it while strangers' failed guesses have locked the account for unknown browsers.
 * Stateless: `<userId>.<issuedAt>.<mac>`, where the mac (keyed with SESSION_SECRET) also covers
 * the time of the last password change, so a password change or reset forgets every device.
 */
export const DEVICE_COOKIE = "jumbe_device";
const DEVICE_MAX_AGE_SECONDS = 180 * 24 * 60 * 60;

interface DeviceOwner {
  id: string;
  passwordChangedAt: Date | null;
}

function mac(user: DeviceOwner, issuedAt: number) {
  return keyedHash(`${user.id}.${issuedAt}.${user.passwordChangedAt?.getTime() ?? 0}`, "known-device");
}

/** The Set-Cookie header that makes this browser a known device of `user`. */
export function knownDeviceCookieHeader(user: DeviceOwner) {
  const issuedAt = Math.floor(Date.now() / 1000);
  const parts = [
    `${DEVICE_COOKIE}=${user.id}.${issuedAt}.${mac(user, issuedAt)}`,
    "Path=/",
    "HttpOnly",
    "SameSite=Lax",
    `Max-Age=${DEVICE_MAX_AGE_SECONDS}`,
  ];
  if (env().production || env().APP_URL.startsWith("https://")) parts.push("Secure");
  return parts.join("; ");
}

export function deviceCookieValue(request: Request) {
  return readCookie(request, DEVICE_COOKIE);
}

/**
 * The device's id (its mac, which names its own failure bucket) when `value` is a valid, unexpired
 * device cookie of `user`; null otherwise.
 */
export function knownDeviceId(value: string | undefined, user: DeviceOwner): string | null {
  const match = value?.match(/^([0-9a-f-]{1,64})\.(\d{1,12})\.([0-9a-f]{64})$/);
  if (!match || match[1] !== user.id) return null;
  const issuedAt = Number(match[2]);
  const age = Date.now() / 1000 - issuedAt;
  if (age < -300 || age > DEVICE_MAX_AGE_SECONDS) return null;
  return constantTimeEqual(mac(user, issuedAt), match[3]!) ? match[3]! : null;
}
