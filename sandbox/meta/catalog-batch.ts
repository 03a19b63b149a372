import { randomBytes } from "node:crypto";
import type { Request } from "express";
import { fail, ok, param, rawParam, type GraphResult } from "./graph-common";
import { AVAILABILITIES } from "./catalogs";
import type { Catalog, CatalogBatch, CatalogProduct, SandboxStore } from "./state";

/**
 * The Catalog API's batch (reference commerce §1.4): `POST /{catalog-id}/items_batch` takes up to
 * 5,000 requests (CREATE, UPDATE, DELETE) in the feed's vocabulary (`id` is the retailer id,
 * `title`, `price` as "1500.00 KES", `image_link`), answers handles at once, and says per item what
 * it refused at `GET /{catalog-id}/check_batch_request_status?handle=`. A malformed call (no
 * item_type, requests that are not a list) is refused whole, as Meta does; a bad item is refused
 * alone and the others are applied.
 */

const BATCH_MAX = 5000;
const BATCHES_KEPT = 50;
type Obj = Record<string, unknown>;
const isObject = (value: unknown): value is Obj => !!value && typeof value === "object" && !Array.isArray(value);
const invalid = (message: string) => fail(400, 100, `(#100) ${message}`);

/** The requests parameter: a JSON array (the form's text) or the array itself (a JSON body). */
function requestsOf(req: Request): unknown[] | GraphResult {
  const raw = rawParam(req, "requests");
  if (raw === undefined) return invalid("The parameter requests is required");
  let list: unknown = raw;
  if (typeof raw === "string") {
    try {
      list = JSON.parse(raw);
    } catch {
      return invalid("Param requests must be an array");
    }
  }
  if (!Array.isArray(list) || list.length === 0) return invalid("Param requests must be a non-empty array");
  if (list.length > BATCH_MAX) return invalid(`Param requests must have at most ${BATCH_MAX} items`);
  return list;
}

/** "1500.00 KES" → cents and currency, or null when it is not an amount and an ISO 4217 code. */
function feedPrice(value: unknown): { cents: number; currency: string } | null {
  const match = typeof value === "string" ? /^(\d{1,10})(?:\.(\d{1,2}))? ([A-Z]{3})$/.exec(value.trim()) : null;
  if (!match) return null;
  return { cents: Number(match[1]) * 100 + Number((match[2] ?? "").padEnd(2, "0")), currency: match[3]! };
}

/** A CREATE or UPDATE item's fields, checked as the feed's; a message when Meta would refuse it. */
function itemFields(data: Obj, creating: boolean): Partial<CatalogProduct> | string {
  const out: Partial<CatalogProduct> = {};
  const text = (name: string, limit: number) => {
    const value = data[name];
    if (value === undefined) return undefined;
    if (typeof value !== "string" || value.length > limit) return null;
    return value;
  };
  for (const [name, key, limit] of [
    ["title", "name", 200],
    ["description", "description", 9999],
    ["image_link", "imageUrl", 2000],
    ["link", "url", 2000],
  ] as const) {
    const value = text(name, limit);
    if (value === null) return `The field ${name} is not valid.`;
    if (value !== undefined) out[key] = value;
  }
  if (data.price !== undefined) {
    const price = feedPrice(data.price);
    if (!price) return `The field price must be an amount and an ISO 4217 currency, such as "1500.00 KES".`;
    out.price = price.cents;
    out.currency = price.currency;
  }
  if (data.availability !== undefined) {
    if (typeof data.availability !== "string" || !AVAILABILITIES.includes(data.availability))
      return `The field availability must be one of: ${AVAILABILITIES.join(", ")}.`;
    out.availability = data.availability;
  }
  if (out.imageUrl !== undefined && !/^https?:\/\/[^\s/]+/i.test(out.imageUrl)) return "The field image_link must be a valid URL.";
  if (creating)
    for (const [name, key] of [
      ["title", "name"],
      ["price", "price"],
      ["image_link", "imageUrl"],
    ] as const)
      if (out[key] === undefined || out[key] === "") return `The required field ${name} is missing.`;
  return out;
}

/** Applies one request to the catalog; the message of its refusal, or null when applied. */
function applyRequest(store: SandboxStore, catalog: Catalog, request: unknown, upsert: boolean): { id: string; error: string | null } {
  if (!isObject(request) || !isObject(request.data)) return { id: "", error: "The request must have a method and data." };
  const id = typeof request.data.id === "string" ? request.data.id.trim() : "";
  if (!id || id.length > 100) return { id, error: "The required field id is missing." };
  const existing = catalog.products.find((p) => p.retailerId === id);
  const method = request.method;
  if (method === "DELETE") {
    if (!existing) return { id, error: `No item with id ${id} in the catalog.` };
    catalog.products = catalog.products.filter((p) => p !== existing);
    return { id, error: null };
  }
  if (method !== "CREATE" && method !== "UPDATE") return { id, error: "The method must be CREATE, UPDATE or DELETE." };
  if (method === "CREATE" && existing) return { id, error: `An item with id ${id} already exists.` };
  if (method === "UPDATE" && !existing && !upsert) return { id, error: `No item with id ${id} in the catalog (allow_upsert is false).` };
  const fields = itemFields(request.data, !existing);
  if (typeof fields === "string") return { id, error: fields };
  if (existing) Object.assign(existing, fields);
  else
    catalog.products.push({
      id: store.newObjectId(),
      retailerId: id,
      name: fields.name!,
      description: fields.description ?? "",
      price: fields.price!,
      currency: fields.currency!,
      imageUrl: fields.imageUrl!,
      availability: fields.availability ?? "in stock",
      ...(fields.url ? { url: fields.url } : {}),
    });
  return { id, error: null };
}

/** POST /{catalog-id}/items_batch: item_type PRODUCT_ITEM, requests (≤ 5,000), allow_upsert (true unless "false"). */
export function itemsBatch(store: SandboxStore, req: Request, catalog: Catalog): GraphResult {
  const itemType = param(req, "item_type");
  if (!itemType) return invalid("The parameter item_type is required");
  if (itemType !== "PRODUCT_ITEM")
    return invalid(`Param item_type must be one of {PRODUCT_ITEM} for a commerce catalog - got "${itemType.slice(0, 40)}".`);
  const requests = requestsOf(req);
  if (!Array.isArray(requests)) return requests;
  const upsert = String(rawParam(req, "allow_upsert") ?? "true") !== "false";
  const batch: CatalogBatch = {
    handle: randomBytes(12).toString("base64url"),
    createdAt: Date.now(),
    requests: requests.length,
    errors: [],
  };
  requests.forEach((request, line) => {
    const outcome = applyRequest(store, catalog, request, upsert);
    if (outcome.error) batch.errors.push({ line, id: outcome.id, message: outcome.error });
  });
  catalog.batches = [...(catalog.batches ?? []), batch].slice(-BATCHES_KEPT);
  store.changed();
  return ok({ handles: [batch.handle] });
}

/** GET /{catalog-id}/check_batch_request_status?handle=: the batch's status and the items it refused. */
export function batchStatus(req: Request, catalog: Catalog): GraphResult {
  const handle = param(req, "handle");
  if (!handle) return invalid("The parameter handle is required");
  const batch = catalog.batches?.find((b) => b.handle === handle);
  if (!batch) return invalid(`Invalid handle: ${handle.slice(0, 60)}`);
  return ok({
    data: [
      {
        handle: batch.handle,
        status: "finished",
        errors_total_count: batch.errors.length,
        errors: batch.errors.map((e) => ({ line: e.line, id: e.id, message: e.message })),
        warnings_total_count: 0,
        warnings: [],
        ids_of_invalid_requests: batch.errors.map((e) => e.id),
      },
    ],
  });
}
