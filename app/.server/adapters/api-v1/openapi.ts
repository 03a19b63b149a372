import { z } from "zod";
import { env } from "../../infrastructure/config/env";
import { API_RATE_LIMIT } from "./usage";
import { ENDPOINTS, errorCodesOf, idempotencyOf, type Endpoint } from "./endpoints";
import { ERROR_CATALOGUE, errorCatalogue, type ErrorCode } from "./errors";
import { ApiError, NESTED_SCHEMAS } from "./schemas";
import { MediaRef, Message } from "./message-schemas";
import { CampaignAudience, CampaignEstimate, CampaignParameter } from "./campaign-schemas";

/** JSON Schema (2020-12, which OpenAPI 3.1 uses) of a zod schema, with named schemas as $refs. */
function schemaOf(schema: z.ZodType) {
  return z.toJSONSchema(schema, { target: "draft-2020-12", io: "input" });
}

function componentsFor(schemas: z.ZodType[]) {
  const registry = z.registry<{ id: string }>();
  for (const schema of new Set(schemas)) {
    const id = (schema.meta() as { id?: string } | undefined)?.id;
    if (id) registry.add(schema, { id });
  }
  const { schemas: all } = z.toJSONSchema(registry, { target: "draft-2020-12", io: "output", uri: (id) => `#/components/schemas/${id}` });
  for (const value of Object.values(all)) delete (value as { $schema?: string }).$schema;
  return all;
}

const idOf = (schema: z.ZodType) => (schema.meta() as { id?: string } | undefined)?.id;

/** A named schema as a $ref to components, any other inline. */
const refOrSchema = (schema: z.ZodType) => {
  const id = idOf(schema);
  return id ? { $ref: `#/components/schemas/${id}` } : schemaOf(schema);
};

function parameters(schema: z.ZodType, where: "query" | "path") {
  const json = schemaOf(schema) as { properties?: Record<string, { description?: string }>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, property]) => {
    const { description, ...rest } = property;
    return { name, in: where, required: where === "path" || (json.required?.includes(name) ?? false), description, schema: rest };
  });
}

/** Every answer's headers: the request's id; and those of an answer to a request with an Idempotency-Key. */
const REQUEST_ID_HEADER = {
  "X-Request-Id": {
    description:
      "The request's id (the one sent in X-Request-Id when it is 8 to 128 letters, digits or ._:-, otherwise a new one): an error's body has it as requestId. Quote it when you ask Jumbe's support about a call.",
    schema: { type: "string" },
  },
};
const REPLAYED_HEADER = {
  "Idempotency-Replayed": {
    description:
      "With an Idempotency-Key: true when this answer is the first request's with the key again (nothing was done this time), false when this request did the work.",
    schema: { type: "string", enum: ["true", "false"] },
  },
};

const errorResponse = (description: string, idempotent: boolean) => ({
  description,
  headers: { ...REQUEST_ID_HEADER, ...(idempotent ? REPLAYED_HEADER : {}) },
  content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Error" } } },
});

function operation(endpoint: Endpoint) {
  const idempotent = !!idempotencyOf(endpoint);
  const headers = { ...REQUEST_ID_HEADER, ...(idempotent ? REPLAYED_HEADER : {}) };
  const success =
    endpoint.status === 204
      ? { description: endpoint.summary, headers }
      : { description: endpoint.summary, headers, content: { "application/json": { schema: refOrSchema(endpoint.response) } } };
  return {
    operationId: endpoint.operationId,
    summary: endpoint.summary,
    description: endpoint.description,
    parameters: [
      ...parameters(endpoint.params, "path"),
      ...parameters(endpoint.query, "query"),
      ...(idempotent
        ? [
            {
              name: "Idempotency-Key",
              in: "header",
              required: false,
              description:
                "Any unique string (a UUID) for this request: a repeat with the same key and body within 24 hours answers the first result and does nothing again (its Idempotency-Replayed header says true); with another body it is refused (idempotency_conflict). Every POST takes one.",
              schema: { type: "string", minLength: 1, maxLength: 255 },
            },
          ]
        : []),
    ],
    ...(endpoint.body
      ? {
          requestBody: {
            required: true,
            description:
              "JSON, sent with Content-Type: application/json (charset utf-8, if any; application/*+json too): another type answers 415 unsupported_media_type.",
            content: { "application/json": { schema: refOrSchema(endpoint.body.schema), example: endpoint.body.example } },
          },
        }
      : {}),
    ...(endpoint.rawBody
      ? {
          requestBody: {
            required: true,
            description: endpoint.rawBody.description,
            content: Object.fromEntries(
              endpoint.rawBody.contentTypes.map((type) => [type, { schema: { type: "string", format: "binary" } }]),
            ),
            // The file the code examples send (the Developers page).
            "x-example": endpoint.rawBody.example,
          },
        }
      : {}),
    ...(endpoint.multipart
      ? {
          requestBody: {
            required: true,
            description: endpoint.multipart.description,
            content: {
              "multipart/form-data": {
                schema: {
                  type: "object",
                  required: [endpoint.multipart.field],
                  properties: { [endpoint.multipart.field]: { type: "string", format: "binary" } },
                },
              },
            },
            // The file the code examples send (the Developers page).
            "x-example": { ...endpoint.multipart.example, field: endpoint.multipart.field },
          },
        }
      : {}),
    responses: { [String(endpoint.status)]: success, ...errorResponses(endpoint) },
  };
}

/**
 * The endpoint's error answers by status: each lists its codes from the catalogue (x-error-codes,
 * and in words: code, meaning) after the endpoint's own words for that status where it has them.
 */
function errorResponses(endpoint: Endpoint) {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodesOf(endpoint)) {
    const status = ERROR_CATALOGUE[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const own = endpoint.errors as Record<number, string | undefined> | undefined;
  return Object.fromEntries(
    [...byStatus].map(([status, codes]) => {
      const words = codes.map((code) => `${code}: ${ERROR_CATALOGUE[code].meaning}`).join(" ");
      const description = own?.[status] ? `${own[status]} ${words}` : words;
      const response: { headers: Record<string, unknown> } & Record<string, unknown> = {
        ...errorResponse(description, !!idempotencyOf(endpoint)),
        "x-error-codes": codes,
      };
      if (status === 429 || status === 503)
        response.headers = {
          ...response.headers,
          "Retry-After": {
            description: status === 429 ? "Seconds until the key may call again." : "Seconds to wait before repeating the request.",
            schema: { type: "integer" },
          },
        };
      return [String(status), response];
    }),
  );
}

let built: { appUrl: string; day: string; document: ReturnType<typeof buildOpenApiDocument> } | undefined;

/**
 * The OpenAPI 3.1 document of /api/v1. It depends only on the code, APP_URL and the day (the
 * campaign example's schedule is a week ahead), so it is built once a day (turning the zod schemas
 * into JSON Schema was a tenth of the Developers page's time) and shared: callers must not change it.
 */
export function openApiDocument() {
  const appUrl = env().APP_URL;
  const day = new Date().toISOString().slice(0, 10);
  if (built?.appUrl !== appUrl || built.day !== day) built = { appUrl, day, document: buildOpenApiDocument(appUrl) };
  return built.document;
}

const COMPONENT = "#/components/schemas/";

/**
 * Named schemas found only inside others are components like the rest: zod writes those of an
 * inline schema into its own `$defs` (`#/$defs/MediaRef`, which in the document points nowhere) and
 * those the components' registry did not list into `__shared` (`#/components/schemas/__shared#/$defs/Hook`).
 * Each moves to components.schemas (the one already there is kept) and every $ref to it is rewritten.
 */
function hoistDefinitions<T extends { components: { schemas: Record<string, unknown> } }>(document: T): T {
  const schemas = document.components.schemas;
  const shared = schemas.__shared as { $defs?: Record<string, unknown> } | undefined;
  delete schemas.__shared;
  const pending: Record<string, unknown>[] = [shared?.$defs ?? {}];
  const visit = (node: unknown) => {
    if (!node || typeof node !== "object") return;
    if (Array.isArray(node)) return node.forEach(visit);
    const object = node as Record<string, unknown>;
    if (object.$defs && typeof object.$defs === "object") {
      pending.push(object.$defs as Record<string, unknown>);
      delete object.$defs;
    }
    if (typeof object.$ref === "string") object.$ref = object.$ref.replace(/^#\/(?:components\/schemas\/__shared#\/)?\$defs\//, COMPONENT);
    for (const value of Object.values(object)) visit(value);
  };
  visit(document);
  while (pending.length) {
    for (const [id, definition] of Object.entries(pending.pop()!)) {
      if (Object.hasOwn(schemas, id)) continue;
      schemas[id] = definition;
      visit(definition);
    }
  }
  return document;
}

/** Builds the document from ENDPOINTS and their zod schemas. */
function buildOpenApiDocument(appUrl: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const endpoint of ENDPOINTS) paths[endpoint.path] = { ...paths[endpoint.path], [endpoint.method]: operation(endpoint) };
  return hoistDefinitions({
    openapi: "3.1.0",
    info: {
      title: "Jumbe API",
      version: "1.0.0",
      description: `WhatsApp Business messaging for your organisation. Authenticate with your API key from the Developers page as a bearer token. Each key may make ${API_RATE_LIMIT.limit} requests a minute, and may do what the role of the member who made it may do. Every error answers a problem (RFC 9457, application/problem+json): type, the code's entry in the published catalogue (${appUrl}/developers/errors); title; status; detail; code, a code of the catalogue in x-error-catalogue (its status, meaning and what to do); message (as detail); and requestId, as the X-Request-Id header every answer carries. Each operation lists the codes it can answer in its responses' x-error-codes. Every POST takes an Idempotency-Key; every list says hasMore.`,
    },
    servers: [{ url: appUrl }],
    // Every error code the API answers, once: its status, what it means and what to do (decision 052).
    "x-error-catalogue": errorCatalogue(),
    security: [{ apiKey: [] }],
    paths,
    components: {
      securitySchemes: { apiKey: { type: "http", scheme: "bearer", description: "Your live API key, jmb_live_..." } },
      schemas: componentsFor([
        ApiError,
        ...NESTED_SCHEMAS,
        Message,
        MediaRef,
        CampaignParameter,
        CampaignAudience,
        CampaignEstimate,
        ...ENDPOINTS.flatMap((e) => [...(e.status === 204 ? [] : [e.response]), ...(e.body ? [e.body.schema] : [])]),
      ]) as Record<string, unknown>,
    },
  });
}

export type OpenApiDocument = ReturnType<typeof openApiDocument>;

/** The error codes an operation of the document lists (its responses' x-error-codes), in status order. */
export function documentedErrorCodes(doc: OpenApiDocument, path: string, method: string): string[] {
  const operation = (doc.paths[path] as Record<string, { responses: Record<string, { "x-error-codes"?: string[] }> }> | undefined)?.[
    method.toLowerCase()
  ];
  return Object.values(operation?.responses ?? {}).flatMap((response) => response["x-error-codes"] ?? []);
}
