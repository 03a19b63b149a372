import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import express from "express";
import { DEMO_META_APP_ID, DEMO_META_APP_SECRET } from "./demo-app";
import { sendingFromEnv } from "./env-options";
import { createMetaSandbox, type MetaSandbox } from "./index";

/**
 * The Meta sandbox as a process of its own (`node build/server/meta-sandbox.js`), so a benchmark
 * measures Jumbe alone: Jumbe's GRAPH_API_BASE_URL points at http://HOST:PORT<publicPath>/graph
 * and the sandbox sends its webhooks to META_SANDBOX_WEBHOOK_URL (Jumbe's /webhooks/whatsapp).
 * Configured from the environment, mirroring how server.ts starts the in-app sandbox.
 */

export interface StandaloneConfig {
  port: number;
  host: string;
  publicPath: string;
  sandbox: MetaSandbox;
}

function whole(env: Record<string, string | undefined>, name: string, fallback: number, max: number) {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > max) throw new Error(`${name} must be a whole number from 0 to ${max}.`);
  return n;
}

/** The sandbox and where to listen, from environment variables (sandbox/README.md: the Meta sandbox as its own process). */
export function createStandaloneSandbox(env: Record<string, string | undefined> = process.env): StandaloneConfig {
  const publicPath = (env.META_SANDBOX_PUBLIC_PATH?.trim() || "/sandbox/meta").replace(/\/+$/, "");
  const controlToken = env.SANDBOX_CONTROL_TOKEN?.trim() || undefined;
  if (controlToken && controlToken.length < 32) throw new Error("SANDBOX_CONTROL_TOKEN must be at least 32 characters.");
  const sandbox = createMetaSandbox({
    appId: env.META_APP_ID?.trim() || DEMO_META_APP_ID,
    appSecret: env.META_APP_SECRET?.trim() || DEMO_META_APP_SECRET,
    configId: env.META_CONFIG_ID?.trim() || undefined,
    webhookUrl: env.META_SANDBOX_WEBHOOK_URL?.trim() || "http://127.0.0.1:3000/webhooks/whatsapp",
    statePath: env.META_SANDBOX_STATE?.trim() || undefined,
    // As in-app: the admin console's demo accounts Jumbe's demo seed stores answer Test Connection.
    consoleDemo: true,
    publicPath,
    templateReviewDelayMs: whole(env, "META_SANDBOX_TEMPLATE_REVIEW_MS", 3000, 600_000),
    controlToken,
    ...sendingFromEnv(env),
  });
  return { port: whole(env, "PORT", 4010, 65535), host: env.HOST?.trim() || "127.0.0.1", publicPath, sandbox };
}

/** The Express app around the sandbox's router: its pages need a CSP nonce, as Jumbe's security headers give them. */
export function standaloneApp(config: Pick<StandaloneConfig, "publicPath" | "sandbox">) {
  const app = express();
  app.disable("x-powered-by");
  app.set("case sensitive routing", true);
  // Graph answers are JSON made once per call: no ETag (a hash of every body) and no nonce.
  app.set("etag", false);
  const graphPrefix = `${config.publicPath}/graph/`;
  app.use((req, res, next) => {
    if (req.path.startsWith(graphPrefix)) return next();
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
  app.use((_req, res) => void res.status(404).json({ message: `Not found: the Meta sandbox answers under ${config.publicPath}.` }));
  return app;
}

/** Listens; resolves with the server and its port (0 picks a free one). */
export async function startStandaloneSandbox(env: Record<string, string | undefined> = process.env) {
  const config = createStandaloneSandbox(env);
  const app = standaloneApp(config);
  // Graph's send endpoint first, without Express when it can (MetaSandbox.sendFastPath).
  const server = createServer((req, res) => {
    if (!config.sandbox.sendFastPath(req, res)) app(req, res);
  });
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
    console.log(`Meta sandbox listening: console ${base}, GRAPH_API_BASE_URL=${base}/graph`);
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
