import { randomUUID } from "node:crypto";
import type { NextFunction, Request, Response } from "express";

/**
 * Every request's id (decision 101): nginx's own (`proxy_set_header X-Request-Id $request_id`) when
 * it sent a well-formed one, else one made here. The answer carries it as X-Request-Id, the request
 * log's line for it has it (request-log.ts), and /api/v1 puts it in every error body, so a client's
 * report of a failure finds its log line.
 */
export const REQUEST_ID_HEADER = "x-request-id";

/** 8 to 128 letters, digits and `._:-`: nginx's 32 hex digits, a UUID; nothing that could forge a log field. */
const WELL_FORMED = /^[A-Za-z0-9._:-]{8,128}$/;

export const isWellFormedRequestId = (value: string | null | undefined): value is string => !!value && WELL_FORMED.test(value);

/** The request's id: the incoming header when well-formed, else a new UUID. */
export const requestIdOf = (incoming: string | null | undefined) => (isWellFormedRequestId(incoming) ? incoming : randomUUID());

/**
 * Express: settles the id before anything answers (requestLog runs after it), answers it as
 * X-Request-Id, and rewrites the incoming header to it so the route handlers' Request carries the same.
 */
export function requestId() {
  return (req: Request, res: Response, next: NextFunction) => {
    const id = requestIdOf(req.get(REQUEST_ID_HEADER));
    req.headers[REQUEST_ID_HEADER] = id;
    res.locals.requestId = id;
    res.setHeader("X-Request-Id", id);
    next();
  };
}
