import { createCookie } from "react-router";
import { parseCookie } from "cookie";
import { env } from "../config/env";

export const SESSION_COOKIE = "jumbe_session";

function secure() {
  return env().production || env().APP_URL.startsWith("https://");
}

/** Serialises the session cookie: a browser-session cookie unless `maxAgeSeconds` is given. */
export function sessionCookieHeader(token: string, maxAgeSeconds?: number) {
  const parts = [`${SESSION_COOKIE}=${token}`, "Path=/", "HttpOnly", "SameSite=Lax"];
  if (maxAgeSeconds !== undefined) parts.push(`Max-Age=${maxAgeSeconds}`);
  if (secure()) parts.push("Secure");
  return parts.join("; ");
}

/** The visitor's language (decision 071): readable by nothing but the server, kept a year. */
export const LOCALE_COOKIE = "lng";
export function localeCookieHeader(locale: string) {
  const parts = [`${LOCALE_COOKIE}=${locale}`, "Path=/", `Max-Age=${365 * 24 * 60 * 60}`, "HttpOnly", "SameSite=Lax"];
  if (secure()) parts.push("Secure");
  return parts.join("; ");
}

/**
 * The primary's WAL position after the person's last write, signed (decision 163): their reads wait
 * for nothing, they go to the primary until the replica has replayed past it. Short-lived.
 */
export const WRITE_MARK_COOKIE = "jumbe_wrote";
export function writeMarkCookieHeader(value: string, maxAgeSeconds: number) {
  const parts = [`${WRITE_MARK_COOKIE}=${value}`, "Path=/", `Max-Age=${maxAgeSeconds}`, "HttpOnly", "SameSite=Lax"];
  if (secure()) parts.push("Secure");
  return parts.join("; ");
}

export function clearSessionCookieHeader() {
  return sessionCookieHeader("", 0);
}

/** A cookie's value; one that does not decode, or decodes to a control character, is treated as absent. */
export function readCookie(request: Request, name: string) {
  const header = request.headers.get("cookie");
  if (!header) return undefined;
  return parseCookie(header, { decode: decodeOrNothing })[name];
}

function decodeOrNothing(value: string): string | undefined {
  let decoded: string;
  try {
    decoded = value.includes("%") ? decodeURIComponent(value) : value;
  } catch {
    return undefined;
  }
  for (let i = 0; i < decoded.length; i++) {
    const code = decoded.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return undefined;
  }
  return decoded;
}

let signed: ReturnType<typeof buildSignedCookies> | undefined;

function buildSignedCookies() {
  const options = { path: "/", httpOnly: true, sameSite: "lax" as const, secure: secure(), secrets: [env().SESSION_SECRET] };
  return {
    // The spec names this cookie: it carries the e-mail from sign-up to verification (one day).
    otpEmail: createCookie("otp_email", { ...options, maxAge: 60 * 60 * 24 }),
    resetEmail: createCookie("reset_email", { ...options, maxAge: 60 * 30 }),
    toast: createCookie("jumbe_toast", { ...options, maxAge: 60 }),
    sidebar: createCookie("jumbe_sidebar", { ...options, httpOnly: false, secrets: undefined, maxAge: 60 * 60 * 24 * 365 }),
  };
}

export function signedCookies() {
  signed ??= buildSignedCookies();
  return signed;
}
