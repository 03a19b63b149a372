import type { NextFunction, Request, Response } from "express";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

function sameOrigin(origin: string, req: Request, appUrl: string) {
  if (origin === new URL(appUrl).origin) return true;
  const host = req.get("host");
  return !!host && (origin === `${req.protocol}://${host}`);
}

/**
 * CSRF defence (docs/decisions/003): SameSite=Lax cookies, plus a same-origin Origin on every
 * unsafe request that carries one; cookie-authenticated JSON calls must send JSON and an Origin.
 */
export function requireSameOrigin(options: { appUrl: string; exempt: (path: string) => boolean }) {
  return (req: Request, res: Response, next: NextFunction) => {
    if (SAFE_METHODS.has(req.method) || options.exempt(req.path)) return next();
    const origin = req.get("origin");
    const forbidden = (message: string) => res.status(403).json({ message });
    if (origin && origin !== "null" && !sameOrigin(origin, req, options.appUrl)) return forbidden("Forbidden: cross-origin request refused.");
    if (req.path.startsWith("/api/")) {
      if (!origin || origin === "null") return forbidden("Forbidden: cross-origin request refused.");
      if (!/^application\/json\b/i.test(req.get("content-type") ?? "")) return res.status(415).json({ message: "Content-Type must be application/json." });
    } else if (origin === "null") {
      return forbidden("Forbidden: cross-origin request refused.");
    }
    next();
  };
}
