import { randomUUID } from "node:crypto";
import type { NextFunction, Request as ExpressRequest, Response as ExpressResponse } from "express";
import { data } from "react-router";
import { sendError } from "./error-page";
import { BODY_TOO_LARGE, BodyTooLargeError } from "./body-limit";
import { deferConsoleRefusal } from "./methods";

/** An action's failed-form answer: Conform's result and, when given, an error toast. */
export function formFailure<Result, Extra extends object = object>(result: Result, status = 400, toastMessage?: string, extra?: Extra) {
  return data(
    { result, toast: toastMessage ? { id: randomUUID(), type: "error" as const, message: toastMessage } : null, ...(extra as Extra) },
    { status },
  );
}

export const FORM_MESSAGES = {
  encoding: "Forms must be sent as application/x-www-form-urlencoded or multipart/form-data.",
  unreadable: "The form could not be read. Please try again.",
  nul: "Form fields must not contain NUL characters.",
} as const;

const FORM_TYPES = /^(application\/x-www-form-urlencoded|multipart\/form-data)\s*(;|$)/i;

/** True for the two encodings an HTML form (and React Router's `<Form>`, as `/path.data`) sends. */
export function isFormEncoding(contentType: string | undefined) {
  if (!contentType || !FORM_TYPES.test(contentType)) return false;
  // multipart without a boundary cannot be parsed at all.
  return !/^multipart\//i.test(contentType) || /;\s*boundary=("[^"]+"|[^\s;]+)/i.test(contentType);
}

/**
 * Page posts carry a form: every page action reads `request.formData()`, which fails on other
 * bodies. Refused with 415 before React Router (the JSON API's own check is in same-origin.ts).
 */
export function requireFormEncoding(options: { exempt: (path: string) => boolean }) {
  return (req: ExpressRequest, res: ExpressResponse, next: NextFunction) => {
    if (req.method !== "POST" || options.exempt(req.path) || isFormEncoding(req.get("content-type"))) return next();
    if (deferConsoleRefusal(req, res, { status: 415, message: FORM_MESSAGES.encoding })) return next();
    sendError(req, res, 415, FORM_MESSAGES.encoding);
  };
}

/**
 * The posted form, or a thrown 4xx: a body that is not a readable form (broken multipart, bad
 * encoding, too large) is the client's mistake, and PostgreSQL cannot store NUL in text, so no
 * field may carry one.
 */
export async function readForm(request: Request): Promise<FormData> {
  let form: FormData;
  try {
    form = await request.formData();
  } catch (error) {
    if (error instanceof BodyTooLargeError || (error as { cause?: unknown })?.cause instanceof BodyTooLargeError)
      throw data(BODY_TOO_LARGE, { status: 413 });
    throw data(FORM_MESSAGES.unreadable, { status: 400 });
  }
  for (const [, value] of form) {
    if (typeof value === "string" && value.includes("\u0000")) throw data(FORM_MESSAGES.nul, { status: 400 });
  }
  return form;
}
