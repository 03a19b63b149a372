import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Server } from "node:http";
import express from "express";
import compression from "compression";
import { createRequestHandler } from "@react-router/express";
import type { ServerBuild } from "react-router";
import { env } from "~/.server/config/env";
import { databaseKind, openDatabase, closeDatabase, db } from "~/.server/db/client";
import { sql } from "drizzle-orm";
import { log } from "~/.server/log";
import { securityHeaders } from "~/.server/http/security-headers";
import { requireSameOrigin } from "~/.server/http/same-origin";
import { startHousekeeping } from "~/.server/housekeeping";
import { seedDemoData, DEMO_ACCOUNTS } from "~/.server/db/seed";
import { sandboxMailRouter } from "./sandbox/mail/router";

const here = path.dirname(fileURLToPath(import.meta.url));

/** The Express app: security headers, CSRF origin checks, health probes, static files, sandboxes, React Router. */
export function createApp(build: ServerBuild | (() => Promise<ServerBuild>)) {
  const config = env();
  const app = express();
  app.disable("x-powered-by");
  app.set("trust proxy", config.TRUST_PROXY);
  app.use(compression());
  // React Router calls res.flush() after every streamed chunk, and zlib's flush() is a full flush that
  // discards the compression history: the landing page's HTML came out twice as large. Documents
  // render completely before they are sent (onAllReady), so flushing early gains nothing.
  app.use((_req, res, next) => {
    (res as unknown as { flush: () => void }).flush = () => {};
    next();
  });
  app.use(requestLog());
  app.use(securityHeaders({ production: config.production }));

  app.get("/healthz", (_req, res) => void res.json({ status: "ok" }));
  app.get("/readyz", async (_req, res) => {
    try {
      await db().execute(sql`select 1`);
      res.json({ status: "ready", database: databaseKind() });
    } catch {
      res.status(503).json({ status: "unavailable" });
    }
  });

  const client = path.resolve(here, "../client");
  app.use("/assets", express.static(path.join(client, "assets"), { immutable: true, maxAge: "1y", index: false }));
  app.use(express.static(client, { maxAge: "1h", index: false }));

  if (config.sandbox) app.use("/sandbox", sandboxMailRouter());
  app.use(requireSameOrigin({ appUrl: config.APP_URL, exempt: (p) => p.startsWith("/webhooks/") || p.startsWith("/sandbox/") }));

  app.all(
    "/{*splat}",
    createRequestHandler({
      build: build as ServerBuild,
      getLoadContext: (req, res) => ({ clientIp: req.ip, cspNonce: res.locals.cspNonce as string }),
    }),
  );
  return app;
}

function requestLog() {
  return (req: express.Request, res: express.Response, next: express.NextFunction) => {
    const started = process.hrtime.bigint();
    res.on("finish", () => {
      if (req.path.startsWith("/assets/")) return;
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      log().info({ method: req.method, path: req.path, status: res.statusCode, ms: Math.round(ms * 10) / 10, ip: req.ip }, "request");
    });
    next();
  };
}

/** Opens the database, seeds the demo in sandbox mode, and listens. */
export async function startServer(build: ServerBuild, overrides: { port?: number } = {}) {
  const config = env();
  await openDatabase(
    config.DATABASE_URL ? { databaseUrl: config.DATABASE_URL, poolSize: config.DATABASE_POOL_SIZE } : { dataDir: path.join(config.DATA_DIR, "pglite") },
  );
  if (config.sandbox) await seedDemoData();
  const stopHousekeeping = startHousekeeping();
  const app = createApp(build);
  const port = overrides.port ?? config.PORT;
  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(port, config.HOST, () => resolve(listening));
  });
  const address = server.address();
  const actualPort = typeof address === "object" && address ? address.port : port;
  announce(actualPort);

  // Finish requests in flight before the database closes (rolling restarts behind nginx).
  const shutdown = async () => {
    stopHousekeeping();
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 10_000).unref())]);
    await closeDatabase();
    process.exit(0);
  };
  process.once("SIGINT", shutdown);
  process.once("SIGTERM", shutdown);
  return { server, port: actualPort };
}

function announce(port: number) {
  const config = env();
  const url = `http://${config.HOST === "0.0.0.0" ? "localhost" : config.HOST}:${port}`;
  const lines = [`Jumbe is running at ${url} (database: ${databaseKind()}${config.DATABASE_URL ? "" : `, ${path.resolve(config.DATA_DIR)}`})`];
  if (config.sandbox) {
    lines.push("Sandbox mode: outside systems are local stand-ins.");
    for (const account of DEMO_ACCOUNTS) lines.push(`  ${account.label}: ${account.email} / ${account.password}`);
    lines.push(config.SMTP_URL ? `  Mail goes out over ${new URL(config.SMTP_URL).host}` : `  Mail outbox: ${url}/sandbox/mail`);
  }
  console.log(lines.join("\n"));
}

const invokedDirectly = process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (invokedDirectly) {
  const build = (await import("virtual:react-router/server-build")) as unknown as ServerBuild;
  startServer(build).catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
