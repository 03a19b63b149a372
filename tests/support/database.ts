import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { closeDatabase, db, openDatabase } from "~/.server/db/client";

let droppable: { adminUrl: string; name: string } | undefined;

export async function openTestDatabase() {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) {
    await openDatabase({ dataDir: "memory://" });
    return;
  }
  const name = `jumbe_t_${randomBytes(6).toString("hex")}`;
  await adminQuery(adminUrl, `create database ${name}`);
  droppable = { adminUrl, name };
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  await openDatabase({ databaseUrl: url.toString() });
}

/** The URL of this file's PostgreSQL database, or undefined on PGlite. */
export function testDatabaseUrl() {
  if (!droppable) return undefined;
  const url = new URL(droppable.adminUrl);
  url.pathname = `/${droppable.name}`;
  return url.toString();
}

export async function closeTestDatabase() {
  await closeDatabase();
  if (droppable) await adminQuery(droppable.adminUrl, `drop database if exists ${droppable.name} with (force)`);
  droppable = undefined;
}

/** One statement on the admin connection of the test cluster (create and drop databases). */
export async function adminQuery(url: string, text: string) {
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/** Empties every table between tests (faster than a new database per test). */
export async function resetTables() {
  await db().execute(
    sql`truncate table activity_daily_counts, api_keys, api_usage_minutely, webhook_endpoints, activity_hourly_counts, jobs, webhook_events, webhook_unrouted_changes, message_statuses, whatsapp_registration_pins, whatsapp_phone_numbers, whatsapp_accounts, activity_logs, messages, message_templates, contacts, mail_outbox, rate_limits, verification_codes, sessions, users, organizations restart identity cascade`,
  );
}
