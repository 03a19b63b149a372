import type { Request } from "express";

/** Shared by the Graph route files: results, Meta's error envelope, request parameters, `fields`. */

export interface GraphErrorBody {
  message: string;
  type: string;
  code: number;
  error_subcode?: number;
  is_transient?: boolean;
  error_user_title?: string;
  error_user_msg?: string;
  error_data?: Record<string, unknown>;
}

export type GraphResult =
  { status: number; body: unknown; error?: undefined } | { status: number; error: GraphErrorBody; body?: undefined };

export const ok = (body: unknown, status = 200): GraphResult => ({ status, body });

export function fail(
  status: number,
  code: number,
  message: string,
  extra: {
    type?: string;
    subcode?: number;
    isTransient?: boolean;
    userTitle?: string;
    userMsg?: string;
    errorData?: Record<string, unknown>;
  } = {},
): GraphResult {
  return {
    status,
    error: {
      message,
      type: extra.type ?? "OAuthException",
      code,
      ...(extra.subcode !== undefined ? { error_subcode: extra.subcode } : {}),
      ...(extra.isTransient !== undefined ? { is_transient: extra.isTransient } : {}),
      ...(extra.userTitle !== undefined ? { error_user_title: extra.userTitle } : {}),
      ...(extra.userMsg !== undefined ? { error_user_msg: extra.userMsg } : {}),
      ...(extra.errorData ? { error_data: extra.errorData } : {}),
    },
  };
}

/** Meta's answer for an id that does not exist, is not granted, or does not take the method: 400, 100/33. */
export const unsupported = (method: string, id: string) =>
  fail(
    400,
    100,
    `Unsupported ${method.toLowerCase()} request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
    { type: "GraphMethodException", subcode: 33 },
  );

/** A request value from the body (POST) or the query string, as received. */
export function rawParam(req: Request, name: string): unknown {
  const body = req.body as Record<string, unknown> | undefined;
  const fromBody = body && typeof body === "object" && !Array.isArray(body) ? body[name] : undefined;
  return fromBody !== undefined ? fromBody : (req.query as Record<string, unknown>)[name];
}

/** A request parameter from the body (POST) or the query string, as text. */
export function param(req: Request, name: string): string | undefined {
  const value = rawParam(req, name);
  if (typeof value === "string") return value;
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return undefined;
}

/** Graph's `fields` parameter: top-level names, with `{…}` sub-selections and `.modifiers()` dropped. */
export function parseFields(raw: string | undefined): string[] | undefined {
  if (!raw || !raw.trim()) return undefined;
  const fields: string[] = [];
  let depth = 0;
  let current = "";
  for (const c of raw) {
    if (c === "{" || c === "(") depth++;
    else if (c === "}" || c === ")") depth = Math.max(0, depth - 1);
    else if (c === "," && depth === 0) {
      fields.push(current);
      current = "";
      continue;
    }
    if (depth === 0 && c !== "}" && c !== ")") current += c;
  }
  fields.push(current);
  return [...new Set(fields.map((f) => f.split(".")[0]!.trim()).filter(Boolean))];
}

/** The requested fields of a node (always with its id); an unknown field is Graph's #100 error. */
export function pick(all: Record<string, unknown>, requested: string[], nodeType: string): GraphResult {
  const unknown = requested.find((f) => !(f in all));
  if (unknown) return fail(400, 100, `(#100) Tried accessing nonexisting field (${unknown}) on node type (${nodeType})`);
  const out: Record<string, unknown> = {};
  for (const f of requested) if (all[f] !== undefined) out[f] = all[f];
  if (!("id" in out)) out.id = all.id;
  return ok(out);
}

/** The absolute URL of this Graph path (for paging links), on the sandbox's own graph base. */
export function selfUrl(req: Request): URL {
  return new URL(`${req.protocol}://${req.get("host") ?? "localhost"}${req.baseUrl}${req.path}`);
}
