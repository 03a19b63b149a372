#!/usr/bin/env node
// `npm run dev`: the whole product with hot reload (decision 014).
//
// Vite runs in middleware mode inside Jumbe's own Express server (server.ts), so development goes
// through the same security headers, sandboxes, job workers and demo data as `npm start`. Each page
// request asks Vite for the current server build: an edited route, component or server module is
// re-evaluated on the next request, and the browser updates in place (React Fast Refresh). The
// database, the configuration and the job registry live once per process (app/.server/infrastructure/process-state.ts),
// so PGlite is opened once and survives every reload. Editing server.ts or an Express middleware
// needs a restart (Ctrl-C, then npm run dev again).
import { createServer } from "vite";

process.env.NODE_ENV ??= "development";

const vite = await createServer({
  server: { middlewareMode: true },
  appType: "custom",
});

try {
  const { startServer } = await vite.ssrLoadModule("/server.ts");
  const { server } = await startServer(() => vite.ssrLoadModule("virtual:react-router/server-build"), { vite: vite.middlewares });
  server.on("close", () => void vite.close());
  console.log("Development: edits reload in the browser; server.ts changes need a restart.");
} catch (error) {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  await vite.close();
  process.exit(1);
}
