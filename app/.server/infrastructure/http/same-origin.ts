import type { NextFunction, Request, Response } from "express";
import { deferConsoleRefusal } from "./methods";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

function originOf(url: string) {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

/**
 * Whether an unsafe request comes from Jumbe's own pages. `Origin` decides when it is sent (every
 * current browser sends it on POST); without it, `Sec-Fetch-Site` (the browser's own verdict, so it
 * wins over Referer), then a same-origin `Referer`. A request that shows none of them is refused.
 */
function fromOwnPages(req: Request, appOrigin: string) {
  const origin = req.get("origin");
  if (origin) return origin === appOrigin;
  const site = req.get("sec-fetch-site");
  if (site) return site === "same-origin";
  return originOf(req.get("referer") ?? "") === appOrigin;
}

/**
 * CSRF defence (docs/decisions/003): SameSite=Lax cookies, plus proof of a same-origin page
 * (Origin, else Sec-Fetch-Site, else Referer) on every unsafe request; JSON calls must also send
 * JSON and an Origin. "Same origin" is APP_URL's origin, never one built from the request's Host:
 * the client writes Host (and X-Forwarded-Host, which a trusted proxy may pass on), so a forged
 * Host would vouch for the Origin it came with. Pages opened at another host answer 421 (decision 012).
 */
export function requireSameOrigin(options: { appUrl: string | (() => string); exempt: (path: string) => boolean }) {
  return (req: Request, res: Response, next: NextFunction) => {
    if (SAFE_METHODS.has(req.method) || options.exempt(req.path)) return next();
    const forbidden = () => res.status(403).json({ message: "Forbidden: cross-origin request refused." });
    // Read per request: with PORT=0 the server learns its port, and so APP_URL, after it listens.
    const appOrigin = new URL(typeof options.appUrl === "function" ? options.appUrl() : options.appUrl).origin;
    if (!fromOwnPages(req, appOrigin)) {
      // The console's guard answers it: 404 to anyone but an administrator, this refusal to one.
      if (deferConsoleRefusal(req, res, { status: 403, message: "Forbidden: cross-origin request refused." })) return next();
      return forbidden();
    }
    if (req.path.startsWith("/api/")) {
      if (!req.get("origin")) {
        if (deferConsoleRefusal(req, res, { status: 403, message: "Forbidden: cross-origin request refused." })) return next();
        return forbidden();
      }
      if (!/^application\/json\b/i.test(req.get("content-type") ?? "")) {
        // The console's JSON: its guard answers 404 to anyone but an administrator, whatever the body.
        if (deferConsoleRefusal(req, res, { status: 415, message: "Content-Type must be application/json." })) return next();
        return res.status(415).json({ message: "Content-Type must be application/json." });
      }
    }
    next();
  };
}
