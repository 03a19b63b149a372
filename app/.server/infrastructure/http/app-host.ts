import type { NextFunction, Request, Response } from "express";

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

// Machines, not people, ask for these; the Graph stand-in is called at 127.0.0.1 by the server itself.
const EXEMPT = ["/healthz", "/readyz", "/assets/", "/webhooks/", "/api/", "/sandbox/meta/graph/"];

/** host[:port] as a browser writes it for this protocol: lower case, default port left out. */
function normalHost(protocol: string, host: string) {
  try {
    return new URL(`${protocol}//${host}`).host;
  } catch {
    return undefined;
  }
}

let lastAppUrl: { text: string; url: URL } | undefined;
/** APP_URL parsed once for as long as it stays the same. */
function parsedAppUrl(text: string) {
  if (lastAppUrl?.text !== text) lastAppUrl = { text, url: new URL(text) };
  return lastAppUrl.url;
}

/**
 * Pages opened at another host than APP_URL's break in ways a user cannot diagnose: Embedded
 * Signup's postMessage and redirect go to APP_URL, `form-action 'self'` blocks the no-JavaScript
 * Finish, sign-in links jump hosts and the session cookie stays behind. A browser asking for a page
 * (GET or HEAD with Accept text/html) at another host gets 421 Misdirected Request and a short page
 * naming APP_URL, with a link to the same path there. The host is the one React Router sees: Host,
 * or X-Forwarded-Host from a trusted proxy. See decision 012.
 */
export function appHostOnly(options: { appUrl: string | (() => string) }) {
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.method !== "GET" && req.method !== "HEAD") return next();
    if (!/\btext\/html\b/i.test(req.get("accept") ?? "")) return next();
    if (EXEMPT.some((prefix) => req.path === prefix.replace(/\/$/, "") || req.path.startsWith(prefix))) return next();
    // React Router's own data requests (`/path.data`) are fetches of the page already open.
    if (req.path.endsWith(".data")) return next();
    // Read per request: with PORT=0 the server learns its port, and so APP_URL, after it listens.
    const app = parsedAppUrl(typeof options.appUrl === "function" ? options.appUrl() : options.appUrl);
    const host = req.host ?? "";
    if (normalHost(app.protocol, host) === app.host) return next();
    const target = `${app.origin}${req.originalUrl.startsWith("/") ? req.originalUrl : "/"}`;
    const nonce = escapeHtml(String(res.locals.cspNonce ?? ""));
    const style =
      "body{margin:0;min-height:100vh;display:flex;align-items:center;justify-content:center;background:#f8fafc;color:#0f172a;font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif}" +
      "main{max-width:32rem;margin:1.5rem;padding:2rem;border:1px solid #e2e8f0;border-radius:.75rem;background:#fff}h1{font-size:1.25rem;margin:0 0 .75rem}p{color:#475569;margin:.75rem 0}" +
      "a{color:#047857;font-weight:600;word-break:break-all}code{font-size:.9em;word-break:break-all}";
    res
      .status(421)
      .set({ "Cache-Control": "no-store" })
      .type("html")
      .send(
        req.method === "HEAD"
          ? ""
          : `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><title>Open Jumbe at ${escapeHtml(app.origin)}</title><style nonce="${nonce}">${style}</style></head>` +
              `<body><main role="alert"><h1>Jumbe is set up for ${escapeHtml(app.origin)}</h1>` +
              `<p>You opened it at ${escapeHtml(host || "an unnamed host")}. Sign-in, links and WhatsApp signup only work at the address Jumbe is set up for. Continue at <a href="${escapeHtml(target)}">${escapeHtml(target)}</a></p>` +
              `<p>To use this address instead, start Jumbe with <code>APP_URL=${escapeHtml(`${req.protocol}://${host}`)}</code>.</p></main></body></html>`,
      );
  };
}
