import type { NextFunction, Request, Response } from "express";
import { sendError } from "./error-page";

/** First path segments that Express gives rules of their own (sandbox mounts, API and webhook exemptions). */
export const RESERVED_SEGMENTS = ["api", "sandbox", "webhooks"] as const;

const RESERVED = new Set<string>(RESERVED_SEGMENTS);

function firstSegment(path: string) {
  return path.split("/")[1] ?? "";
}

/** A path `new URL` keeps as it is: nothing to decode or percent-encode, no dot segment, no backslash or control character. */
const PLAIN_PATH = /^(?:\/(?!\.)[\w\-~!$&'()*+,;=:@.]*)*$/;

/** The path as React Router resolves it: dot segments removed (as `new URL` does), then decoded. */
function resolvedPath(path: string) {
  // Most paths: no URL to build (a tenth of a small JSON answer's middleware time).
  if (PLAIN_PATH.test(path)) return path;
  try {
    return decodeURIComponent(new URL(`http://local${path}`).pathname);
  } catch {
    return path;
  }
}

/**
 * Express matches its mounts and prefix checks case-sensitively on the raw path, while React Router
 * matches pages case-insensitively on the decoded path with dot segments resolved. Where the two
 * disagree about a reserved first segment (`/Sandbox/...`, `/%73andbox/...`, `/x/../api/...`,
 * `/sandbox/../profile`), the request would reach a route with the prefix's rules skipped or
 * misapplied: such a path is no page, 404. Other pages keep React Router's matching (`/Login`).
 */
export function exactReservedPrefixes() {
  return (req: Request, res: Response, next: NextFunction) => {
    const raw = firstSegment(req.path);
    const resolved = firstSegment(resolvedPath(req.path));
    const reserved = RESERVED.has(raw.toLowerCase()) || RESERVED.has(resolved.toLowerCase());
    if (reserved && !(raw === resolved && RESERVED.has(raw))) return sendError(req, res, 404, "Page not found.");
    next();
  };
}

/** The end of a prefix Express owns: what its routers did not answer is no page either. */
export function notFound(): (req: Request, res: Response) => void {
  return (req, res) => sendError(req, res, 404, "Page not found.");
}
