import { randomUUID } from "node:crypto";
import { data } from "react-router";

/** An action's failed-form answer: Conform's result and, when given, an error toast. */
export function formFailure<Result, Extra extends object = object>(result: Result, status = 400, toastMessage?: string, extra?: Extra) {
  return data(
    { result, toast: toastMessage ? { id: randomUUID(), type: "error" as const, message: toastMessage } : null, ...(extra as Extra) },
    { status },
  );
}
