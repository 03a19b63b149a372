import type { Request } from "express";
import type { SandboxContext } from "./context";
import { fail, ok, param, parseFields, pick, rawParam, selfUrl, type GraphResult } from "./graph-common";
import type { Template, Waba } from "./state";
import { TEMPLATE_CATEGORIES, TemplateRuleError } from "./template-rules";
import { TEMPLATE_STATUSES } from "./types";

/** Graph's node type for a template (WhatsApp Message Template reference: whats-app-business-hsm). */
const NODE_TYPE = "WhatsAppBusinessHSM";

/** What the list and the node answer without `fields`. */
const DEFAULT_FIELDS = ["name", "parameter_format", "components", "language", "status", "category", "previous_category", "id"];

function templateFields(t: Template): Record<string, unknown> {
  return {
    id: t.id,
    name: t.name,
    language: t.language,
    status: t.status,
    category: t.category,
    previous_category: t.previousCategory ?? undefined,
    parameter_format: t.parameterFormat,
    components: t.components,
    rejected_reason: t.rejectedReason,
    quality_score: { score: t.qualityScore },
  };
}

/** A JSON-valued parameter: as sent in a JSON body, or parsed from form or query text. */
function jsonParam(req: Request, name: string): unknown {
  const value = rawParam(req, name);
  if (typeof value !== "string") return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

/** Runs a template operation; a broken rule answers Meta's envelope (400, code 100). */
function answerRules(run: () => GraphResult): GraphResult {
  try {
    return run();
  } catch (error) {
    if (!(error instanceof TemplateRuleError)) throw error;
    return fail(400, 100, error.message, { subcode: error.subcode, isTransient: false, userTitle: error.title, userMsg: error.userMsg });
  }
}

/** A media header's handle → the example URL Meta keeps, for handles this sandbox's uploads issued. */
function handles(ctx: SandboxContext, req: Request) {
  const origin = `${req.protocol}://${req.get("host") ?? "localhost"}`;
  return (handle: string) => ctx.uploads.exampleUrl(handle, origin);
}

/** POST /{waba-id}/message_templates → {id, status: "PENDING", category}. */
export function createTemplate(ctx: SandboxContext, req: Request, waba: Waba): GraphResult {
  return answerRules(() => {
    const template = ctx.templates.submit(waba.id, handles(ctx, req), {
      name: param(req, "name"),
      language: param(req, "language"),
      category: param(req, "category"),
      parameterFormat: param(req, "parameter_format"),
      components: jsonParam(req, "components"),
    });
    return ok({ id: template.id, status: template.status, category: template.category });
  });
}

/** GET /{template-id}. */
export function templateNode(req: Request, template: Template): GraphResult {
  return pick(templateFields(template), parseFields(param(req, "fields")) ?? DEFAULT_FIELDS, NODE_TYPE);
}

/** POST /{template-id}: components and/or category → {success: true}. */
export function editTemplate(ctx: SandboxContext, req: Request, template: Template): GraphResult {
  return answerRules(() => {
    ctx.templates.edit(template, handles(ctx, req), { components: jsonParam(req, "components"), category: param(req, "category") });
    return ok({ success: true });
  });
}

/** DELETE /{waba-id}/message_templates?name=…[&hsm_id=…]; nothing matching is 404, as Meta answers. */
export function deleteTemplates(ctx: SandboxContext, req: Request, waba: Waba): GraphResult {
  const name = param(req, "name");
  const hsmId = param(req, "hsm_id") || undefined;
  if (!name) return fail(400, 100, "(#100) The parameter name is required");
  return answerRules(() => {
    if (ctx.templates.remove(waba.id, name, hsmId).length > 0) return ok({ success: true });
    const what = hsmId ? `"${name}" with id ${hsmId}` : `"${name}"`;
    return fail(404, 100, `(#100) Message template ${what} not found`, {
      userTitle: "Message template not found",
      userMsg: `There is no message template ${what} in this WhatsApp Business Account.`,
    });
  });
}

// ---- the list ---------------------------------------------------------------------------------

const FILTERS = ["name", "status", "category", "language"] as const;

const cursorOf = (t: Template) => Buffer.from(`template:${t.seq}`).toString("base64url");
function seqOfCursor(cursor: string): number | undefined {
  const match = /^template:(\d+)$/.exec(Buffer.from(cursor, "base64url").toString("utf8"));
  return match ? Number(match[1]) : undefined;
}

const enumError = (name: string, allowed: readonly string[], got: string) =>
  fail(400, 100, `(#100) Param ${name} must be one of {${allowed.join(", ")}} - got "${got.slice(0, 40)}".`);

/** GET /{waba-id}/message_templates: filters, `fields`, `limit` (25) and cursors; `next` only when more follow. */
export function listTemplates(ctx: SandboxContext, req: Request, waba: Waba): GraphResult {
  const filters = Object.fromEntries(FILTERS.map((f) => [f, param(req, f) || undefined])) as Record<
    (typeof FILTERS)[number],
    string | undefined
  >;
  if (filters.status && !(TEMPLATE_STATUSES as readonly string[]).includes(filters.status))
    return enumError("status", TEMPLATE_STATUSES, filters.status);
  if (filters.category && !(TEMPLATE_CATEGORIES as readonly string[]).includes(filters.category))
    return enumError("category", TEMPLATE_CATEGORIES, filters.category);
  const fields = parseFields(param(req, "fields")) ?? DEFAULT_FIELDS;
  const limitText = param(req, "limit");
  const limit = limitText === undefined ? 25 : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1) return fail(400, 100, "(#100) Param limit must be a positive integer");

  const all = ctx.templates
    .list(waba.id)
    .filter((t) => FILTERS.every((f) => filters[f] === undefined || String(templateFields(t)[f]) === filters[f]));
  const after = param(req, "after");
  const before = param(req, "before");
  let page: Template[];
  if (after) {
    const seq = seqOfCursor(after);
    if (seq === undefined) return fail(400, 100, "(#100) Invalid cursor: after");
    page = all.filter((t) => t.seq > seq).slice(0, limit);
  } else if (before) {
    const seq = seqOfCursor(before);
    if (seq === undefined) return fail(400, 100, "(#100) Invalid cursor: before");
    page = all.filter((t) => t.seq < seq).slice(-limit);
  } else page = all.slice(0, limit);

  const data: unknown[] = [];
  for (const t of page) {
    const node = pick(templateFields(t), fields, NODE_TYPE);
    if (node.error) return node;
    data.push(node.body);
  }
  if (page.length === 0) return ok({ data: [] });
  const first = page[0]!;
  const last = page[page.length - 1]!;
  const paging: Record<string, unknown> = { cursors: { before: cursorOf(first), after: cursorOf(last) } };
  if (all.some((t) => t.seq > last.seq)) paging.next = pageUrl(req, filters, limit, { after: cursorOf(last) });
  if (all.some((t) => t.seq < first.seq)) paging.previous = pageUrl(req, filters, limit, { before: cursorOf(first) });
  return ok({ data, paging });
}

/** The URL of a neighbouring page: the same fields, filters and limit (and access_token, when sent as a parameter). */
function pageUrl(req: Request, filters: Record<string, string | undefined>, limit: number, cursor: Record<string, string>) {
  const url = selfUrl(req);
  const fields = param(req, "fields");
  if (fields) url.searchParams.set("fields", fields);
  for (const [key, value] of Object.entries(filters)) if (value !== undefined) url.searchParams.set(key, value);
  url.searchParams.set("limit", String(limit));
  const token = param(req, "access_token");
  if (token) url.searchParams.set("access_token", token);
  for (const [key, value] of Object.entries(cursor)) url.searchParams.set(key, value);
  return url.toString();
}
