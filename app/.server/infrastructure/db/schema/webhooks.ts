import { sql } from "drizzle-orm";
import { bigint, index, jsonb, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";

/**
 * The WABA id of a stored delivery: its first entry's id, read from the bytes as Meta sends them
 * (`{"object":"whatsapp_business_account","entry":[{"id":"<waba>",...`). A regular expression, not a
 * cast to jsonb: a body that is not JSON is stored too, and must not fail its insert. Kept as the
 * stored column `waba_id` (computed once, at the insert), which the admin console's View Logs and
 * webhook status read deliveries by (webhook_events_waba_idx): evaluated per row at read time the
 * expression cost about 30 µs a body, and the planner, costing it as a cheap function, ran it for
 * every account × delivery on a small table (10 ms of the WhatsApp tab's 14 ms).
 */
export const WEBHOOK_WABA_ID_SQL = `substring(body from '"entry"\\s*:\\s*\\[\\s*\\{\\s*"id"\\s*:\\s*"([0-9]{1,32})"')`;

/** Every webhook delivery Meta made, byte for byte as received, kept after processing. */
export const webhookEvents = pgTable(
  "webhook_events",
  {
    id: bigint("id", { mode: "number" }).generatedAlwaysAsIdentity(),
    receivedAt: timestamp("received_at", { withTimezone: true }).notNull().defaultNow(),
    body: text("body").notNull(),
    signature: text("signature").notNull(),
    processedAt: timestamp("processed_at", { withTimezone: true }),
    /** processed, invalid (not JSON / not a WhatsApp envelope), failed (gave up after retries). */
    outcome: text("outcome"),
    /** The first entry's id (WEBHOOK_WABA_ID_SQL), null when the body has none. */
    wabaId: text("waba_id").generatedAlwaysAs(sql.raw(WEBHOOK_WABA_ID_SQL)),
  },
  // Partitioned by month of received_at (decision 164): the key holds the partition key.
  (t) => [
    primaryKey({ columns: [t.id, t.receivedAt] }),
    index("webhook_events_unprocessed_idx")
      .on(t.id)
      .where(sql`processed_at is null`),
    // Housekeeping removes processed deliveries past their retention by age.
    index("webhook_events_received_idx").on(t.receivedAt),
    index("webhook_events_waba_idx").on(t.wabaId, t.receivedAt.desc()),
  ],
);

/** Changes for a WABA or number no tenant has (yet): replayed when it is connected, never dropped. */
export const webhookUnroutedChanges = pgTable(
  "webhook_unrouted_changes",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    eventId: bigint("event_id", { mode: "number" }).notNull(),
    wabaId: text("waba_id"),
    phoneNumberId: text("phone_number_id"),
    entryTime: bigint("entry_time", { mode: "number" }),
    field: text("field").notNull(),
    value: jsonb("value").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("webhook_unrouted_waba_idx").on(t.wabaId), index("webhook_unrouted_phone_idx").on(t.phoneNumberId)],
);
