import type { NextFunction, Request, Response } from "express";
import { log } from "../log";
import { REQUEST_ID_HEADER, requestIdOf } from "./request-id";

/**
 * Answers that Express gives before (or instead of) React Router: refused methods, content types
 * and bodies, and errors nobody else handled. `/api/...` gets the API's `{ "message" }`; pages get
 * a short page of the product's own. Never a stack trace, in any mode.
 */
export function sendError(
  req: Request,
  res: Response,
  status: number,
  message: string,
  headers: Record<string, string> = {},
  page?: PageWords,
  apiCode?: string,
) {
  if (res.headersSent) return void res.end();
  res.status(status).set({ ...headers, "Cache-Control": "no-store" });
  if (isPublicApi(req) && publicApiProblem)
    return sendProblem(req, res, publicApiProblem(status, message, answerRequestId(req, res), apiCode));
  if (wantsJson(req))
    return void res.json(isPublicApi(req) ? { code: apiCode ?? API_CODES[status] ?? "invalid_request", message } : { message });
  res.type("html").send(req.method === "HEAD" ? "" : errorPage(status, message, res.locals.cspNonce as string | undefined, page));
}

/** A page's words in the visitor's language, where the answer has them (the outage pages); English otherwise. */
export interface PageWords {
  lang: string;
  title: string;
  message: string;
  home: string;
}

/** The public API's error document for a status Express answers on its paths, with the code when the caller knows it. */
export type PublicApiProblem = (
  status: number,
  message: string,
  requestId: string,
  code?: string,
) => { status: number; code: string } & Record<string, unknown>;

let publicApiProblem: PublicApiProblem | null = null;

/**
 * Errors Express gives on /api/v1 before the API runs (a body too large, a refused method, an
 * outage) answer the API's own problem document (application/problem+json, a code of its published
 * catalogue, the request's id): the API's adapter registers how (adapters/api-v1/serve.ts), as this
 * layer does not know the catalogue.
 */
export function answerPublicApiErrorsWith(problem: PublicApiProblem) {
  publicApiProblem = problem;
}

/** Before the adapter is loaded (never in the server): the code alone. */
const API_CODES: Record<number, string> = {
  404: "not_found",
  405: "method_not_allowed",
  413: "payload_too_large",
  503: "service_unavailable",
};

function sendProblem(req: Request, res: Response, problem: ReturnType<PublicApiProblem>) {
  const body = Buffer.from(JSON.stringify(problem));
  // Exactly the API's content type, which Express's send would give a charset.
  res.status(problem.status).set({ "Content-Type": "application/problem+json", "Content-Length": String(body.length) });
  res.end(req.method === "HEAD" ? undefined : body);
}

/** The request's id (request-id.ts put a well-formed one on every request and its answer; one made here otherwise). */
function answerRequestId(req: Request, res: Response) {
  const incoming = req.headers[REQUEST_ID_HEADER];
  const id = requestIdOf(typeof incoming === "string" ? incoming : undefined);
  res.set("X-Request-Id", id);
  return id;
}

function isPublicApi(req: Request) {
  return req.path === "/api/v1" || req.path.startsWith("/api/v1/");
}

function wantsJson(req: Request) {
  return req.path.startsWith("/api/") || req.path === "/api";
}

const TITLES: Record<number, string> = {
  400: "Bad request",
  403: "Forbidden",
  404: "Not found",
  405: "Method not allowed",
  408: "Request timeout",
  411: "Length required",
  413: "Request too large",
  414: "Address too long",
  415: "Unsupported form encoding",
  431: "Request headers too large",
  500: "Something went wrong.",
  503: "Service temporarily unavailable",
};

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A small self-contained page in the product's colours (the CSP allows the nonce'd style). */
export function errorPage(status: number, message: string, nonce?: string, page?: PageWords) {
  const title = page?.title ?? TITLES[status] ?? (status >= 500 ? TITLES[500]! : "Request refused");
  const words = { lang: page?.lang ?? "en", message: page?.message ?? message, home: page?.home ?? "Go to Jumbe" };
  const style = [
    "body{margin:0;min-height:100vh;display:flex;align-items:center;justify-content:center;background:#f8fafc;color:#0f172a;font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif}",
    "main{max-width:28rem;margin:1.5rem;padding:2rem;border:1px solid #e2e8f0;border-radius:.75rem;background:#fff;text-align:center;box-shadow:0 1px 2px rgb(0 0 0/.05)}",
    "h1{font-size:1.25rem;margin:0 0 .5rem}p{color:#475569;margin:0}",
    "a{display:inline-block;margin-top:1.5rem;padding:.5rem 1rem;border-radius:.5rem;background:#059669;color:#fff;text-decoration:none;font-weight:500}",
  ].join("");
  return `<!DOCTYPE html><html lang="${escapeHtml(words.lang)}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)} | Jumbe</title><style${nonce ? ` nonce="${escapeHtml(nonce)}"` : ""}>${style}</style></head><body><main role="alert"><h1>${escapeHtml(title)}</h1><p>${escapeHtml(words.message)}</p><a href="/">${escapeHtml(words.home)}</a></main></body></html>`;
}

interface HttpishError {
  type?: unknown;
  status?: unknown;
  statusCode?: unknown;
  expose?: unknown;
  message?: unknown;
}

/**
 * The 4xx an error stands for, or null: a route's thrown refusal (React Router's error responses
 * carry `status`), a parser's (`status` or `statusCode`, as http-errors and body-parser set them), a
 * body over its limit (BodyTooLargeError).
 */
export function clientErrorStatus(error: unknown): number | null {
  const e = (error ?? {}) as HttpishError;
  const raw = Number(e.status ?? e.statusCode);
  return Number.isInteger(raw) && raw >= 400 && raw < 500 ? raw : null;
}

/**
 * A client's mistake, logged as one: "request refused" with the status and the reason, never as an
 * unhandled error (that is for the server's own failures, which someone must look at). A missing
 * page or method is routine (scanners, old links): info; any other refusal (a malformed request, a
 * body too large, a forged origin) is worth a glance: warn.
 */
export function logRefusal(refusal: { status: number; method: string; path: string; reason?: string }) {
  const level = refusal.status === 404 || refusal.status === 405 ? "info" : "warn";
  log()[level]({ ...refusal, reason: refusal.reason?.slice(0, 200) }, "request refused");
}

/**
 * Express's last error handler. Client errors raised by Express or its parsers (a path that does
 * not decode, a body too large, a body the client stopped sending) keep their 4xx status and
 * message and are logged as refusals; anything else is logged as an unhandled error and answered 500
 * with a generic message (Express's own handler would print the stack in development).
 */
export function finalErrorHandler() {
  return (error: unknown, req: Request, res: Response, next: NextFunction) => {
    void next;
    const e = (error ?? {}) as HttpishError;
    const raw = Number(e.status ?? e.statusCode);
    const status = Number.isInteger(raw) && raw >= 400 && raw < 600 ? raw : 500;
    if (status >= 500) {
      log().error({ err: error, method: req.method, path: req.path }, "unhandled error");
      return sendError(req, res, status, "An unexpected error occurred. Please try again.");
    }
    const message = e.expose !== false && typeof e.message === "string" && e.message ? e.message : (TITLES[status] ?? "Bad request");
    // raw-body's error for a client that went away before sending the whole body.
    if (e.type === "request.aborted") log().info({ method: req.method, path: req.path }, "request aborted");
    else logRefusal({ status, method: req.method, path: req.path, reason: message });
    sendError(req, res, status, message.slice(0, 200));
  };
}
