import { parseEnv, setEnv } from "~/.server/infrastructure/config/env";
import { closeDatabase, openDatabase } from "~/.server/infrastructure/db/client";
import { runBillingCycle } from "~/.server/domains/billing/cycle";

/**
 * The billing cycle in a process of its own, on the PostgreSQL database in DATABASE_URL, at the
 * instant in BILLING_NOW (a controlled clock): it runs the cycle once and prints
 * `CYCLE {"issued":…,…}`. Tests start two at once to show the month's invoices are issued once.
 */
setEnv(parseEnv({ NODE_ENV: "test", APP_URL: "http://jumbe.test" }));
await openDatabase({ databaseUrl: process.env.DATABASE_URL, poolSize: 4, migrate: false });
const outcome = await runBillingCycle(new Date(process.env.BILLING_NOW!));
process.stdout.write(`CYCLE ${JSON.stringify(outcome)}\n`);
await closeDatabase();
process.exit(0);
