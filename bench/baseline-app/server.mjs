// The baseline app's server, shaped like React Router's custom-server template: Express,
// `compression`, the client build as static files, then @react-router/express's handler.
// Prints {"port": N} on stdout once it listens on 127.0.0.1 (PORT, else a free port).
import path from "node:path";
import { fileURLToPath } from "node:url";
import compression from "compression";
import express from "express";
import { createRequestHandler } from "@react-router/express";

const here = path.dirname(fileURLToPath(import.meta.url));
const buildDir = path.join(here, "../results/baseline-app-build");
const build = await import(path.join(buildDir, "server/index.js"));

const app = express();
app.disable("x-powered-by");
app.use(compression());
app.use("/assets", express.static(path.join(buildDir, "client/assets"), { immutable: true, maxAge: "1y" }));
app.use(express.static(path.join(buildDir, "client"), { maxAge: "1h" }));
app.use(createRequestHandler({ build, mode: process.env.NODE_ENV }));

const server = app.listen(Number(process.env.PORT ?? 0), "127.0.0.1", () => {
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
});
const stop = () => server.close(() => process.exit(0));
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
