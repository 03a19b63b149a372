import type { NextFunction, Request, Response } from "express";
import { matchRoutes, type RouteObject, type ServerBuild } from "react-router";
import { sendError } from "./error-page";

/** Pages and the cookie-authenticated API read with GET (and HEAD) and change things with POST only. */
export const ALLOWED_METHODS = ["GET", "HEAD", "POST"] as const;
const WITH_ACTION = "GET, HEAD, POST, OPTIONS";
const WITHOUT_ACTION = "GET, HEAD, OPTIONS";
// The public API answers PUT, PATCH and DELETE itself (405 in its own error format).
const API_V1_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);
const API_V1_ALLOW = [...API_V1_METHODS].join(", ");
// The admin console's pages and files (and React Router's /admin….data) answer anyone but a platform
// administrator 404 whatever the method (decision 037): these methods go on to its layout's guard,
// which answers them (404, or 405 to an administrator) instead of a 405 here that would say the address exists.
// The console's JSON (/api/admin/...) likewise: permission first, then method, then body (decision 101).
export const CONSOLE_PATH = /^\/(?:api\/)?admin(?:$|\/|\.data$)/;
const CONSOLE_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** Whether the route a path opens takes a POST (has an action), from the build's route manifest. */
/**
 * A refusal Express owes a console request (cross-origin, or not a form) but leaves to the console's
 * guard, so that anyone but a platform administrator gets the same 404 whatever the request carried;
 * the guard answers an administrator with it (`RequestInfo.consoleRefusal`).
 */
export interface DeferredRefusal {
  status: number;
  message: string;
}

/** Whether the refusal is left to the console's guard: an unsafe request to a console path. */
export function deferConsoleRefusal(req: Request, res: Response, refusal: DeferredRefusal) {
  if (!CONSOLE_PATH.test(req.path) || req.method === "GET" || req.method === "HEAD" || req.method === "OPTIONS") return false;
  res.locals.consoleRefusal ??= refusal;
  return true;
}

export type RouteLookup = (pathname: string) => { action: boolean } | undefined;

export function routeLookup(build: ServerBuild): RouteLookup {
  const children = new Map<string | undefined, RouteObject[]>();
  const toObject = (id: string): RouteObject => {
    const route = build.routes[id]!;
    const object = {
      id,
      path: route.path,
      index: route.index,
      caseSensitive: route.caseSensitive,
      children: children.get(id),
    } as RouteObject;
    return object;
  };
  // Children first, so each object is made once its children exist.
  const ids = Object.keys(build.routes);
  const depth = (id: string): number => (build.routes[id]?.parentId ? 1 + depth(build.routes[id]!.parentId!) : 0);
  for (const id of ids.sort((a, b) => depth(b) - depth(a))) {
    const parent = build.routes[id]!.parentId;
    children.set(parent, [...(children.get(parent) ?? []), toObject(id)]);
  }
  const tree = children.get(undefined) ?? [];
  // Matching flattens and ranks every route each time (about half a millisecond): remember the
  // answers for the paths posted to, a bounded number of them since paths come from anyone.
  const known = new Map<string, { action: boolean } | undefined>();
  const lookup: RouteLookup = (pathname) => {
    // React Router's own fetches: /path.data, /_root.data for "/", /path/_.data for a trailing slash.
    const data = pathname === "/_root.data" ? "/" : pathname.replace(/(\/_)?\.data$/, (m) => (m.startsWith("/") ? "/" : ""));
    // Dot segments resolved as React Router's URL (origin + path) resolves them: "/x/.." is "/".
    let page: string;
    try {
      page = new URL(`http://local${data}`).pathname;
    } catch {
      return undefined;
    }
    const matches = matchRoutes(tree, page);
    const leaf = matches?.at(-1)?.route.id;
    return leaf ? { action: typeof build.routes[leaf]?.module.action === "function" } : undefined;
  };
  return (pathname) => {
    if (known.has(pathname)) return known.get(pathname);
    const found = lookup(pathname);
    if (known.size >= 1000) known.clear();
    known.set(pathname, found);
    return found;
  };
}

/**
 * React Router runs a route's action for PUT, PATCH and DELETE as well as POST, so `PUT /logout`
 * signed out; TRACE made it throw; other methods, and a POST to a page without an action, came
 * back as React Router's 405 with a stack trace in development. Only GET, HEAD and POST (to a
 * route with an action) get through; OPTIONS is answered with `Allow` (no CORS: the site is
 * same-origin only). The sandboxes keep their own routers.
 */
export function allowedMethods(options: { exempt: (path: string) => boolean; routes?: RouteLookup }) {
  return (req: Request, res: Response, next: NextFunction) => {
    if (options.exempt(req.path)) return next();
    if (req.path.startsWith("/api/v1/")) {
      if (API_V1_METHODS.has(req.method)) return next();
      return sendError(req, res, 405, "Method not allowed.", { Allow: API_V1_ALLOW });
    }
    // Reads go straight on: the route lookup (React Router's matcher over every route) is only
    // needed to tell a POST, OPTIONS or a refused method which methods the path takes.
    if (req.method === "GET" || req.method === "HEAD") return next();
    if (CONSOLE_PATH.test(req.path) && CONSOLE_METHODS.has(req.method)) return next();
    const route = options.routes?.(req.path);
    const allow = !route || route.action ? WITH_ACTION : WITHOUT_ACTION;
    if (req.method === "POST" && allow === WITH_ACTION) return next();
    if (req.method === "OPTIONS") return void res.status(204).set({ Allow: allow, "Cache-Control": "no-store" }).end();
    sendError(req, res, 405, "Method not allowed.", { Allow: allow });
  };
}

const HOST = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*\.?|\[[0-9a-f:.]+\])(?::(\d{1,5}))?$/i;

function validHost(value: string) {
  const match = HOST.exec(value);
  return !!match && (match[1] === undefined || Number(match[1]) <= 65535);
}

/**
 * React Router builds each request's URL from Host (or X-Forwarded-Host and -Proto, which Express
 * honours from trusted proxies); a value that makes no URL threw "Invalid URL", a 500.
 */
export function requireValidHost() {
  return (req: Request, res: Response, next: NextFunction) => {
    const host = req.headers.host;
    const forwardedHost = req.headers["x-forwarded-host"];
    const forwardedProto = req.headers["x-forwarded-proto"];
    if (!host || !validHost(host)) return sendError(req, res, 400, "Bad request: the Host header is not valid.");
    if (
      forwardedHost !== undefined &&
      !String(forwardedHost)
        .split(",")
        .every((h) => validHost(h.trim()))
    )
      return sendError(req, res, 400, "Bad request: the X-Forwarded-Host header is not valid.");
    if (
      forwardedProto !== undefined &&
      !String(forwardedProto)
        .split(",")
        .every((p) => /^https?$/i.test(p.trim()))
    )
      return sendError(req, res, 400, "Bad request: the X-Forwarded-Proto header is not valid.");
    next();
  };
}
