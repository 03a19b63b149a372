// Rebuilds tests/fixtures/openai-openapi/responses.json from OpenAI's published OpenAPI document
// (github.com/openai/openai-openapi, file openapi.json or openapi.yaml), then
// `npx prettier --write tests/fixtures/openai-openapi`:
//   node scripts/extract-openai-openapi.mjs <openapi.json|openapi.yaml> <commit of openai/openai-openapi>
// It keeps the response schemas of the calls the fidelity suite makes (tests/fidelity/openai.test.ts),
// the error body OpenAI documents (ErrorResponse, the 429 of chat completions) and the component
// schemas they reference. Annotations are removed at schema level only (a property named "title" or
// "default" stays): description, title, example(s), default, deprecated and the x-* extensions. The
// tests read only the JSON, so a clean clone needs neither the document nor this script.
import fs from "node:fs";
import yaml from "js-yaml";

const OPERATIONS = [
  ["POST", "/chat/completions", "200"],
  ["POST", "/chat/completions", "429"],
  ["GET", "/models", "200"],
  ["GET", "/models/{model}", "200"],
];
const ANNOTATIONS = new Set(["description", "title", "example", "examples", "default", "deprecated"]);

const [source, commit] = process.argv.slice(2);
if (!source || !commit || !/^[0-9a-f]{40}$/.test(commit))
  throw new Error("usage: node scripts/extract-openai-openapi.mjs <openapi.json|openapi.yaml> <40-hex commit>");
const text = fs.readFileSync(source, "utf8");
const doc = source.endsWith(".json") ? JSON.parse(text) : yaml.load(text);

/** A schema without its annotations, its subschemas likewise. */
function strip(schema) {
  if (Array.isArray(schema)) return schema.map(strip);
  if (!schema || typeof schema !== "object") return schema;
  const out = {};
  for (const [key, value] of Object.entries(schema)) {
    if (ANNOTATIONS.has(key) || key.startsWith("x-")) continue;
    if (key === "properties" || key === "$defs")
      out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, strip(sub)]));
    else if (["items", "additionalProperties", "not", "anyOf", "oneOf", "allOf"].includes(key)) out[key] = strip(value);
    else out[key] = value;
  }
  return out;
}

const schemas = {};
function collect(node) {
  if (Array.isArray(node)) return node.forEach(collect);
  if (!node || typeof node !== "object") return;
  if (typeof node.$ref === "string") {
    const name = node.$ref.replace("#/components/schemas/", "");
    if (!(name in schemas)) {
      const target = doc.components.schemas[name];
      if (!target) throw new Error(`no component schema ${node.$ref}`);
      schemas[name] = strip(target);
      collect(schemas[name]);
    }
  }
  for (const value of Object.values(node)) collect(value);
}

function responseOf(response) {
  const resolved =
    typeof response.$ref === "string" ? doc.components.responses[response.$ref.replace("#/components/responses/", "")] : response;
  return resolved.content["application/json"].schema;
}

const operations = {};
for (const [method, path, status] of OPERATIONS) {
  const schema = strip(responseOf(doc.paths[path][method.toLowerCase()].responses[status]));
  collect(schema);
  operations[`${method} ${path} ${status}`] = schema;
}
// The body of every error answer (OpenAI documents it once, as ErrorResponse).
collect({ $ref: "#/components/schemas/ErrorResponse" });

const out = {
  source: `OpenAI's OpenAPI document, github.com/openai/openai-openapi at ${commit} (info.version ${doc.info.version}, openapi ${doc.openapi})`,
  note: "The response schemas of the calls tests/fidelity/openai.test.ts makes, keyed 'METHOD path status', and the component schemas they reference (with ErrorResponse); annotations removed. Rebuild with scripts/extract-openai-openapi.mjs.",
  operations,
  schemas: Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b))),
};
fs.writeFileSync(new URL("../tests/fixtures/openai-openapi/responses.json", import.meta.url), `${JSON.stringify(out, null, 2)}\n`);
