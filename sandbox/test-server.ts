import type { Server } from "node:http";

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
