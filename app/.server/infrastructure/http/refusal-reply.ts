import { data } from "react-router";
import { Refusal } from "../refusal";
import { formFailure } from "./forms";
import { jsonError } from "./json";
import { redirectWithToast } from "./toast";

/*
 * The one place a Refusal becomes an answer (decision 056): a form's reply at its field, a form's
 * error toast, a redirect with a toast, the page's 404, or a JSON error. Routes catch Refusal once
 * (refusalOf) and pick the answer their page shows; the API's own catalogue is api-v1/errors.ts.
 */

/** The refusal `error` is; anything else is thrown on (a bug or an outage is not the user's mistake). */
export function refusalOf(error: unknown): Refusal {
  if (error instanceof Refusal) return error;
  throw error;
}

/** The error page's answer: the refusal's status and sentence (or `message`). Thrown by loaders. */
export function refusalPageError(refusal: Refusal, message: string = refusal.message) {
  return data(message, { status: refusal.status });
}

/** A target that does not exist (or is another organisation's) is the page's 404, said with `message`. */
export function throwIfNotFound(refusal: Refusal, message: string = refusal.message) {
  if (refusal.status === 404) throw refusalPageError(refusal, message);
}

/** A page without Conform: `{ error }` with the sentence, and what the page shows again (`extra`). */
export function refusalFormError<Extra extends object = object>(refusal: Refusal, extra?: Extra) {
  return data({ error: refusal.message, ...(extra as Extra) }, { status: refusal.status });
}

/** The form again with an error toast saying the refusal, and the page's `extra` (its intent...). */
export function refusalToast<Extra extends object = object>(refusal: Refusal, extra?: Extra, status: number = refusal.status) {
  return formFailure(null, status, refusal.message, extra);
}

interface ReplyOptions {
  formErrors?: string[];
  fieldErrors?: Record<string, string[]>;
  hideFields?: string[];
}

interface FormReplyOptions<Extra> {
  /** Where the page shows it, when not at the refusal's own field (null: above the form). */
  field?: string | null;
  /** The status to answer, when the page answers another than the refusal's. */
  status?: number;
  /** Fields never sent back (passwords, codes). */
  hideFields?: string[];
  /** Said in a toast as well. */
  toast?: boolean;
  extra?: Extra;
}

/** Conform's reply with the refusal at its field, or above the form when it has none. */
export function refusalReply<Result, Extra extends object = object>(
  submission: { reply: (options: ReplyOptions) => Result },
  refusal: Refusal,
  options: FormReplyOptions<Extra> = {},
) {
  const field = options.field === undefined ? refusal.field : options.field;
  const hide = options.hideFields ? { hideFields: options.hideFields } : {};
  const result = field
    ? submission.reply({ fieldErrors: { [field]: [refusal.message] }, ...hide })
    : submission.reply({ formErrors: [refusal.message], ...hide });
  return formFailure(result, options.status ?? refusal.status, options.toast ? refusal.message : undefined, options.extra);
}

/** Back to `to`, whose toast says the refusal. */
export function refusalRedirect(to: string, refusal: Refusal) {
  return redirectWithToast(to, "error", refusal.message);
}

/** The JSON error of the app's own endpoints: `{ message, code, field }` with the refusal's status. */
export function refusalJson(refusal: Refusal) {
  return jsonError(refusal.status, refusal.message, { extra: { code: refusal.code, field: refusal.field } });
}
