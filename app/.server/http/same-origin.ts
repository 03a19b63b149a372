import type { NextFunction, Request, Response } from "express";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

function sameOrigin(origin: string, req: Request, appUrl: string) {
  if (origin === new URL(appUrl).origin) return true;
  const host = req.get("host");
  return !!host && origin === `${req.protocol}://${host}`;
}

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
function fromOwnPages(req: Request, appUrl: string) {
  const origin = req.get("origin");
  if (origin) return origin !== "null" && sameOrigin(origin, req, appUrl);
  const site = req.get("sec-fetch-site");
  if (site) return site === "same-origin";
  const referer = originOf(req.get("referer") ?? "");
  return !!referer && referer !== "null" && sameOrigin(referer, req, appUrl);
}

/**
 * CSRF defence (docs/decisions/003): SameSite=Lax cookies, plus proof of a same-origin page
 * (Origin, else Sec-Fetch-Site, else Referer) on every unsafe request; JSON calls must also send
 * JSON and an Origin.
 */
export function requireSameOrigin(options: { appUrl: string; exempt: (path: string) => boolean }) {
  return (req: Request, res: Response, next: NextFunction) => {
    if (SAFE_METHODS.has(req.method) || options.exempt(req.path)) return next();
    const forbidden = () => res.status(403).json({ message: "Forbidden: cross-origin request refused." });
    if (!fromOwnPages(req, options.appUrl)) return forbidden();
    if (req.path.startsWith("/api/")) {
      if (!req.get("origin")) return forbidden();
      if (!/^application\/json\b/i.test(req.get("content-type") ?? ""))
        return res.status(415).json({ message: "Content-Type must be application/json." });
    }
    next();
  };
}
