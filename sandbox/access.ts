import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import express, { type NextFunction, type Request, type RequestHandler, type Response } from "express";

/** Scripts and tests send the token in this header (or as `Authorization: Bearer`). */
export const SANDBOX_TOKEN_HEADER = "x-sandbox-token";
/** The console's cookie after the token form: an HMAC of the token, never the token itself. */
export const SANDBOX_TOKEN_COOKIE = "jumbe_sandbox";
const COOKIE_PATH = "/sandbox";

const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

const digest = (value: string) => createHash("sha256").update(value).digest();
const same = (a: string, b: string) => timingSafeEqual(digest(a), digest(b));

function cookieValue(req: Request) {
  for (const part of (req.headers.cookie ?? "").split(";")) {
    const [name, ...rest] = part.trim().split("=");
    if (name === SANDBOX_TOKEN_COOKIE) return rest.join("=");
  }
  return undefined;
}

/** A sandbox page to go back to after the token form: a path under /sandbox/, nothing else. */
function safeNext(value: unknown, fallback: string) {
  if (typeof value !== "string" || !value.startsWith("/sandbox/") || value.startsWith("//")) return fallback;
  try {
    const url = new URL(value, "http://local");
    return url.origin === "http://local" && url.pathname.startsWith("/sandbox/") && url.pathname === value.split("?")[0] ? value : fallback;
  } catch {
    return fallback;
  }
}

export interface SandboxGate {
  /** JSON endpoints: 401 `{ message }` without the token. */
  json: RequestHandler;
  /** HTML pages and their forms: the token form (401) without it. */
  page: RequestHandler;
  /** POST handler of the token form: sets the cookie and goes back to the page. */
  login: RequestHandler[];
}

/**
 * Access to the sandbox's state-changing and secret-showing parts (control API, console, mail
 * outbox) on a demo host, where SANDBOX_CONTROL_TOKEN is set (decision 012). Without a token
 * (development, tests) everything passes. The console's HTML forms cannot send a header, so the
 * token form sets an HttpOnly, SameSite=Strict cookie scoped to /sandbox; a post carrying the
 * cookie must also come from this origin.
 */
export function sandboxGate(options: { token?: string; secureCookie?: boolean; loginPath: string; home: string }): SandboxGate {
  const { token } = options;
  const cookieToken = token ? createHmac("sha256", token).update("jumbe sandbox console").digest("hex") : "";

  const byHeader = (req: Request) => {
    if (!token) return true;
    const header = req.get(SANDBOX_TOKEN_HEADER);
    const bearer = /^Bearer\s+(.+)$/i.exec(req.get("authorization") ?? "")?.[1];
    return (header !== undefined && same(header, token)) || (bearer !== undefined && same(bearer, token));
  };
  const byCookie = (req: Request) => {
    const value = cookieValue(req);
    return !!token && value !== undefined && same(value, cookieToken);
  };
  // SameSite=Strict keeps other sites' posts from carrying the cookie; this also refuses sibling origins.
  const crossOrigin = (req: Request) => {
    const origin = req.get("origin");
    return req.method !== "GET" && req.method !== "HEAD" && !!origin && origin !== `${req.protocol}://${req.get("host")}`;
  };

  const json: RequestHandler = (req, res, next) => {
    if (byHeader(req)) return next();
    if (byCookie(req)) return crossOrigin(req) ? void res.status(403).json({ message: "Cross-origin request refused." }) : next();
    res
      .status(401)
      .set({ "WWW-Authenticate": 'Bearer realm="jumbe-sandbox"', "Cache-Control": "no-store" })
      .json({ message: "The sandbox control API needs the SANDBOX_CONTROL_TOKEN: send it in the X-Sandbox-Token header." });
  };

  const page: RequestHandler = (req, res, next) => {
    if (byHeader(req)) return next();
    if (byCookie(req))
      return crossOrigin(req) ? tokenPage(res, 403, options.loginPath, req.originalUrl, "Cross-origin request refused.") : next();
    tokenPage(res, 401, options.loginPath, req.method === "GET" ? req.originalUrl : options.home);
  };

  const login: RequestHandler[] = [
    express.urlencoded({ extended: false, limit: "4kb" }),
    (req: Request, res: Response, next: NextFunction) => {
      if (!token) return next();
      const body = (req.body ?? {}) as Record<string, unknown>;
      const back = safeNext(body.next, options.home);
      if (typeof body.token !== "string" || !same(body.token, token))
        return tokenPage(res, 401, options.loginPath, back, "That is not this host's sandbox token.");
      const secure = options.secureCookie ? "; Secure" : "";
      res.setHeader("Set-Cookie", `${SANDBOX_TOKEN_COOKIE}=${cookieToken}; Path=${COOKIE_PATH}; HttpOnly; SameSite=Strict${secure}`);
      res.redirect(303, back);
    },
  ];

  return { json, page, login };
}

function tokenPage(res: Response, status: number, action: string, next: string, error?: string) {
  const nonce = escapeHtml(String(res.locals.cspNonce ?? ""));
  res
    .status(status)
    .set({ "Cache-Control": "no-store" })
    .type("html")
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="referrer" content="no-referrer"><title>Sandbox token · Jumbe</title>` +
        `<style nonce="${nonce}">body{font:15px/1.5 system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem;color:#0f172a}label{display:block;font-weight:600;margin:1rem 0 .25rem}input{font:inherit;width:100%;box-sizing:border-box;padding:.5rem;border:1px solid #94a3b8;border-radius:.375rem}button{font:inherit;font-weight:600;margin-top:1rem;padding:.5rem 1rem;border:0;border-radius:.375rem;background:#059669;color:#fff}.error{border-left:4px solid #b91c1c;background:#fef2f2;padding:.5rem .75rem}</style></head>` +
        `<body><main><h1>Sandbox token</h1><p>This demo host's sandbox (console, control API, mail outbox) needs its <code>SANDBOX_CONTROL_TOKEN</code>.</p>` +
        (error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : "") +
        `<form method="post" action="${escapeHtml(action)}"><input type="hidden" name="next" value="${escapeHtml(next)}">` +
        `<label for="sandbox-token">Token</label><input type="password" id="sandbox-token" name="token" autocomplete="current-password" required>` +
        `<button type="submit">Open the sandbox</button></form></main></body></html>`,
    );
}
