import { once } from "node:events";
import type { Server } from "node:http";
import net, { type AddressInfo } from "node:net";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { env } from "~/.server/infrastructure/config/env";
import { createHttpServer } from "../../server";

// A client that keeps a connection alive reuses it after a pause: Playwright's request context (an
// http.Agent with keepAlive and no idle limit of its own), Jumbe's Graph client (idle sockets 4 s),
// nginx (`keepalive_timeout 4s`). When the server closed idle connections after Node's default 5 s,
// a request written on such a connection as the server closed it was reset (ECONNRESET) before any
// answer: seen in the browser suite on a loaded machine, where a client reads the close late. The
// server now keeps an idle connection `HTTP_KEEP_ALIVE_SECONDS` (65 s), above the pauses of a spec
// and the idle limits of the others (decision 130).

let server: Server;
let port: number;

beforeAll(async () => {
  const app = express();
  app.get("/ping", (_req, res) => {
    res.type("text/plain").send("pong");
  });
  server = createHttpServer(app);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => server?.close(() => resolve()));
});

/** One connection, its answers as they arrive, and whether the server ended it. */
function connection() {
  const socket = net.connect(port, "127.0.0.1");
  let received = "";
  let ended: string | undefined;
  const waiters: (() => void)[] = [];
  const wake = () => waiters.splice(0).forEach((w) => w());
  socket.setEncoding("utf8");
  socket.on("data", (chunk: string) => {
    received += chunk;
    wake();
  });
  socket.on("end", () => {
    ended ??= "the server ended the connection";
    wake();
  });
  socket.on("error", (error: NodeJS.ErrnoException) => {
    ended ??= error.code ?? error.message;
    wake();
  });
  /** Sends one GET and resolves with its answer's head and body, or with why there was none. */
  const get = async (path: string) => {
    const start = received.length;
    if (ended) return { failed: ended };
    socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: keep-alive\r\n\r\n`);
    for (;;) {
      const answer = received.slice(start);
      const head = answer.split("\r\n\r\n")[0] ?? "";
      const length = Number(/content-length:\s*(\d+)/i.exec(head)?.[1] ?? NaN);
      if (answer.includes("\r\n\r\n") && answer.length - head.length - 4 >= length)
        return { head, body: answer.slice(head.length + 4, head.length + 4 + length) };
      if (ended) return { failed: ended };
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  };
  return { get, close: () => socket.destroy() };
}

describe("an idle kept-alive connection", () => {
  it("announces how long it is kept, above the idle reuse of the clients in front of it", async () => {
    const client = connection();
    try {
      const answer = await client.get("/ping");
      expect(answer).toMatchObject({ body: "pong" });
      expect(answer.head).toMatch(new RegExp(`^keep-alive: timeout=${env().HTTP_KEEP_ALIVE_SECONDS}$`, "im"));
      expect(env().HTTP_KEEP_ALIVE_SECONDS).toBeGreaterThan(60);
    } finally {
      client.close();
    }
  });

  it("is answered when a client reuses it after a pause longer than Node's default 5 s", async () => {
    const client = connection();
    try {
      expect(await client.get("/ping")).toMatchObject({ body: "pong" });
      // The pause of a client whose own idle timer is late: past the old 5 s, well within 65 s.
      await new Promise((resolve) => setTimeout(resolve, 6_000));
      expect(await client.get("/ping")).toMatchObject({ body: "pong" });
    } finally {
      client.close();
    }
  });
});
