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

/** True when a string anywhere in a parsed JSON value carries NUL, which PostgreSQL cannot store in text. */
export function containsNul(value: unknown, depth = 0): boolean {
  if (typeof value === "string") return value.includes("\u0000");
  if (depth > 64 || value === null || typeof value !== "object") return false;
  for (const [key, item] of Object.entries(value)) if (key.includes("\u0000") || containsNul(item, depth + 1)) return true;
  return false;
}

/**
 * Parses a JSON body with a schema; a Response to return when it is not valid. The schema's
 * messages come first (an e-mail with a control character is "Email is invalid"); a NUL the
 * schema let through in any other field is refused after it.
 */
export async function readJsonBody<S extends z.core.$ZodType>(
  request: Request,
  schema: S,
): Promise<{ ok: true; value: z.output<S> } | { ok: false; response: Response }> {
  let body: unknown;
  try {
    const text = await request.text();
    body = text ? JSON.parse(text) : {};
  } catch (error) {
    if ((error as { status?: unknown })?.status === 413 || (error as { cause?: { status?: unknown } })?.cause?.status === 413)
      return { ok: false, response: jsonError(413, "Request body too large.") };
    return { ok: false, response: jsonError(400, "Request body must be valid JSON.") };
  }
  const parsed = await z.safeParseAsync(schema, body);
  if (!parsed.success) return { ok: false, response: jsonError(400, parsed.error.issues[0]?.message ?? "Invalid request.") };
  if (containsNul(parsed.data)) return { ok: false, response: jsonError(400, "Text fields must not contain NUL characters.") };
  return { ok: true, value: parsed.data };
}
