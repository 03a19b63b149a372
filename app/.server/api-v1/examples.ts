import type { OpenApiDocument } from "./openapi";

export interface EndpointDoc {
  method: string;
  path: string;
  summary: string;
  description: string;
  examples: { curl: string; javascript: string; python: string };
}

/**
 * The Developers page's endpoint list and code examples, written from the OpenAPI document: a path
 * or method in the examples is always one the API serves. The key is read from JUMBE_API_KEY.
 */
export function endpointDocs(doc: OpenApiDocument): EndpointDoc[] {
  const base = doc.servers[0]!.url;
  return Object.entries(doc.paths).flatMap(([path, operations]) =>
    Object.entries(operations).map(([method, operation]) => {
      const op = operation as { summary: string; description: string };
      const url = `${base}${path}`;
      return {
        method: method.toUpperCase(),
        path,
        summary: op.summary,
        description: op.description,
        examples: {
          curl: `curl -sS --fail-with-body ${method === "get" ? "" : `-X ${method.toUpperCase()} `}"${url}" \\\n  -H "Authorization: Bearer $JUMBE_API_KEY"`,
          javascript: [
            `// Node 18+ (save as example.mjs) or a browser console`,
            `const response = await fetch("${url}", {`,
            `  method: "${method.toUpperCase()}",`,
            "  headers: { Authorization: `Bearer ${process.env.JUMBE_API_KEY}` },",
            `});`,
            `const body = await response.json();`,
            "if (!response.ok) throw new Error(`${body.code}: ${body.message}`);",
            `console.log(body);`,
          ].join("\n"),
          python: [
            `import json, os, urllib.request`,
            ``,
            `request = urllib.request.Request(`,
            `    "${url}",`,
            `    method="${method.toUpperCase()}",`,
            `    headers={"Authorization": "Bearer " + os.environ["JUMBE_API_KEY"]},`,
            `)`,
            `with urllib.request.urlopen(request) as response:`,
            `    print(json.dumps(json.load(response), indent=2))`,
          ].join("\n"),
        },
      };
    }),
  );
}
