import { AsyncLocalStorage } from "node:async_hooks";
import type { NextFunction, Request, Response } from "express";
import { databaseIsDown, noteDatabaseError, RETRY_AFTER_SECONDS, UNAVAILABLE_MESSAGE } from "../db/availability";
import { log } from "../log";
import { STORAGE_UNAVAILABLE_MESSAGE, StorageUnavailableError } from "../storage/types";
import { sendError, type PageWords } from "./error-page";
import { localeOfPath } from "./locale";
import { m } from "~/paraglide/messages";

/**
 * 503 instead of 500 while PostgreSQL cannot be reached (decision 011). Pages get the short
 * "Service temporarily unavailable" page, `/api/...` gets `{ "message" }`, both with Retry-After.
 */
export function sendUnavailable(req: Request, res: Response, outage: Outage = DATABASE) {
  res.statusMessage = "Service Unavailable";
  const code = outage.what === "files" ? "storage_unavailable" : "service_unavailable";
  sendError(req, res, 503, outage.message, { "Retry-After": String(outage.retryAfterSeconds) }, outagePage(req, outage), code);
}

interface Outage {
  what: "database" | "files";
  message: string;
  retryAfterSeconds: number;
}
const DATABASE: Outage = { what: "database", message: UNAVAILABLE_MESSAGE, retryAfterSeconds: RETRY_AFTER_SECONDS };

/**
 * The outage page in the visitor's language (`?lng=`, their cookie, their browser's: no database
 * needed); API answers keep the English message.
 */
export function outagePage(req: Pick<Request, "originalUrl" | "url" | "headers">, outage: Pick<Outage, "what">): PageWords {
  const accept = req.headers["accept-language"];
  const locale = localeOfPath(req.originalUrl || req.url, req.headers.cookie, Array.isArray(accept) ? accept[0] : accept);
  return {
    lang: locale,
    title: m.app_outage_title({}, { locale }),
    message: outage.what === "files" ? m.app_outage_files({}, { locale }) : m.app_outage_database({}, { locale }),
    home: m.app_outage_home({}, { locale }),
  };
}

/** Per request: did one of its queries, or a file it read or wrote, meet an outage (set from React Router's handleError). */
const requestState = new AsyncLocalStorage<{ unavailable: Outage | null }>();

/** The file store's outage behind `error` (the error itself or what it wraps), if that is what it is. */
function storageOutage(error: unknown): Outage | null {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current && typeof current === "object"; depth++) {
    if (current instanceof StorageUnavailableError)
      return { what: "files", message: STORAGE_UNAVAILABLE_MESSAGE, retryAfterSeconds: current.retryAfterSeconds };
    current = (current as { cause?: unknown }).cause;
  }
  return null;
}

/**
 * Notes a loader, action or render error (entry.server's handleError): true when it says the
 * database or the file store cannot be reached, and then the request answers 503 (decision 161).
 */
export function noteRequestError(error: unknown) {
  const storage = storageOutage(error);
  if (storage) log().warn({ err: error }, "file store unavailable");
  else if (!noteDatabaseError(error)) return false;
  const state = requestState.getStore();
  if (state) state.unavailable = storage ?? DATABASE;
  return true;
}

/**
 * In front of React Router. While the database is known to be down, answers 503 at once (no request
 * waits on a connect timeout). Otherwise lets the request through, and if a query of it meets the
 * outage, React Router's 500 (document, data or resource route) becomes the 503: React Router has
 * already rendered its error by then, so its status and body are swapped as they are sent.
 */
export function databaseGate() {
  return (req: Request, res: Response, next: NextFunction) => {
    if (databaseIsDown()) return sendUnavailable(req, res);
    const state: { unavailable: Outage | null } = { unavailable: null };
    const status = res.status.bind(res);
    res.status = (code: number) => {
      if (code < 500 || !state.unavailable) return status(code);
      res.status = status;
      sendUnavailable(req, res, state.unavailable);
      // What React Router still sends of its 500 goes nowhere.
      res.append = () => res;
      res.write = () => true;
      res.end = () => res;
      return res;
    };
    requestState.run(state, next);
  };
}

/** Express error handler before the last one: errors raised outside React Router (sandbox routers, the adapter). */
export function databaseUnavailableErrors() {
  return (error: unknown, req: Request, res: Response, next: NextFunction) => {
    const storage = storageOutage(error);
    if (!storage && !noteDatabaseError(error)) return next(error);
    if (res.headersSent) return void res.end();
    sendUnavailable(req, res, storage ?? DATABASE);
  };
}
