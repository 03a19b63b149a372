import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import express from "express";
import { demoSmsAccount } from "./demo-account";
import { createAfricastalkingSandbox, type AfricastalkingSandbox } from "./index";

/**
 * The Africa's Talking sandbox as a process of its own (`node build/server/africastalking-sandbox.js`),
 * so a benchmark charges Jumbe only for Jumbe's work, as in production where AT is remote: Jumbe's
 * AFRICASTALKING_BASE_URL points at http://HOST:PORT<publicPath>. It knows the demo application
 * (demo-account.ts, the one Jumbe's demo seed connects); the control API changes its balance and
 * callback URLs. Configured from the environment, mirroring how server.ts starts the in-app sandbox.
 */

export interface StandaloneConfig {
  port: number;
  host: string;
  publicPath: string;
  sandbox: AfricastalkingSandbox;
}

function whole(env: Record<string, string | undefined>, name: string, fallback: number, max: number) {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > max) throw new Error(`${name} must be a whole number from 0 to ${max}.`);
  return n;
}

/** The sandbox and where to listen, from environment variables (sandbox/README.md: the Africa's Talking sandbox as its own process). */
export function createStandaloneSandbox(env: Record<string, string | undefined> = process.env): StandaloneConfig {
  const publicPath = (env.AT_SANDBOX_PUBLIC_PATH?.trim() || "/sandbox/africastalking").replace(/\/+$/, "");
  const controlToken = env.SANDBOX_CONTROL_TOKEN?.trim() || undefined;
  if (controlToken && controlToken.length < 32) throw new Error("SANDBOX_CONTROL_TOKEN must be at least 32 characters.");
  const sandbox = createAfricastalkingSandbox({
    accounts: [demoSmsAccount()],
    publicPath,
    controlToken,
    callbackDelayMs: whole(env, "AT_SANDBOX_CALLBACK_DELAY_MS", 1000, 600_000),
  });
  return { port: whole(env, "PORT", 4020, 65535), host: env.HOST?.trim() || "127.0.0.1", publicPath, sandbox };
}

/** The Express app around the sandbox's router: its console pages need a CSP nonce, as Jumbe's security headers give them. */
export function standaloneApp(config: Pick<StandaloneConfig, "publicPath" | "sandbox">) {
  const app = express();
  app.disable("x-powered-by");
  app.set("case sensitive routing", true);
  app.set("etag", false);
  app.use((_req, res, next) => {
    const nonce = randomBytes(16).toString("base64");
    res.locals.cspNonce = nonce;
    res.setHeader(
      "Content-Security-Policy",
      `default-src 'self'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; base-uri 'none'`,
    );
    next();
  });
  app.get("/healthz", (_req, res) => void res.json({ status: "ok" }));
  app.use(config.publicPath, config.sandbox.router);
  app.use(
    (_req, res) => void res.status(404).json({ message: `Not found: the Africa's Talking sandbox answers under ${config.publicPath}.` }),
  );
  return app;
}

/** Listens; resolves with the server and its port (0 picks a free one). */
export async function startStandaloneSandbox(env: Record<string, string | undefined> = process.env) {
  const config = createStandaloneSandbox(env);
  const server = createServer(standaloneApp(config));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  const close = async () => {
    await config.sandbox.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return { server, port, sandbox: config.sandbox, publicPath: config.publicPath, close };
}

const invokedDirectly = process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (invokedDirectly) {
  try {
    const started = await startStandaloneSandbox();
    const host = process.env.HOST?.trim() || "127.0.0.1";
    const base = `http://${host.includes(":") ? `[${host}]` : host}:${started.port}${started.publicPath}`;
    console.log(`Africa's Talking sandbox listening: console ${base}, AFRICASTALKING_BASE_URL=${base}`);
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
