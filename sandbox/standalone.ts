import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import express, { type Router } from "express";

/**
 * What every sandbox run as a process of its own shares (`build/server/<name>-sandbox.js`, so a
 * benchmark charges Jumbe only for Jumbe's work): its settings from the environment, an Express app
 * around its router with the CSP nonce its console pages need (as Jumbe's security headers give them),
 * listening, and stopping on a signal.
 */

export type Env = Record<string, string | undefined>;

/** A whole number from `env[name]`, from 0 to `max`; `fallback` when unset. */
export function wholeFromEnv(env: Env, name: string, fallback: number, max: number) {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > max) throw new Error(`${name} must be a whole number from 0 to ${max}.`);
  return n;
}

/** SANDBOX_CONTROL_TOKEN (at least 32 characters), or none: the control API then refuses everyone. */
export function controlTokenFromEnv(env: Env) {
  const controlToken = env.SANDBOX_CONTROL_TOKEN?.trim() || undefined;
  if (controlToken && controlToken.length < 32) throw new Error("SANDBOX_CONTROL_TOKEN must be at least 32 characters.");
  return controlToken;
}

/** `env[name]` without trailing slashes, or `fallback`. */
export function publicPathFromEnv(env: Env, name: string, fallback: string) {
  return (env[name]?.trim() || fallback).replace(/\/+$/, "");
}

/** PORT (from 0: a free one) and HOST (loopback by default). */
export function listenFromEnv(env: Env, defaultPort: number) {
  return { port: wholeFromEnv(env, "PORT", defaultPort, 65535), host: env.HOST?.trim() || "127.0.0.1" };
}

/**
 * The Express app: `/healthz`, the sandbox's router under `publicPath`, a JSON 404 naming where it
 * answers. Answers made once per call (no ETag); `noNonce` paths (an API's JSON) skip the CSP nonce.
 */
export function standaloneExpress(options: { publicPath: string; router: Router; name: string; noNonce?: (path: string) => boolean }) {
  const app = express();
  app.disable("x-powered-by");
  app.set("case sensitive routing", true);
  app.set("etag", false);
  app.use((req, res, next) => {
    if (options.noNonce?.(req.path)) return next();
    const nonce = randomBytes(16).toString("base64");
    res.locals.cspNonce = nonce;
    res.setHeader(
      "Content-Security-Policy",
      `default-src 'self'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; base-uri 'none'`,
    );
    next();
  });
  app.get("/healthz", (_req, res) => void res.json({ status: "ok" }));
  app.use(options.publicPath, options.router);
  app.use((_req, res) => void res.status(404).json({ message: `Not found: the ${options.name} answers under ${options.publicPath}.` }));
  return app;
}

/** Listens with `handler`; resolves with the server, its port (0 picks a free one) and a close that also closes `sandbox`. */
export async function listenStandalone(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  where: { port: number; host: string },
  sandbox: { close(): Promise<void> | void },
) {
  const server = createServer(handler);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(where.port, where.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : where.port;
  const close = async () => {
    await sandbox.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return { server, port, close };
}

/**
 * When the module at `moduleUrl` is the process's entry: starts it, prints `describe(base)` (base:
 * http://HOST:PORT<publicPath>), and closes it on SIGINT or SIGTERM; a configuration error exits 1.
 */
export async function runWhenInvoked(
  moduleUrl: string,
  start: () => Promise<{ port: number; publicPath: string; close(): Promise<void> }>,
  describe: (base: string) => string,
) {
  if (!process.argv[1] || path.resolve(process.argv[1]) !== fileURLToPath(moduleUrl)) return;
  try {
    const started = await start();
    const host = process.env.HOST?.trim() || "127.0.0.1";
    console.log(describe(`http://${host.includes(":") ? `[${host}]` : host}:${started.port}${started.publicPath}`));
    const stop = async () => {
      await started.close();
      process.exit(0);
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  }
}
