import { createServer, type Server } from "node:http";
import { handleApiV1 } from "~/.server/adapters/api-v1/handle";

/**
 * The real /api/v1 handler on a real loopback socket (a free port), so tests can call it as clients
 * do: with fetch, curl, Node or Python.
 */
export async function startApiV1Server() {
  let base = "";
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
    const request = new Request(`${base}${req.url}`, {
      method: req.method,
      headers,
      body: chunks.length && req.method !== "GET" ? Buffer.concat(chunks) : undefined,
    });
    const response = await handleApiV1(request);
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return { base, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
