import Ajv from "ajv";
import { validate as validateOpenApi } from "@readme/openapi-parser";
import { describe, expect, it } from "vitest";
import { openApiDocument } from "~/.server/adapters/api-v1/openapi";
import { ENDPOINTS } from "~/.server/adapters/api-v1/endpoints";

// Issue 71: the published OpenAPI document is valid as a whole, by a standard OpenAPI validator
// (@readme/openapi-parser: the OpenAPI 3.1 schema with ajv, and every $ref dereferenced); beside it,
// what that validator does not look at: every schema compiles with its references, every example is
// valid by its schema, and the operations' own rules (info, paths, parameters, responses). Decision 101.

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
const doc = () => JSON.parse(JSON.stringify(openApiDocument())) as Record<string, Json>;

/** Every value under `node` with its JSON pointer. */
function* walk(node: Json, pointer = "#"): Generator<[string, Json]> {
  yield [pointer, node];
  if (node && typeof node === "object")
    for (const [key, value] of Object.entries(node)) yield* walk(value, `${pointer}/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`);
}

/** The value a local `#/a/b` pointer names, or undefined. */
function resolve(root: Json, ref: string): Json | undefined {
  if (!ref.startsWith("#")) return undefined;
  let node: Json | undefined = root;
  for (const raw of ref.slice(1).split("/").slice(1)) {
    const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    if (!node || typeof node !== "object" || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, Json>)[key];
  }
  return node;
}

/** ajv (draft-07) over a 2020-12 schema: the keywords both share, `$defs` read as definitions would be. */
function ajvFor(root: Json) {
  const ajv = new Ajv({ allErrors: true, unknownFormats: "ignore", schemaId: "auto", logger: false });
  ajv.addSchema(root as object, "openapi.json");
  return ajv;
}

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

describe("the OpenAPI document", () => {
  it("is valid OpenAPI 3.1 by a standard validator, its references all resolving", async () => {
    const result = await validateOpenApi(doc() as never);
    expect(result.valid ? [] : result.errors).toEqual([]);
    expect(result.specification).toBe("OpenAPI");
  });

  it("resolves every $ref inside itself", () => {
    const root = doc();
    const refs = [...walk(root)].filter(([pointer]) => pointer.endsWith("/$ref"));
    expect(refs.length).toBeGreaterThan(50);
    const broken = refs.filter(([, ref]) => typeof ref !== "string" || resolve(root, ref) === undefined).map(([p, ref]) => `${p}: ${ref}`);
    expect(broken).toEqual([]);
  });

  it("has only valid JSON Schemas, each compiling with its references, and examples valid by them", () => {
    const root = doc();
    const ajv = ajvFor(root);
    const schemas: [string, Json][] = [];
    const components = (root.components as unknown as { schemas: Record<string, Json> }).schemas;
    for (const name of Object.keys(components)) schemas.push([`#/components/schemas/${name}`, components[name] as Json]);
    for (const [pointer, value] of walk(root.paths as unknown as Json, "#/paths"))
      if (/\/schema$/.test(pointer) && !/\/properties\/schema$/.test(pointer)) schemas.push([pointer, value]);
    expect(schemas.length).toBeGreaterThan(100);
    const problems: string[] = [];
    for (const [pointer, schema] of schemas) {
      // The dialect is OpenAPI 3.1's (2020-12); ajv's meta-schema judges the keywords the drafts share.
      const { $schema: _dialect, ...judged } = schema as Record<string, Json>;
      if (!ajv.validateSchema(judged)) problems.push(`${pointer}: ${ajv.errorsText(ajv.errors)}`);
      try {
        ajv.compile({ $ref: `openapi.json${pointer}` });
      } catch (error) {
        problems.push(`${pointer}: ${(error as Error).message}`);
      }
    }
    // Each request body's example is one the document's own schema accepts.
    for (const [pointer, media] of walk(root.paths as unknown as Json, "#/paths")) {
      if (!/\/requestBody\/content\/[^/]+$/.test(pointer) || !media || typeof media !== "object" || !("example" in media)) continue;
      const validate = ajv.compile({ $ref: `openapi.json${pointer}/schema` });
      if (!validate((media as { example: Json }).example)) problems.push(`${pointer}/example: ${ajv.errorsText(validate.errors)}`);
    }
    expect(problems).toEqual([]);
  });

  it("keeps OpenAPI 3.1's structure: info, paths, operations, parameters and responses", () => {
    const root = doc() as unknown as {
      openapi: string;
      info: { title: string; version: string };
      paths: Record<string, Record<string, Record<string, unknown>>>;
      components: { securitySchemes: Record<string, unknown> };
      security: Record<string, unknown>[];
    };
    expect(root.openapi).toMatch(/^3\.1\.\d+$/);
    expect(root.info.title).toBeTruthy();
    expect(root.info.version).toBeTruthy();
    for (const requirement of root.security)
      for (const name of Object.keys(requirement)) expect(root.components.securitySchemes).toHaveProperty(name);
    const operationIds = new Set<string>();
    const problems: string[] = [];
    for (const [path, item] of Object.entries(root.paths)) {
      if (!path.startsWith("/")) problems.push(`${path}: a path starts with /`);
      const templated = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
      for (const [method, operation] of Object.entries(item)) {
        const where = `${method.toUpperCase()} ${path}`;
        if (!METHODS.includes(method)) {
          problems.push(`${where}: not an HTTP method`);
          continue;
        }
        const id = operation.operationId as string;
        if (!id || operationIds.has(id)) problems.push(`${where}: operationId missing or repeated (${id})`);
        operationIds.add(id);
        const parameters = (operation.parameters ?? []) as { name: string; in: string; required?: boolean; schema?: unknown }[];
        const seen = new Set<string>();
        for (const p of parameters) {
          if (!p.name || !["query", "header", "path", "cookie"].includes(p.in)) problems.push(`${where}: parameter ${p.name} in ${p.in}`);
          if (!p.schema) problems.push(`${where}: parameter ${p.name} without a schema`);
          if (p.in === "path" && p.required !== true) problems.push(`${where}: path parameter ${p.name} not required`);
          if (seen.has(`${p.in}:${p.name}`)) problems.push(`${where}: parameter ${p.name} twice`);
          seen.add(`${p.in}:${p.name}`);
        }
        const inPath = parameters.filter((p) => p.in === "path").map((p) => p.name);
        if ([...inPath].sort().join() !== [...templated].sort().join())
          problems.push(`${where}: path parameters ${inPath} vs ${templated}`);
        const responses = operation.responses as Record<string, { description?: string; headers?: Record<string, { schema?: unknown }> }>;
        if (!responses || !Object.keys(responses).length) problems.push(`${where}: no responses`);
        for (const [status, response] of Object.entries(responses ?? {})) {
          if (!/^(?:[1-5]\d\d|[1-5]XX|default)$/.test(status)) problems.push(`${where}: response ${status}`);
          if (typeof response.description !== "string") problems.push(`${where} ${status}: no description`);
          for (const [name, header] of Object.entries(response.headers ?? {}))
            if (!header.schema) problems.push(`${where} ${status}: header ${name} without a schema`);
        }
        const body = operation.requestBody as { content?: Record<string, unknown> } | undefined;
        if (body && !Object.keys(body.content ?? {}).length) problems.push(`${where}: a request body without content`);
      }
    }
    expect(problems).toEqual([]);
    // Every endpoint of the router is in the document, and nothing else.
    expect(operationIds).toEqual(new Set(ENDPOINTS.map((e) => e.operationId)));
  });
});
