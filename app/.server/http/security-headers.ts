import { randomBytes } from "node:crypto";
import type { NextFunction, Request, Response } from "express";

/** Per-request nonce and an enforced Content-Security-Policy, plus the usual hardening headers. */
export function securityHeaders(options: { production: boolean; facebookSdkPaths?: string[] }) {
  return (req: Request, res: Response, next: NextFunction) => {
    const nonce = randomBytes(16).toString("base64");
    res.locals.cspNonce = nonce;
    const facebook = options.facebookSdkPaths?.includes(req.path) ?? false;
    res.setHeader("Content-Security-Policy", contentSecurityPolicy(nonce, options.production, facebook));
    res.setHeader("X-Content-Type-Options", "nosniff");
    res.setHeader("X-Frame-Options", "DENY");
    res.setHeader("Referrer-Policy", "strict-origin-when-cross-origin");
    res.setHeader("Cross-Origin-Opener-Policy", "same-origin-allow-popups");
    res.setHeader("Cross-Origin-Resource-Policy", "same-origin");
    res.setHeader("Permissions-Policy", "camera=(), microphone=(), geolocation=(), payment=()");
    if (options.production) res.setHeader("Strict-Transport-Security", "max-age=31536000; includeSubDomains");
    next();
  };
}

/**
 * `facebook`: the page that runs Meta's JavaScript SDK for Embedded Signup (loaded by a nonce'd
 * script, which 'strict-dynamic' trusts) needs Facebook's frames, images and API.
 */
export function contentSecurityPolicy(nonce: string, production: boolean, facebook = false) {
  const fb = facebook ? " https://*.facebook.com https://*.facebook.net https://*.fbcdn.net" : "";
  return [
    "default-src 'self'",
    `script-src 'nonce-${nonce}' 'strict-dynamic'`,
    `style-src 'self' 'nonce-${nonce}'`,
    // React renders style={...} props as attributes; attribute styles cannot run code.
    "style-src-attr 'unsafe-inline'",
    `img-src 'self' data:${fb}`,
    "font-src 'self'",
    `connect-src 'self'${fb}`,
    ...(facebook ? [`frame-src https://*.facebook.com`] : []),
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "object-src 'none'",
    ...(production ? ["upgrade-insecure-requests"] : []),
  ].join("; ");
}
