import { sql } from "drizzle-orm";
import { bigint, index, integer, json, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
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

/**
 * Members who have held a key in full: whoever created or regenerated it (they were shown it) and
 * whoever revealed it since. A campaign made with the key needs an approver who is not among them
 * (maker-checker, decision 045).
 */
export const apiKeyReaders = pgTable(
  "api_key_readers",
  {
    apiKeyId: uuid("api_key_id")
      .notNull()
      .references(() => apiKeys.id, { onDelete: "cascade" }),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    firstReadAt: timestamp("first_read_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.apiKeyId, t.userId] })],
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

/** Where a tenant wants message events delivered, and which ones (webhooks out, decision 021). */
export const webhookEndpoints = pgTable("webhook_endpoints", {
  organizationId: uuid("organization_id")
    .primaryKey()
    .references(() => organizations.id, { onDelete: "cascade" }),
  url: text("url").notNull(),
  events: text("events").array().notNull(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  updatedBy: uuid("updated_by").references(() => users.id, { onDelete: "set null" }),
  /** The signing secret (`whsec_...`, Standard Webhooks), AES-GCM encrypted like API keys. */
  secretEncrypted: text("secret_encrypted"),
  secretCreatedAt: timestamp("secret_created_at", { withTimezone: true }),
  /** After a rotation the old secret signs too, beside the new one, until this moment (24 hours). */
  previousSecretEncrypted: text("previous_secret_encrypted"),
  previousSecretExpiresAt: timestamp("previous_secret_expires_at", { withTimezone: true }),
  /** The first failed attempt since the last success; three days of that disables the endpoint. */
  failingSince: timestamp("failing_since", { withTimezone: true }),
  disabledAt: timestamp("disabled_at", { withTimezone: true }),
});

/** What a REST hook can subscribe to (Zapier-style triggers). */
export const REST_HOOK_EVENTS = ["message.received", "message.status", "contact.created", "conversation.handover"] as const;

/**
 * A REST hook (Zapier, Make): a target URL subscribed through the public API to one event. Its
 * deliveries are webhooks out's (webhook_deliveries.hook_id), signed with the hook's own secret.
 */
export const restHooks = pgTable(
  "rest_hooks",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    event: text("event", { enum: REST_HOOK_EVENTS }).notNull(),
    targetUrl: text("target_url").notNull(),
    /** `whsec_...`, sealed: shown once when subscribed, then only used to sign. */
    secretEncrypted: text("secret_encrypted").notNull(),
    apiKeyId: uuid("api_key_id").references(() => apiKeys.id, { onDelete: "set null" }),
    createdAt: createdAt(),
    lastDeliveryAt: timestamp("last_delivery_at", { withTimezone: true }),
    /** The last attempt's HTTP status (null: no answer), for the Integrations page. */
    lastDeliveryStatus: text("last_delivery_status"),
  },
  (t) => [
    uniqueIndex("rest_hooks_org_event_target_idx").on(t.organizationId, t.event, t.targetUrl),
    index("rest_hooks_org_created_idx").on(t.organizationId, t.createdAt),
  ],
);

/**
 * One event for a tenant's endpoint and how its delivery went: the body as it is sent (json keeps
 * its text and key order), the last attempt's answer, the next retry. `seq` names the one job
 * allowed to act on the row: each attempt's outcome and each redelivery move it on, so a stale job
 * does nothing. Partitioned by month of created_at (decision 169): a message's event is delivered
 * once per endpoint or hook by its key in webhook_delivery_keys, not by an index here.
 */
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: uuid("id").notNull().defaultRandom(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    eventType: text("event_type").notNull(),
    /** The message the event is about (no foreign key: the event outlives nothing it needs). */
    messageId: uuid("message_id"),
    /** A REST hook's delivery (its URL and secret), or null for the organisation's webhook endpoint. */
    hookId: uuid("hook_id").references(() => restHooks.id, { onDelete: "cascade" }),
    payload: json("payload").notNull(),
    status: text("status", { enum: ["pending", "delivered", "failed"] })
      .notNull()
      .default("pending"),
    attempts: integer("attempts").notNull().default(0),
    /** Attempts in the current round of the retry schedule (a redelivery starts a new round). */
    step: integer("step").notNull().default(0),
    seq: integer("seq").notNull().default(0),
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true }),
    lastAttemptAt: timestamp("last_attempt_at", { withTimezone: true }),
    responseStatus: integer("response_status"),
    /** At most 1 KB of the last answer, for display. */
    responseBody: text("response_body"),
    /** Why the last attempt failed without an HTTP answer (refused address, timeout...), in words. */
    error: text("error"),
    deliveredAt: timestamp("delivered_at", { withTimezone: true }),
    createdAt: createdAt(),
  },
  // Partitioned by month of created_at (decision 169): the key holds the partition key.
  (t) => [
    primaryKey({ columns: [t.id, t.createdAt] }),
    index("webhook_deliveries_org_created_idx").on(t.organizationId, t.createdAt.desc(), t.id.desc()),
    index("webhook_deliveries_created_idx").on(t.createdAt),
    // A hook's deliveries go with it (on delete cascade).
    index("webhook_deliveries_hook_idx")
      .on(t.hookId)
      .where(sql`hook_id is not null`),
    // The housekeeping sweep's look for deliveries whose job was lost (few rows: only pending ones).
    index("webhook_deliveries_pending_idx")
      .on(t.nextAttemptAt)
      .where(sql`status = 'pending'`),
  ],
);

/**
 * What makes a message's event delivered once (decision 169): one row per delivery of a message
 * event, unique per organisation endpoint (hook_id null) or per REST hook, across every month.
 * webhook_deliveries is partitioned by month and a partitioned table's unique index must hold the
 * partition key, so the keys live here, written by the enqueue's statement before the delivery
 * (`on conflict do nothing`; the delivery is inserted only for a key inserted). No foreign key to
 * the delivery (a partition's creation moves rows out of the default partition by a delete, which
 * would cascade): a statement trigger on webhook_deliveries removes the keys of deleted deliveries,
 * and a dropped month's keys go by created_at range (migration 0086, partitions.ts).
 */
export const webhookDeliveryKeys = pgTable(
  "webhook_delivery_keys",
  {
    deliveryId: uuid("delivery_id").primaryKey(),
    organizationId: uuid("organization_id").notNull(),
    hookId: uuid("hook_id"),
    messageId: uuid("message_id").notNull(),
    eventType: text("event_type").notNull(),
    /** The delivery's created_at (its partition), the same value. */
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
  },
  (t) => [
    uniqueIndex("webhook_delivery_keys_org_message_event_idx")
      .on(t.organizationId, t.messageId, t.eventType)
      .where(sql`hook_id is null`),
    uniqueIndex("webhook_delivery_keys_hook_message_event_idx")
      .on(t.hookId, t.messageId, t.eventType)
      .where(sql`hook_id is not null`),
    // A dropped month's keys go by range, in one statement.
    index("webhook_delivery_keys_created_idx").on(t.createdAt),
  ],
);
