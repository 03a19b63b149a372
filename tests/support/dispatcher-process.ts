import { setTimeout as sleep } from "node:timers/promises";
import { parseEnv, setEnv } from "~/.server/infrastructure/config/env";
import { closeDatabase, openDatabase } from "~/.server/infrastructure/db/client";
import { dispatchBatch } from "~/.server/domains/messaging/dispatcher";
import { feedCampaigns } from "~/.server/domains/campaigns/feeder";

/**
 * A dispatcher in a process of its own, for the tests that need a second process on the same
 * PostgreSQL database, or one to kill (on PostgreSQL, or on PGlite in a folder: `pglite:<dir>`): `DATABASE_URL`, `GRAPH_API_BASE_URL` and `DISPATCH_WORKERS`
 * (rounds in parallel) from the environment; with `FEED_CAMPAIGNS=1` it also runs the campaign
 * feeder, as a server instance does. Run with `node --import tsx`. It prints
 * `DISPATCHER {"ready":true}` once it polls, and on SIGTERM stops its rounds and prints
 * `DISPATCHER {"accepted":…,"claimed":…}` (what its rounds did) before it exits.
 */

const say = (value: unknown) => process.stdout.write(`DISPATCHER ${JSON.stringify(value)}\n`);

setEnv(
  parseEnv({
    NODE_ENV: "test",
    APP_URL: "http://jumbe.test",
    GRAPH_API_BASE_URL: process.env.GRAPH_API_BASE_URL,
    GRAPH_API_TIMEOUT_MS: process.env.GRAPH_API_TIMEOUT_MS ?? "30000",
  }),
);
// `pglite:<dir>`: the embedded database in that folder (this process alone holds it while it runs).
const url = process.env.DATABASE_URL ?? "";
await openDatabase(
  url.startsWith("pglite:") ? { dataDir: url.slice("pglite:".length), migrate: false } : { databaseUrl: url, poolSize: 4, migrate: false },
);

let running = true;
const totals = { claimed: 0, accepted: 0, deferred: 0, retrying: 0, failed: 0, errors: 0 };
const workers = Math.max(1, Number(process.env.DISPATCH_WORKERS ?? 2));
const loops = Array.from({ length: workers }, async () => {
  while (running) {
    try {
      const outcome = await dispatchBatch();
      totals.claimed += outcome.claimed;
      totals.accepted += outcome.accepted;
      totals.deferred += outcome.deferred;
      totals.retrying += outcome.retrying;
      totals.failed += outcome.failed;
      if (!outcome.claimed) await sleep(20);
    } catch (error) {
      totals.errors++;
      process.stderr.write(`dispatcher round failed: ${error instanceof Error ? error.message : String(error)}\n`);
      await sleep(100);
    }
  }
});
if (process.env.FEED_CAMPAIGNS === "1")
  loops.push(
    (async () => {
      while (running) {
        try {
          const round = await feedCampaigns();
          if (!round.fed && !round.started) await sleep(20);
        } catch (error) {
          totals.errors++;
          process.stderr.write(`feeder round failed: ${error instanceof Error ? error.message : String(error)}\n`);
          await sleep(100);
        }
      }
    })(),
  );
say({ ready: true });

process.once("SIGTERM", () => {
  running = false;
  void Promise.all(loops).then(async () => {
    say(totals);
    await closeDatabase();
    process.exit(0);
  });
});
