import { bigint, date, index, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";
import { organizations, users } from "./auth";

export const activityLogs = pgTable(
  "activity_logs",
  {
    id: bigint("id", { mode: "number" }).generatedAlwaysAsIdentity(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    userId: uuid("user_id").references(() => users.id, { onDelete: "set null" }),
    type: text("type").notNull(),
    status: text("status", { enum: ["success", "warning", "error"] }).notNull(),
    action: text("action").notNull(),
    details: text("details").notNull().default(""),
    ipAddress: text("ip_address"),
    userAgent: text("user_agent"),
    createdAt: createdAt(),
  },
  // Partitioned by month of created_at (decision 164): the key holds the partition key.
  (t) => [
    primaryKey({ columns: [t.id, t.createdAt] }),
    index("activity_logs_org_created_idx").on(t.organizationId, t.createdAt.desc(), t.id.desc()),
    // Filtered lists page through these without reading the records the filter leaves out.
    index("activity_logs_org_type_created_idx").on(t.organizationId, t.type, t.createdAt.desc(), t.id.desc()),
    index("activity_logs_org_status_created_idx").on(t.organizationId, t.status, t.createdAt.desc(), t.id.desc()),
    // Administrators read every tenant's log.
    index("activity_logs_created_idx").on(t.createdAt.desc(), t.id.desc()),
  ],
);

/**
 * Records per tenant, hour, type and status, kept by a trigger on activity_logs (migration 0003):
 * the Activity page's stat cards add up at most a few thousand of these rows, however many
 * records the tenant has.
 */
export const activityHourlyCounts = pgTable(
  "activity_hourly_counts",
  {
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    hour: timestamp("hour", { withTimezone: true }).notNull(),
    type: text("type").notNull(),
    status: text("status").notNull(),
    count: bigint("count", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.hour, t.type, t.status] })],
);

/** The same counts per Nairobi calendar day (migration 0006): 90 days are 90 rows per type and status. */
export const activityDailyCounts = pgTable(
  "activity_daily_counts",
  {
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    day: date("day").notNull(),
    type: text("type").notNull(),
    status: text("status").notNull(),
    count: bigint("count", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.day, t.type, t.status] })],
);
