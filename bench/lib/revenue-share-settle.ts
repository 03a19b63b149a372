// The settlement run of bench/revenue-share-settlement.mjs, in the app's own code: opens the database
// (DATABASE_URL, already migrated) and times settleMonth(period), printing JSON on stdout.
import { performance } from "node:perf_hooks";
import { closeDatabase, openDatabase } from "~/.server/infrastructure/db/client";
import { settleMonth } from "~/.server/domains/revenue-share/settle";

const period = process.argv[2] ?? "2026-10-01";
await openDatabase({ databaseUrl: process.env.DATABASE_URL!, poolSize: 2, migrate: false });
const started = performance.now();
const settlements = await settleMonth(period);
const ms = performance.now() - started;
await closeDatabase();
process.stdout.write(JSON.stringify({ ms: Math.round(ms), settlements: settlements.length }));
process.exit(0);
