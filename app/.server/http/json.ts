import { z } from "zod";

/** JSON errors are `{ "message": ... }` with the status that fits (spec section 8's texts where it has them). */
export function jsonError(status: number, message: string, init: { headers?: HeadersInit; extra?: Record<string, unknown> } = {}) {
  return Response.json({ message, ...init.extra }, { status, headers: init.headers });
}

export const STATUS_MESSAGES = {
  401: "Unauthorized: Please log in.",
  403: "Forbidden: You do not have permission to access this resource.",
  404: "Not Found: The requested resource does not exist.",
  405: "Method not allowed.",
} as const;

export function methodNotAllowed(allow: string) {
  return jsonError(405, STATUS_MESSAGES[405], { headers: { Allow: allow } });
}

/** Parses a JSON body with a schema; a Response to return when it is not valid. */
export async function readJsonBody<S extends z.core.$ZodType>(request: Request, schema: S): Promise<{ ok: true; value: z.output<S> } | { ok: false; response: Response }> {
  let body: unknown;
  try {
    const text = await request.text();
    body = text ? JSON.parse(text) : {};
  } catch {
    return { ok: false, response: jsonError(400, "Request body must be valid JSON.") };
  }
  const parsed = await z.safeParseAsync(schema, body);
  if (!parsed.success) return { ok: false, response: jsonError(400, parsed.error.issues[0]?.message ?? "Invalid request.") };
  return { ok: true, value: parsed.data };
}
