import { randomBytes } from "node:crypto";
import type { NextFunction, Request, Response } from "express";
import { SESSION_COOKIE } from "./cookies";

const SESSION_PRESENT = new RegExp(`(?:^|;)\\s*${SESSION_COOKIE}=[^;\\s]`);
const SETS_SESSION = new RegExp(`^${SESSION_COOKIE}=`);
/** Static files: the same bytes for everyone, so they keep their caching (unless a route marks them private). */
const STATIC_TYPES = /^(?:image\/|audio\/|video\/|font\/|text\/css|text\/javascript|application\/javascript)/i;

const NONCE_BYTES = 16;
/** Nonces drawn from the CSPRNG at a time: one call for 256 requests instead of one each (a call costs about 6 µs, 2% of an API call's CPU). */
const NONCES_PER_DRAW = 256;
let drawn = Buffer.alloc(0);
let used = 0;

/** A fresh CSP nonce: 16 bytes from the CSPRNG, base64, never handed out twice. */
export function cspNonce(): string {
  if (used + NONCE_BYTES > drawn.length) {
    drawn = randomBytes(NONCE_BYTES * NONCES_PER_DRAW);
    used = 0;
  }
  const nonce = drawn.toString("base64", used, used + NONCE_BYTES);
  used += NONCE_BYTES;
  return nonce;
}

/** Per-request nonce and an enforced Content-Security-Policy, plus the usual hardening headers. */
export function securityHeaders(options: {
  production: boolean;
  viteDev?: boolean;
  facebookSdkPaths?: string[];
  googlePickerPaths?: string[];
}) {
  return (req: Request, res: Response, next: NextFunction) => {
    const nonce = cspNonce();
    res.locals.cspNonce = nonce;
    const facebook = options.facebookSdkPaths?.includes(req.path) ?? false;
    const google = options.googlePickerPaths?.includes(req.path) ?? false;
    res.setHeader("Content-Security-Policy", contentSecurityPolicy(nonce, options.production, facebook, options.viteDev, google));
    res.setHeader("X-Frame-Options", "DENY");
    res.setHeader("Referrer-Policy", "strict-origin-when-cross-origin");
    res.setHeader("Cross-Origin-Opener-Policy", "same-origin-allow-popups");
    res.setHeader("Cross-Origin-Resource-Policy", "same-origin");
    res.setHeader("Permissions-Policy", "camera=(), microphone=(), geolocation=(), payment=()");
    if (options.production) res.setHeader("Strict-Transport-Security", "max-age=31536000; includeSubDomains");
    const asset = req.path.startsWith("/assets/");
    const signedIn = SESSION_PRESENT.test(req.get("cookie") ?? "");
    const writeHead = res.writeHead;
    // Decided when the headers go out, after the route (and React Router's adapter) set theirs.
    res.writeHead = function (this: Response, ...args: unknown[]) {
      // Here and only here: React Router's Express adapter appends a Response's headers to those set
      // so far, so a route's own nosniff beside one set earlier went out as two header lines.
      this.setHeader("X-Content-Type-Options", "nosniff");
      if (!asset && (signedIn || setsSession(this))) noStoreForOneUser(this);
      return (writeHead as (...a: unknown[]) => ReturnType<Response["writeHead"]>).apply(this, args);
    } as Response["writeHead"];
    next();
  };
}

function setsSession(res: Response) {
  return [res.getHeader("set-cookie") ?? []].flat().some((c) => SETS_SESSION.test(String(c)));
}

/**
 * A response to a browser that sends a session cookie (valid or not), or that sets one, is never
 * stored by a browser or proxy cache: pages, JSON, redirects and error pages alike, whatever the
 * route said. Deciding on the cookie rather than on a validated session needs no database and can
 * only err towards no-store. Static files (the same bytes for everyone) keep their caching; a
 * tenant's media, which its route marks `private`, do not: an inbox photo kept for a day would
 * outlive the sign-out on a shared computer.
 */
function noStoreForOneUser(res: Response) {
  const type = String(res.getHeader("content-type") ?? "");
  if (STATIC_TYPES.test(type) && !/\bprivate\b/i.test(String(res.getHeader("cache-control") ?? ""))) return;
  res.setHeader("Cache-Control", "private, no-store");
  res.removeHeader("Expires");
}

/**
 * `viteDev`: `npm run dev` (see above); never in a build.
 * `facebook`: the page that runs Meta's JavaScript SDK for Embedded Signup (loaded by a nonce'd
 * script, which 'strict-dynamic' trusts) needs Facebook's frames, images and API.
 * `google`: the page that opens Google's Picker (its loader added by a nonce'd script, decision 109)
 * needs Google's frames (the Picker is an iframe from docs.google.com), images and API.
 */
export function contentSecurityPolicy(nonce: string, production: boolean, facebook = false, viteDev = false, google = false) {
  const fb =
    (facebook ? " https://*.facebook.com https://*.facebook.net https://*.fbcdn.net" : "") +
    (google ? " https://*.google.com https://*.googleapis.com https://*.gstatic.com https://*.googleusercontent.com" : "");
  return [
    "default-src 'self'",
    `script-src 'nonce-${nonce}' 'strict-dynamic'`,
    // `npm run dev` only: Vite injects the stylesheets as <style> elements from script, which no
    // nonce can cover ('unsafe-inline' is ignored beside a nonce, so the nonce goes).
    viteDev ? "style-src 'self' 'unsafe-inline'" : `style-src 'self' 'nonce-${nonce}'`,
    // React renders style={...} props as attributes; attribute styles cannot run code.
    "style-src-attr 'unsafe-inline'",
    // blob: is a file the user chose in this page, previewed before it is sent (template samples).
    `img-src 'self' data: blob:${fb}`,
    "font-src 'self'",
    // `npm run dev` only: Vite's hot-update socket.
    `connect-src 'self'${viteDev ? " ws: wss:" : ""}${fb}`,
    ...(facebook || google
      ? [`frame-src${facebook ? " https://*.facebook.com" : ""}${google ? " https://docs.google.com https://drive.google.com" : ""}`]
      : []),
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "object-src 'none'",
    ...(production ? ["upgrade-insecure-requests"] : []),
  ].join("; ");
}
