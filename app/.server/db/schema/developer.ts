import { sql } from "drizzle-orm";
import { bigint, integer, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";
import { organizations, users } from "./auth";

/**
 * Developer API keys. The key itself is kept AES-GCM encrypted (its owner can read it again) and as
 * a SHA-256 hash, the only thing a request is matched on. One live key per tenant; regenerating
 * revokes the old one in the same transaction.
 */
export const apiKeys = pgTable(
  "api_keys",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    keyHash: text("key_hash").notNull().unique(),
    keyEncrypted: text("key_encrypted").notNull(),
    /** The recognisable start (jmb_live_ and four characters), safe to show and log. */
    prefix: text("prefix").notNull(),
    createdBy: uuid("created_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
    lastUsedAt: timestamp("last_used_at", { withTimezone: true }),
  },
  (t) => [
    uniqueIndex("api_keys_one_live_idx")
      .on(t.organizationId)
      .where(sql`revoked_at is null`),
  ],
);

/** Public API calls per tenant and minute: the Developers page's figures. */
export const apiUsageMinutely = pgTable(
  "api_usage_minutely",
  {
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    minute: timestamp("minute", { withTimezone: true }).notNull(),
    calls: integer("calls").notNull(),
    succeeded: integer("succeeded").notNull(),
    totalMs: bigint("total_ms", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.minute] })],
);

/** Where a tenant wants message events delivered, and which ones. */
export const webhookEndpoints = pgTable("webhook_endpoints", {
  organizationId: uuid("organization_id")
    .primaryKey()
    .references(() => organizations.id, { onDelete: "cascade" }),
  url: text("url").notNull(),
  events: text("events").array().notNull(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  updatedBy: uuid("updated_by").references(() => users.id, { onDelete: "set null" }),
});
