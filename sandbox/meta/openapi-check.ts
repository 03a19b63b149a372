/**
 * A checker for the part of JSON Schema (as OpenAPI 3.1 uses it) that Meta's response schemas for
 * Jumbe's Graph calls and OpenAI's for its model calls use: type, nullable, enum, required,
 * properties, additionalProperties, items, anyOf, oneOf, pattern, minLength, maxLength and $ref to
 * #/components/schemas; `format` and `discriminator` are read as the annotations they are (a oneOf
 * is judged by its branches). Any other keyword throws, so a schema this checker cannot judge is
 * never passed by accident. Properties a schema does not list are allowed, as JSON Schema allows
 * them without additionalProperties.
 */
export type Schema = { [keyword: string]: unknown };

const KEYWORDS = new Set([
  "type",
  "nullable",
  "enum",
  "required",
  "properties",
  "additionalProperties",
  "items",
  "anyOf",
  "oneOf",
  "pattern",
  "minLength",
  "maxLength",
  "$ref",
  "format",
  "discriminator",
]);

function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

function hasType(value: unknown, type: string): boolean {
  if (type === "integer") return Number.isInteger(value);
  if (type === "number") return typeof value === "number" && Number.isFinite(value);
  return typeOf(value) === type;
}

/** What in `value` breaks `schema`, as "path: problem" lines; empty when it conforms. */
export function schemaErrors(value: unknown, schema: Schema, components: Record<string, Schema>, at = "$"): string[] {
  for (const keyword of Object.keys(schema))
    if (!KEYWORDS.has(keyword)) throw new Error(`${at}: the schema uses "${keyword}", which this checker does not know`);
  const errors: string[] = [];
  if (typeof schema.$ref === "string") {
    const name = schema.$ref.replace(/^#\/components\/schemas\//, "");
    const target = components[name];
    if (!target) throw new Error(`${at}: no component schema ${schema.$ref}`);
    errors.push(...schemaErrors(value, target, components, at));
  }
  if (Array.isArray(schema.anyOf) || Array.isArray(schema.oneOf)) {
    const branches = ((schema.anyOf ?? schema.oneOf) as Schema[]).map((branch) => schemaErrors(value, branch, components, at));
    const passed = branches.filter((branchErrors) => branchErrors.length === 0).length;
    if (passed === 0)
      errors.push(`${at}: matches none of its ${schema.anyOf ? "anyOf" : "oneOf"} (${branches.map((b) => b[0]).join("; ")})`);
    else if (schema.oneOf && passed > 1) errors.push(`${at}: matches ${passed} branches of its oneOf, not one`);
  }
  if (value === null && schema.nullable === true) return errors;
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
    if (!types.some((type) => hasType(value, type)))
      return [...errors, `${at}: ${typeOf(value)} where the schema has ${types.join(" or ")}`];
  }
  if (Array.isArray(schema.enum) && !schema.enum.includes(value))
    errors.push(`${at}: ${JSON.stringify(value)} is not one of ${schema.enum.map((v) => JSON.stringify(v)).join(", ")}`);
  if (typeof value === "string") {
    if (typeof schema.pattern === "string" && !new RegExp(schema.pattern, "u").test(value))
      errors.push(`${at}: ${JSON.stringify(value)} does not match ${schema.pattern}`);
    const length = [...value].length;
    if (typeof schema.minLength === "number" && length < schema.minLength) errors.push(`${at}: shorter than ${schema.minLength}`);
    if (typeof schema.maxLength === "number" && length > schema.maxLength) errors.push(`${at}: longer than ${schema.maxLength}`);
  }
  if (typeOf(value) === "object") {
    const object = value as Record<string, unknown>;
    for (const name of (schema.required as string[] | undefined) ?? [])
      if (object[name] === undefined) errors.push(`${at}: lacks the required "${name}"`);
    const properties = (schema.properties as Record<string, Schema> | undefined) ?? {};
    for (const [name, property] of Object.entries(properties))
      if (object[name] !== undefined) errors.push(...schemaErrors(object[name], property, components, `${at}.${name}`));
    const extra = schema.additionalProperties;
    if (extra !== undefined && extra !== true)
      for (const name of Object.keys(object).filter((key) => !Object.hasOwn(properties, key)))
        errors.push(
          ...(extra === false
            ? [`${at}: has "${name}", which the schema does not allow`]
            : schemaErrors(object[name], extra as Schema, components, `${at}.${name}`)),
        );
  }
  if (Array.isArray(value) && schema.items)
    value.forEach((item, index) => errors.push(...schemaErrors(item, schema.items as Schema, components, `${at}[${index}]`)));
  return errors;
}
