import { sql } from "drizzle-orm";
import { index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";
import { organizations, users } from "./auth";
import { contacts, conversations } from "./messaging";

/**
 * A chatbot flow (issue 44): an ordered list of steps a customer is taken through. Members edit the
 * draft; publishing freezes it as a new version, which new sessions run (`live_version_id`).
 */
export const flows = pgTable(
  "flows",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    status: text("status", { enum: ["draft", "live", "off"] })
      .notNull()
      .default("draft"),
    /** The steps as being edited (lib/schemas/flows.ts's FlowStep[]). */
    steps: jsonb("steps")
      .notNull()
      .default(sql`'[]'::jsonb`),
    /** The version new sessions start on; null until first published. */
    liveVersionId: uuid("live_version_id"),
    /** A session without a customer message for this long ends, with `idle_text` if the window is open. */
    idleMinutes: integer("idle_minutes").notNull().default(30),
    idleText: text("idle_text").notNull().default(""),
    createdBy: uuid("created_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("flows_org_idx").on(t.organizationId, t.createdAt)],
);

/** A published flow's steps, frozen: sessions run on the version they started on. */
export const flowVersions = pgTable(
  "flow_versions",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    flowId: uuid("flow_id")
      .notNull()
      .references(() => flows.id, { onDelete: "cascade" }),
    version: integer("version").notNull(),
    steps: jsonb("steps").notNull(),
    publishedAt: timestamp("published_at", { withTimezone: true }).notNull().defaultNow(),
    publishedBy: uuid("published_by").references(() => users.id, { onDelete: "set null" }),
  },
  (t) => [uniqueIndex("flow_versions_flow_version_idx").on(t.flowId, t.version)],
);

/** One customer's way through a flow version: at most one active session a conversation. */
export const flowSessions = pgTable(
  "flow_sessions",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    conversationId: uuid("conversation_id")
      .notNull()
      .references(() => conversations.id, { onDelete: "cascade" }),
    contactId: uuid("contact_id")
      .notNull()
      .references(() => contacts.id, { onDelete: "cascade" }),
    flowVersionId: uuid("flow_version_id")
      .notNull()
      .references(() => flowVersions.id, { onDelete: "cascade" }),
    /** The step it stands at (a question waiting for its answer, or a wait). */
    stepId: text("step_id").notNull(),
    stepIndex: integer("step_index").notNull(),
    /** Answers by variable name, and `http`: the last HTTP step's JSON. */
    vars: jsonb("vars")
      .notNull()
      .default(sql`'{}'::jsonb`),
    /** Wrong answers to the current question. */
    retries: integer("retries").notNull().default(0),
    status: text("status", { enum: ["active", "completed", "timed_out", "handed_over", "stopped"] })
      .notNull()
      .default("active"),
    lastActivityAt: timestamp("last_activity_at", { withTimezone: true }).notNull().defaultNow(),
    /** A wait step's end; null when not waiting. */
    wakeAt: timestamp("wake_at", { withTimezone: true }),
    startedAt: timestamp("started_at", { withTimezone: true }).notNull().defaultNow(),
    endedAt: timestamp("ended_at", { withTimezone: true }),
  },
  (t) => [
    uniqueIndex("flow_sessions_active_idx")
      .on(t.conversationId)
      .where(sql`status = 'active'`),
    index("flow_sessions_version_idx").on(t.flowVersionId, t.status),
    index("flow_sessions_idle_idx")
      .on(t.lastActivityAt)
      .where(sql`status = 'active'`),
    index("flow_sessions_contact_idx").on(t.contactId, t.status),
    // The webhook's check (run.ts, enqueueAutomations): does the organisation have a customer in a flow?
    index("flow_sessions_org_active_idx")
      .on(t.organizationId)
      .where(sql`status = 'active'`),
  ],
);
