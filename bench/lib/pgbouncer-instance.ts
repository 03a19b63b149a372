// One simulated Jumbe instance for bench/pgbouncer.ts, run with `node --import tsx`: opens the
// database as the server does (its pool of `poolSize`, through PgBouncer or not, and its LISTEN
// connection), says "ready", and on "go" (a line on stdin) runs `requests` Overview page reads with
// `clients` at once. Prints one JSON line: requests, errors, seconds.
//
//   node --import tsx bench/lib/pgbouncer-instance.ts <url> <none|pgbouncer-transaction> <direct-url> <organization-id> <clients> <requests>
import { createInterface } from "node:readline";
import { performance } from "node:perf_hooks";
import { parseEnv, setEnv } from "../../app/.server/infrastructure/config/env";
import { closeDatabase, listenChannel, openDatabase } from "../../app/.server/infrastructure/db/client";
import { dashboardOverview } from "../../app/.server/domains/dashboard/overview";
import type { CurrentUser } from "../../app/.server/domains/auth";

const [url, pooler, directUrl, organizationId, clientsText, requestsText] = process.argv.slice(2);
const clients = Number(clientsText);
const requests = Number(requestsText);

setEnv(parseEnv({ NODE_ENV: "production", DEPLOYMENT: "local", LOG_LEVEL: "warn" }));
await openDatabase({
  databaseUrl: url,
  poolSize: clients,
  pooler: pooler as "none" | "pgbouncer-transaction",
  directUrl: pooler === "none" ? undefined : directUrl,
  migrate: false,
});
// As a server does: one LISTEN connection held for its live updates.
const stopListening = await listenChannel("jumbe_bench_instances", { onMessage: () => {} });
const current = { organization: { id: organizationId } } as CurrentUser;
console.log("ready");
await new Promise<void>((resolve) => {
  const lines = createInterface({ input: process.stdin });
  lines.once("line", () => {
    // Let stdin go, or it would keep the process from ending.
    lines.close();
    process.stdin.destroy();
    resolve();
  });
});

let next = 0;
let errors = 0;
const started = performance.now();
await Promise.all(
  Array.from({ length: clients }, async () => {
    while (next++ < requests) {
      try {
        await dashboardOverview(current);
      } catch (error) {
        if (errors++ === 0) console.error(error);
      }
    }
  }),
);
const seconds = (performance.now() - started) / 1000;
console.log(JSON.stringify({ requests, errors, seconds: Math.round(seconds * 1000) / 1000 }));
await stopListening();
await closeDatabase();
process.exit(0);
