import { z } from "zod";
import { env } from "../config/env";
import { API_RATE_LIMIT } from "./usage";
import { ENDPOINTS } from "./endpoints";
import { ApiError, PhoneNumber } from "./schemas";

/** JSON Schema (2020-12, which OpenAPI 3.1 uses) of a zod schema, with named schemas as $refs. */
function schemaOf(schema: z.ZodType) {
  return z.toJSONSchema(schema, { target: "draft-2020-12", io: "input" });
}

function componentsFor(schemas: z.ZodType[]) {
  const registry = z.registry<{ id: string }>();
  for (const schema of schemas) {
    const id = (schema.meta() as { id?: string } | undefined)?.id;
    if (id) registry.add(schema, { id });
  }
  const { schemas: all } = z.toJSONSchema(registry, { target: "draft-2020-12", io: "output", uri: (id) => `#/components/schemas/${id}` });
  for (const value of Object.values(all)) delete (value as { $schema?: string }).$schema;
  return all;
}

function queryParameters(query: z.ZodType) {
  const json = schemaOf(query) as { properties?: Record<string, { description?: string }>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, schema]) => {
    const { description, ...rest } = schema;
    return { name, in: "query", required: json.required?.includes(name) ?? false, description, schema: rest };
  });
}

const errorResponse = (description: string) => ({
  description,
  content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
});

/** The OpenAPI 3.1 document of /api/v1, built from ENDPOINTS and their zod schemas. */
export function openApiDocument() {
  const config = env();
  const paths: Record<string, Record<string, unknown>> = {};
  for (const endpoint of ENDPOINTS) {
    const id = (endpoint.response.meta() as { id?: string } | undefined)?.id;
    paths[endpoint.path] = {
      [endpoint.method]: {
        operationId: endpoint.operationId,
        summary: endpoint.summary,
        description: endpoint.description,
        parameters: queryParameters(endpoint.query),
        responses: {
          "200": {
            description: endpoint.summary,
            content: { "application/json": { schema: id ? { $ref: `#/components/schemas/${id}` } : schemaOf(endpoint.response) } },
          },
          "400": errorResponse("The query is not valid (code invalid_request)."),
          "401": errorResponse("No API key, or a key that is not valid or was revoked (codes missing_api_key, invalid_api_key)."),
          "429": {
            ...errorResponse(`More than ${API_RATE_LIMIT.limit} requests in a minute with this key (code rate_limited).`),
            headers: { "Retry-After": { description: "Seconds until the key may call again.", schema: { type: "integer" } } },
          },
        },
      },
    };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Jumbe API",
      version: "1.0.0",
      description: `WhatsApp Business messaging for your organisation. Authenticate with your API key from the Developers page as a bearer token. Each key may make ${API_RATE_LIMIT.limit} requests a minute.`,
    },
    servers: [{ url: config.APP_URL }],
    security: [{ apiKey: [] }],
    paths,
    components: {
      securitySchemes: { apiKey: { type: "http", scheme: "bearer", description: "Your live API key, jmb_live_..." } },
      schemas: componentsFor([ApiError, PhoneNumber, ...ENDPOINTS.map((e) => e.response)]),
    },
  };
}

export type OpenApiDocument = ReturnType<typeof openApiDocument>;
