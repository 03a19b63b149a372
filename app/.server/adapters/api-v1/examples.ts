import type { OpenApiDocument } from "./openapi";

export interface EndpointDoc {
  /** The OpenAPI operation's id: its page on the Developers tab is /developers/api/<operationId>. */
  operationId: string;
  method: string;
  path: string;
  summary: string;
  description: string;
  examples: { curl: string; javascript: string; python: string };
}

interface Operation {
  operationId: string;
  summary: string;
  description: string;
  parameters?: { name: string; in: string }[];
  requestBody?: { content: Record<string, { example?: unknown }>; "x-example"?: { file: string; contentType: string; field?: string } };
  responses: Record<string, unknown>;
}

/**
 * The environment variable an example reads a path parameter from: `{id}` after `/templates`
 * is TEMPLATE_ID (the one-word singular of the segment before it, then the parameter's name).
 */
export function pathParameterVariable(path: string, name: string) {
  const segments = path.split("/");
  const before = segments[segments.indexOf(`{${name}}`) - 1] ?? "";
  const noun = before.replace(/[^A-Za-z0-9]+/g, "_").replace(/s$/, "");
  return `${noun ? `${noun}_` : ""}${name}`.toUpperCase();
}

/** The URL with each `{name}` replaced, in each language's way, by its environment variable. */
function urls(base: string, path: string) {
  const names = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  let shell = `${base}${path}`;
  let js = shell;
  for (const name of names) {
    const variable = pathParameterVariable(path, name);
    shell = shell.replace(`{${name}}`, `$${variable}`);
    js = js.replace(`{${name}}`, `\${process.env.${variable}}`);
  }
  const python = `${base}${path}`
    .split(/\{(\w+)\}/)
    .map((part, i) => (i % 2 ? `os.environ["${pathParameterVariable(path, part)}"]` : JSON.stringify(part)))
    .filter((part) => part !== '""')
    .join(" + ");
  return {
    shell: `"${shell}"`,
    js: names.length ? `\`${js}\`` : JSON.stringify(js),
    python,
    variables: names.map((n) => ({ name: n, variable: pathParameterVariable(path, n) })),
  };
}

type Syntax = "json" | "javascript" | "python";

const isInline = (value: unknown): boolean =>
  value === null || typeof value !== "object" || (Array.isArray(value) && value.every(isInline));

/**
 * A JSON value written out in a language's syntax, indented, with short lists on one line:
 * JSON for curl, an object literal for JavaScript, a dict with True, False and None for Python.
 */
export function literal(value: unknown, syntax: Syntax, indent = ""): string {
  const step = syntax === "python" ? "    " : "  ";
  const inner = indent + step;
  if (value === null || value === undefined) return syntax === "python" ? "None" : "null";
  if (typeof value === "boolean") return syntax === "python" ? (value ? "True" : "False") : String(value);
  if (typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) {
    if (isInline(value)) return `[${value.map((v) => literal(v, syntax)).join(", ")}]`;
    return `[\n${value.map((v) => inner + literal(v, syntax, inner)).join(",\n")}\n${indent}]`;
  }
  const entries = Object.entries(value as Record<string, unknown>);
  if (!entries.length) return "{}";
  const key = (k: string) => (syntax === "javascript" && /^[A-Za-z_$][\w$]*$/.test(k) ? k : JSON.stringify(k));
  return `{\n${entries.map(([k, v]) => `${inner}${key(k)}: ${literal(v, syntax, inner)}`).join(",\n")}\n${indent}}`;
}

const setFirst = ({ name, variable }: { name: string; variable: string }, path: string) =>
  `Set ${variable} first: the {${name}} of ${path}.`;

// The examples of each (shared, unchanging) document, written once.
const written = new WeakMap<OpenApiDocument, EndpointDoc[]>();

/**
 * The Developers page's endpoint list and code examples, written from the OpenAPI document: a path
 * or method in the examples is always one the API serves, and a body is the documented example.
 * The key is read from JUMBE_API_KEY, a path parameter from its own variable (TEMPLATE_ID for
 * `{id}` of /templates).
 */
export function endpointDocs(doc: OpenApiDocument): EndpointDoc[] {
  let docs = written.get(doc);
  if (!docs) written.set(doc, (docs = writeEndpointDocs(doc)));
  return docs;
}

function writeEndpointDocs(doc: OpenApiDocument): EndpointDoc[] {
  const base = doc.servers[0]!.url;
  return Object.entries(doc.paths).flatMap(([path, operations]) =>
    Object.entries(operations).map(([method, operation]) => {
      const op = operation as Operation;
      const url = urls(base, path);
      const METHOD = method.toUpperCase();
      const file = op.requestBody?.["x-example"];
      if (file?.field) return formExample(METHOD, path, op, url, { ...file, field: file.field });
      if (file) return fileExample(METHOD, path, op, url, file);
      const hasBody = !!op.requestBody;
      const example = op.requestBody?.content["application/json"]?.example;
      const noContent = "204" in op.responses;
      return {
        method: METHOD,
        path,
        operationId: op.operationId,
        summary: op.summary,
        description: op.description,
        examples: {
          curl: [
            ...url.variables.map((v) => `# ${setFirst(v, path)}`),
            `curl -sS --fail-with-body ${method === "get" ? "" : `-X ${METHOD} `}${url.shell} \\`,
            `  -H "Authorization: Bearer $JUMBE_API_KEY"${hasBody || noContent ? " \\" : ""}`,
            ...(hasBody ? [`  -H "Content-Type: application/json" \\`, `  -d '${literal(example, "json").replace(/'/g, `'\\''`)}'`] : []),
            ...(noContent ? [`  -w "HTTP %{http_code}\\n"`] : []),
          ].join("\n"),
          javascript: [
            `// Node 18+ (save as example.mjs) or a browser console`,
            ...url.variables.map((v) => `// ${setFirst(v, path)}`),
            `const response = await fetch(${url.js}, {`,
            `  method: "${METHOD}",`,
            hasBody
              ? '  headers: { Authorization: `Bearer ${process.env.JUMBE_API_KEY}`, "Content-Type": "application/json" },'
              : "  headers: { Authorization: `Bearer ${process.env.JUMBE_API_KEY}` },",
            ...(hasBody ? [`  body: JSON.stringify(${literal(example, "javascript", "  ")}),`] : []),
            `});`,
            ...(noContent
              ? [
                  `if (!response.ok) {`,
                  `  const body = await response.json();`,
                  "  throw new Error(`${body.code}: ${body.message}`);",
                  `}`,
                  "console.log(`Deleted (HTTP ${response.status})`);",
                ]
              : [
                  `const body = await response.json();`,
                  "if (!response.ok) throw new Error(`${body.code}: ${body.message}`);",
                  `console.log(JSON.stringify(body, null, 2));`,
                ]),
          ].join("\n"),
          python: [
            `import json, os, urllib.error, urllib.request`,
            ``,
            ...url.variables.map((v) => `# ${setFirst(v, path)}`),
            ...(hasBody ? [`payload = ${literal(example, "python")}`, ``] : []),
            `request = urllib.request.Request(`,
            `    ${url.python},`,
            `    method="${METHOD}",`,
            hasBody
              ? `    headers={"Authorization": "Bearer " + os.environ["JUMBE_API_KEY"], "Content-Type": "application/json"},`
              : `    headers={"Authorization": "Bearer " + os.environ["JUMBE_API_KEY"]},`,
            ...(hasBody ? [`    data=json.dumps(payload).encode(),`] : []),
            `)`,
            `try:`,
            `    with urllib.request.urlopen(request) as response:`,
            noContent ? `        print("Deleted (HTTP %d)" % response.status)` : `        print(json.dumps(json.load(response), indent=2))`,
            `except urllib.error.HTTPError as error:`,
            `    body = json.load(error)`,
            `    raise SystemExit(body["code"] + ": " + body["message"])`,
          ].join("\n"),
        },
      };
    }),
  );
}

/**
 * The examples of an endpoint whose body is a file (a template's sample): each sends the named
 * file from the current directory as the raw body with its Content-Type.
 */
function fileExample(
  METHOD: string,
  path: string,
  op: Operation,
  url: ReturnType<typeof urls>,
  file: { file: string; contentType: string },
): EndpointDoc {
  const note = `${file.file}: the header's sample in the current directory (JPEG, PNG, MP4 or PDF, with its Content-Type).`;
  return {
    method: METHOD,
    path,
    operationId: op.operationId,
    summary: op.summary,
    description: op.description,
    examples: {
      curl: [
        `# ${note}`,
        `curl -sS --fail-with-body -X ${METHOD} ${url.shell} \\`,
        `  -H "Authorization: Bearer $JUMBE_API_KEY" \\`,
        `  -H "Content-Type: ${file.contentType}" \\`,
        `  --data-binary @${file.file}`,
      ].join("\n"),
      javascript: [
        `// Node 18+ (save as example.mjs)`,
        `// ${note}`,
        `import { readFile } from "node:fs/promises";`,
        ``,
        `const response = await fetch(${url.js}, {`,
        `  method: "${METHOD}",`,
        `  headers: { Authorization: \`Bearer \${process.env.JUMBE_API_KEY}\`, "Content-Type": "${file.contentType}" },`,
        `  body: await readFile("${file.file}"),`,
        `});`,
        `const body = await response.json();`,
        "if (!response.ok) throw new Error(`${body.code}: ${body.message}`);",
        `console.log(JSON.stringify(body, null, 2));`,
      ].join("\n"),
      python: [
        `import json, os, urllib.error, urllib.request`,
        ``,
        `# ${note}`,
        `with open("${file.file}", "rb") as sample:`,
        `    payload = sample.read()`,
        ``,
        `request = urllib.request.Request(`,
        `    ${url.python},`,
        `    method="${METHOD}",`,
        `    headers={"Authorization": "Bearer " + os.environ["JUMBE_API_KEY"], "Content-Type": "${file.contentType}"},`,
        `    data=payload,`,
        `)`,
        `try:`,
        `    with urllib.request.urlopen(request) as response:`,
        `        print(json.dumps(json.load(response), indent=2))`,
        `except urllib.error.HTTPError as error:`,
        `    body = json.load(error)`,
        `    raise SystemExit(body["code"] + ": " + body["message"])`,
      ].join("\n"),
    },
  };
}

/**
 * The examples of an upload as multipart/form-data (a file to send): each sends the named file
 * from the current directory as the form's part `field`, with its name and Content-Type.
 */
function formExample(
  METHOD: string,
  path: string,
  op: Operation,
  url: ReturnType<typeof urls>,
  file: { file: string; contentType: string; field: string },
): EndpointDoc {
  const note = `${file.file}: the file to send, in the current directory (any type WhatsApp takes, with its Content-Type).`;
  return {
    method: METHOD,
    path,
    operationId: op.operationId,
    summary: op.summary,
    description: op.description,
    examples: {
      curl: [
        `# ${note}`,
        `curl -sS --fail-with-body -X ${METHOD} ${url.shell} \\`,
        `  -H "Authorization: Bearer $JUMBE_API_KEY" \\`,
        `  -F "${file.field}=@${file.file};type=${file.contentType}"`,
      ].join("\n"),
      javascript: [
        `// Node 20+ (save as example.mjs)`,
        `// ${note}`,
        `import { openAsBlob } from "node:fs";`,
        ``,
        `const form = new FormData();`,
        `form.set("${file.field}", await openAsBlob("${file.file}", { type: "${file.contentType}" }), "${file.file}");`,
        `const response = await fetch(${url.js}, {`,
        `  method: "${METHOD}",`,
        `  headers: { Authorization: \`Bearer \${process.env.JUMBE_API_KEY}\` },`,
        `  body: form,`,
        `});`,
        `const body = await response.json();`,
        "if (!response.ok) throw new Error(`${body.code}: ${body.message}`);",
        `console.log(JSON.stringify(body, null, 2));`,
      ].join("\n"),
      python: [
        `import json, os, urllib.error, urllib.request, uuid`,
        ``,
        `# ${note}`,
        `with open("${file.file}", "rb") as upload:`,
        `    content = upload.read()`,
        `boundary = uuid.uuid4().hex`,
        `payload = (`,
        `    ('--%s\\r\\nContent-Disposition: form-data; name="${file.field}"; filename="${file.file}"\\r\\n'`,
        `     'Content-Type: ${file.contentType}\\r\\n\\r\\n' % boundary).encode()`,
        `    + content`,
        `    + ("\\r\\n--%s--\\r\\n" % boundary).encode()`,
        `)`,
        ``,
        `request = urllib.request.Request(`,
        `    ${url.python},`,
        `    method="${METHOD}",`,
        `    headers={"Authorization": "Bearer " + os.environ["JUMBE_API_KEY"], "Content-Type": "multipart/form-data; boundary=" + boundary},`,
        `    data=payload,`,
        `)`,
        `try:`,
        `    with urllib.request.urlopen(request) as response:`,
        `        print(json.dumps(json.load(response), indent=2))`,
        `except urllib.error.HTTPError as error:`,
        `    body = json.load(error)`,
        `    raise SystemExit(body["code"] + ": " + body["message"])`,
      ].join("\n"),
    },
  };
}
