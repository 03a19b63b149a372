import { sql } from "drizzle-orm";
import {
  bigint,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { createdAt } from "./columns";
import { users } from "./auth";

/**
 * The admin console (issue 19, decision 037). Platform records carry organisation ids without
 * foreign keys: an erased tenant's audit trail, alerts and call log stay readable.
 */

/**
 * Every administrator action: who, what, on which tenant, before and after, from where. Append-only:
 * a trigger (migration 0032) refuses every update and delete, so nobody can edit it.
 */
export const adminAuditLog = pgTable(
  "admin_audit_log",
  {
    id: bigint("id", { mode: "number" }).generatedAlwaysAsIdentity(),
    adminId: uuid("admin_id").notNull(),
    adminEmail: text("admin_email").notNull(),
    /** What was done, a stable code: organization.suspend, wallet.adjust, invoice.reconcile... */
    action: text("action").notNull(),
    organizationId: uuid("organization_id"),
    /** What it was done to: organization, user, invoice, dispute, whatsapp_account, template, alert. */
    targetType: text("target_type").notNull(),
    targetId: text("target_id"),
    reason: text("reason"),
    before: jsonb("before"),
    after: jsonb("after"),
    ipAddress: text("ip_address"),
    userAgent: text("user_agent"),
    createdAt: createdAt(),
  },
  // Partitioned by month of created_at (decision 164): the key holds the partition key.
  (t) => [
    primaryKey({ columns: [t.id, t.createdAt] }),
    index("admin_audit_log_created_idx").on(t.createdAt.desc(), t.id.desc()),
    index("admin_audit_log_org_idx").on(t.organizationId, t.createdAt.desc()),
  ],
);

/**
 * Graph API calls other than message sends (those are the messages table's own records): the admin
 * console's View Logs and Test Connection read these. Kept 30 days by housekeeping.
 */
export const graphCallLog = pgTable(
  "graph_call_log",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    organizationId: uuid("organization_id"),
    accountId: uuid("account_id"),
    wabaId: text("waba_id"),
    method: text("method").notNull(),
    /** The path without the version or the query's secrets: /{waba}/subscribed_apps. */
    path: text("path").notNull(),
    /** Meta's HTTP status; null when no answer came (refused, timed out). */
    status: integer("status"),
    durationMs: integer("duration_ms").notNull(),
    /** Meta's error (code and message) or the network failure, in words. */
    error: text("error"),
    /** Who made it: the engine (sync, subscribe...) or an administrator's Test Connection. */
    origin: text("origin").notNull().default("engine"),
    createdAt: createdAt(),
  },
  (t) => [index("graph_call_log_account_idx").on(t.accountId, t.createdAt.desc()), index("graph_call_log_created_idx").on(t.createdAt)],
);

/** Each running Jumbe instance's heartbeat (every 15 s): one missing for a minute raises an alert. */
export const instanceHeartbeats = pgTable("instance_heartbeats", {
  instanceId: text("instance_id").primaryKey(),
  hostname: text("hostname").notNull(),
  pid: integer("pid").notNull(),
  version: text("version"),
  startedAt: timestamp("started_at", { withTimezone: true }).notNull(),
  lastSeenAt: timestamp("last_seen_at", { withTimezone: true }).notNull().defaultNow(),
  /** The latest resources, for the System tab's cards: CPU %, memory, event-loop delay. */
  resources: jsonb("resources").$type<Record<string, number>>(),
});

/**
 * Metrics sampled every minute: per instance (CPU, memory, event-loop delay, requests, errors) and
 * platform-wide under instance '' (queue depth, oldest job, webhook intake and lag). Kept 30 days.
 */
export const metricSamples = pgTable(
  "metric_samples",
  {
    name: text("name").notNull(),
    instanceId: text("instance_id").notNull().default(""),
    at: timestamp("at", { withTimezone: true }).notNull(),
    value: doublePrecision("value").notNull(),
  },
  (t) => [primaryKey({ columns: [t.name, t.instanceId, t.at] }), index("metric_samples_at_idx").on(t.at)],
);

/**
 * metric_samples added up by UTC hour, kept by triggers on metric_samples (migration 0094): the System
 * tab's 24-hour, 7-day and 30-day charts read these (their buckets are whole hours) instead of every
 * minute's sample; `mean` is total / samples.
 */
export const metricHours = pgTable(
  "metric_hours",
  {
    name: text("name").notNull(),
    instanceId: text("instance_id").notNull().default(""),
    hour: timestamp("hour", { withTimezone: true }).notNull(),
    total: doublePrecision("total").notNull(),
    peak: doublePrecision("peak").notNull(),
    samples: integer("samples").notNull(),
  },
  (t) => [primaryKey({ columns: [t.name, t.instanceId, t.hour] }), index("metric_hours_hour_idx").on(t.hour)],
);

/** Alerts raised by rules (an instance missing, queue lag, error rate, webhook failures): one open per rule and key. */
export const platformAlerts = pgTable(
  "system_alerts",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    rule: text("rule").notNull(),
    /** What it is about: an instance id, a queue name; '' for platform-wide rules. */
    key: text("key").notNull().default(""),
    level: text("level", { enum: ["warning", "error"] }).notNull(),
    title: text("title").notNull(),
    details: text("details"),
    openedAt: timestamp("opened_at", { withTimezone: true }).notNull().defaultNow(),
    lastSeenAt: timestamp("last_seen_at", { withTimezone: true }).notNull().defaultNow(),
    /** Set by the rule when the condition cleared, or by an administrator's Resolve. */
    resolvedAt: timestamp("resolved_at", { withTimezone: true }),
    resolvedBy: uuid("resolved_by"),
    resolution: text("resolution"),
  },
  (t) => [
    uniqueIndex("system_alerts_open_key")
      .on(t.rule, t.key)
      .where(sql`resolved_at is null`),
    index("system_alerts_opened_idx").on(t.openedAt.desc()),
  ],
);

/**
 * A template's history: what Meta said (status, category and quality events), what the platform's
 * review decided, what the tenant did (submitted, edited). The Templates tab's Review reads it.
 */
export const templateEvents = pgTable(
  "template_events",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    templateId: uuid("template_id").notNull(),
    organizationId: uuid("organization_id").notNull(),
    source: text("source", { enum: ["meta", "platform", "tenant"] }).notNull(),
    event: text("event").notNull(),
    reason: text("reason"),
    actorId: uuid("actor_id"),
    createdAt: createdAt(),
  },
  (t) => [index("template_events_template_idx").on(t.templateId, t.createdAt)],
);

/**
 * Platform-wide settings administrators change in the console, one row a setting (decision 039):
 * read in the statement that uses them, so every instance agrees the moment one is changed. A
 * setting without a row has its default. Changes are audited (admin_audit_log).
 */
export const platformSettings = pgTable("platform_settings", {
  key: text("key").primaryKey(),
  value: jsonb("value").notNull(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  updatedBy: uuid("updated_by").references(() => users.id, { onDelete: "set null" }),
});
