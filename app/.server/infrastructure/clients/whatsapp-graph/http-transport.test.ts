import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import net from "node:net";
import { gzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { createGraphClient, GraphApiError, GraphNetworkError } from "./graph-client";
import { createHttpTransport, TransportError, type Transport } from "./http-transport";

// The Graph client's keep-alive transport against loopback servers on free ports: what each way of
// failing means for a send (in doubt or not), and that answers are read as fetch read them.

const closers: (() => unknown)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function listen(server: Server | net.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        (server as Server).closeAllConnections?.();
        server.close(() => resolve());
      }),
  );
  return (server.address() as net.AddressInfo).port;
}

/** An HTTP server whose handler sees the request with its body read. */
async function httpServer(handler: (req: IncomingMessage, res: ServerResponse, body: string) => void) {
  const connections: net.Socket[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => handler(req, res, Buffer.concat(chunks).toString("utf8")));
  });
  server.on("connection", (socket) => connections.push(socket));
  const port = await listen(server);
  return { port, connections };
}

/** A raw TCP server: each connection gets `onConnection`, after the request's first bytes arrived when `afterRequest`. */
async function tcpServer(onConnection: (socket: net.Socket) => void, afterRequest = true) {
  const sockets: net.Socket[] = [];
  const server = net.createServer((socket) => {
    sockets.push(socket);
    socket.on("error", () => undefined);
    if (afterRequest) socket.once("data", () => onConnection(socket));
    else onConnection(socket);
  });
  closers.push(() => sockets.forEach((s) => s.destroy()));
  return listen(server);
}

async function closedPort() {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", () => resolve()));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

function transport(options?: Parameters<typeof createHttpTransport>[0]): Transport {
  const t = createHttpTransport(options);
  closers.push(() => t.close());
  return t;
}

function client(port: number, t: Transport, timeoutMs = 300, protocol = "http") {
  return createGraphClient({
    baseUrl: `${protocol}://127.0.0.1:${port}/graph`,
    version: "v25.0",
    appId: "1",
    appSecret: "s",
    timeoutMs,
    attempts: 1,
    transport: t,
  });
}

const send = (c: ReturnType<typeof client>) =>
  c.sendMessage("123", "tok", { to: "254700000001", type: "text", text: { body: "x" } }).catch((e: unknown) => e);

const okAnswer = JSON.stringify({ messaging_product: "whatsapp", contacts: [{ wa_id: "254700000001" }], messages: [{ id: "wamid.A" }] });

describe("the Graph client's keep-alive transport", () => {
  it("sends the request as fetch did and reuses one connection for calls one after another", async () => {
    const seen: { method?: string; url?: string; headers: IncomingMessage["headers"]; body: string }[] = [];
    const { port, connections } = await httpServer((req, res, body) => {
      seen.push({ method: req.method, url: req.url, headers: req.headers, body });
      res.writeHead(200, { "Content-Type": "application/json" }).end(okAnswer);
    });
    const c = client(port, transport());
    for (let i = 0; i < 3; i++)
      expect(await c.sendMessage("123", "tok", { to: "254700000001", type: "text" })).toEqual({
        wamid: "wamid.A",
        waId: "254700000001",
      });
    expect(connections).toHaveLength(1);
    expect(seen[0]).toMatchObject({
      method: "POST",
      url: "/graph/v25.0/123/messages",
      headers: { authorization: "Bearer tok", "content-type": "application/json", accept: "application/json" },
    });
    expect(JSON.parse(seen[0]!.body)).toEqual({ messaging_product: "whatsapp", to: "254700000001", type: "text" });
    expect(Number(seen[0]!.headers["content-length"])).toBe(Buffer.byteLength(seen[0]!.body));
  });

  it("opens at most maxSockets connections and queues the calls beyond them", async () => {
    const { port, connections } = await httpServer((_req, res) => {
      setTimeout(() => res.writeHead(200, { "Content-Type": "application/json" }).end(okAnswer), 20);
    });
    const c = client(port, transport({ maxSockets: 4 }), 5000);
    const answers = await Promise.all(Array.from({ length: 12 }, () => c.sendMessage("123", "tok", { to: "254700000001" })));
    expect(answers.every((a) => a.wamid === "wamid.A")).toBe(true);
    expect(connections).toHaveLength(4);
  });

  it("a refused connection never reached Meta: not in doubt", async () => {
    const port = await closedPort();
    const raw = await transport()
      .request({ method: "POST", url: new URL(`http://127.0.0.1:${port}/x`), headers: {}, body: "{}", timeoutMs: 1000 })
      .catch((e: unknown) => e);
    expect(raw).toBeInstanceOf(TransportError);
    expect(raw).toMatchObject({ kind: "refused", sent: false, code: "ECONNREFUSED" });
    const error = await send(client(port, transport()));
    expect(error).toBeInstanceOf(GraphNetworkError);
    expect(error).toMatchObject({ step: "messages.send", inDoubt: false });
    expect((error as Error).message).toMatch(/unreachable.*ECONNREFUSED/);
  });

  it("an https URL refused, and a TLS handshake the server cut, are not in doubt either", async () => {
    expect(await send(client(await closedPort(), transport(), 300, "https"))).toMatchObject({ inDoubt: false });
    // A plain TCP server that hangs up on the ClientHello: the request never left, encrypted or not.
    const port = await tcpServer((socket) => socket.destroy());
    const error = await send(client(port, transport(), 2000, "https"));
    expect(error).toBeInstanceOf(GraphNetworkError);
    expect(error).toMatchObject({ inDoubt: false });
  });

  it("a server that takes the request and never answers times out in doubt", async () => {
    const port = await tcpServer(() => undefined);
    const error = await send(client(port, transport(), 200));
    expect(error).toBeInstanceOf(GraphNetworkError);
    expect(error).toMatchObject({ inDoubt: true, message: "Graph messages.send timed out after 200 ms" });
    expect((error as GraphNetworkError).cause).toMatchObject({ kind: "timeout", sent: true });
  });

  it("a connection cut after the request, before or while answering, is in doubt", async () => {
    const beforeAnswer = await tcpServer((socket) => socket.destroy());
    expect(await send(client(beforeAnswer, transport(), 2000))).toMatchObject({ inDoubt: true });
    const midAnswer = await tcpServer((socket) => {
      socket.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n" + okAnswer.slice(0, 20));
      setTimeout(() => socket.destroy(), 20);
    });
    const error = await send(client(midAnswer, transport(), 2000));
    expect(error).toBeInstanceOf(GraphNetworkError);
    expect(error).toMatchObject({ inDoubt: true });
    expect((error as Error).message).toMatch(/cut off/);
    // A reset mid-answer is not mistaken for the end of a chunked answer either.
    const chunked = await tcpServer((socket) => {
      socket.write('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"mes\r\n');
      setTimeout(() => socket.resetAndDestroy(), 20);
    });
    expect(await send(client(chunked, transport(), 2000))).toMatchObject({ inDoubt: true });
  });

  it("refuses an answer over the size limit, declared or streamed, with a clear error", async () => {
    const big = "x".repeat(4096);
    const { port: declared } = await httpServer((_req, res) => res.writeHead(200, { "Content-Length": String(big.length) }).end(big));
    const t = transport();
    const raw = await t
      .request({ method: "GET", url: new URL(`http://127.0.0.1:${declared}/`), headers: {}, timeoutMs: 1000, maxBytes: 1024 })
      .catch((e: unknown) => e);
    expect(raw).toMatchObject({ kind: "too_large", sent: true, message: "answer of 4096 bytes is over the limit of 1024" });
    const { port: streamed } = await httpServer((_req, res) => {
      res.writeHead(200);
      for (let i = 0; i < 8; i++) res.write(big);
      res.end();
    });
    const streamedError = await t
      .request({ method: "GET", url: new URL(`http://127.0.0.1:${streamed}/`), headers: {}, timeoutMs: 1000, maxBytes: 10_000 })
      .catch((e: unknown) => e);
    expect(streamedError).toMatchObject({ kind: "too_large", message: "answer over the limit of 10000 bytes" });
    // Through the client, with the default limit (16 MiB).
    const { port: huge } = await httpServer((_req, res) => res.writeHead(200, { "Content-Length": String(32 * 1024 * 1024) }).end());
    const error = await send(client(huge, transport(), 2000));
    expect(error).toBeInstanceOf(GraphNetworkError);
    expect(error).toMatchObject({
      inDoubt: true,
      message: "Graph messages.send answered too much: answer of 33554432 bytes is over the limit of 16777216",
    });
  });

  it("an answer that is not JSON is a clear error, in doubt; a redirect is not followed", async () => {
    const { port } = await httpServer((_req, res) => res.writeHead(200, { "Content-Type": "text/html" }).end("<html>proxy</html>"));
    const error = await send(client(port, transport()));
    expect(error).toBeInstanceOf(GraphNetworkError);
    expect(error).toMatchObject({ inDoubt: true, message: "Graph messages.send answered HTTP 200 with a body that is not JSON" });
    const { port: moved } = await httpServer((_req, res) => res.writeHead(302, { Location: "http://elsewhere.example/" }).end());
    expect(await send(client(moved, transport()))).toMatchObject({
      inDoubt: true,
      message: "Graph messages.send answered a redirect (HTTP 302), which is not followed",
    });
  });

  it("reads Graph's error envelope with its headers, a bare 5xx, and an answer compressed unasked", async () => {
    const answers = [
      (res: ServerResponse) =>
        res
          .writeHead(429, { "Content-Type": "application/json", "Retry-After": "2", "x-fb-trace-id": "TRACE1" })
          .end(JSON.stringify({ error: { message: "(#130429) Rate limit hit", code: 130429, type: "OAuthException" } })),
      (res: ServerResponse) => res.writeHead(503).end(),
      (res: ServerResponse) =>
        res.writeHead(200, { "Content-Type": "application/json", "Content-Encoding": "gzip" }).end(gzipSync(okAnswer)),
    ];
    const { port } = await httpServer((_req, res) => answers.shift()!(res));
    const c = client(port, transport());
    const throttled = await send(c);
    expect(throttled).toBeInstanceOf(GraphApiError);
    expect(throttled).toMatchObject({ status: 429, code: 130429, fbtraceId: "TRACE1", retryAfterMs: 2000, retryable: true });
    expect(await send(c)).toMatchObject({ status: 503, code: 0, retryable: true });
    expect(await send(c)).toEqual({ wamid: "wamid.A", waId: "254700000001" });
  });

  it("a call that outlives the server's idle timeout for its socket goes on a fresh connection", async () => {
    const { port, connections } = await httpServer((_req, res) => res.writeHead(200, { "Content-Type": "application/json" }).end(okAnswer));
    const t = transport({ idleSocketMs: 50 });
    const c = client(port, t, 2000);
    await c.sendMessage("123", "tok", { to: "254700000001" });
    await new Promise((resolve) => setTimeout(resolve, 200));
    await c.sendMessage("123", "tok", { to: "254700000001" });
    expect(connections).toHaveLength(2);
  });
});
