import { once } from "node:events";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import express, { type RequestHandler } from "express";

/**
 * A test's server keeps an idle kept-alive connection as Jumbe's own server does (decision 130,
 * `HTTP_KEEP_ALIVE_SECONDS`): 65 s rather than Node's 5 s. A client reusing a connection after a
 * pause (fetch's pool, the Graph client's 4 s agent, whose timers run late on a loaded machine)
 * otherwise writes a request the server is closing, and gets a reset (ECONNRESET) instead of an answer.
 */
export function keepIdleConnections<T extends Server>(server: T): T {
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  return server;
}

/**
 * A sandbox's router on a throwaway Express app on a free port of this machine, mounted where Jumbe's
 * app mounts it (`/sandbox/<name>`), with the nonce its pages expect: the sandboxes' tests start
 * and stop it the same way. `close` ends its connections and the server.
 */
export async function serveSandboxForTest(mount: string, router: RequestHandler) {
  const app = express();
  app.use((_req, res, next) => {
    res.locals.cspNonce = "test-nonce";
    next();
  });
  app.use(mount, router);
  const server = keepIdleConnections(app.listen(0, "127.0.0.1"));
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    base: `${origin}${mount}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
