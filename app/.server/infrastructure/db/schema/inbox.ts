import { sql } from "drizzle-orm";
import { bigint, index, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";
import { organizations, users } from "./auth";
import { conversations } from "./messaging";

/**
 * What members did in a conversation, shown in its thread between the messages: internal notes
 * (never sent), assignments, resolving and reopening, and automations' hand-overs to a person (the
 * reason's code in `body`, the member it went to in `subject_id`). Append-only.
 */
export const conversationEntries = pgTable(
  "conversation_entries",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    conversationId: uuid("conversation_id")
      .notNull()
      .references(() => conversations.id, { onDelete: "cascade" }),
    kind: text("kind", { enum: ["note", "assigned", "unassigned", "resolved", "reopened", "handover"] }).notNull(),
    /** Who did it; null: the customer (writing again reopens) or Jumbe. */
    actorId: uuid("actor_id").references(() => users.id, { onDelete: "set null" }),
    /** An assignment's agent. */
    subjectId: uuid("subject_id").references(() => users.id, { onDelete: "set null" }),
    body: text("body").notNull().default(""),
    createdAt: createdAt(),
  },
  (t) => [
    index("conversation_entries_conversation_idx").on(t.conversationId, t.createdAt),
    // Analytics: an organisation's hand-overs and resolutions in a period.
    index("conversation_entries_org_created_idx").on(t.organizationId, t.createdAt),
  ],
);

/**
 * The inbox's change log, one row per change a browser shows (a message in or out, a status tick, an
 * assignment, a note, an unread count): written in the transaction of the change, announced by
 * pg_notify, read once per instance and fanned out to its event streams; a browser reconnecting
 * with Last-Event-ID replays what it missed. Kept two days (housekeeping).
 */
export const inboxEvents = pgTable(
  "inbox_events",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    // No foreign keys below: a deleted message or conversation would make PostgreSQL search this
    // log for it, and a row about something gone is simply skipped when read.
    conversationId: uuid("conversation_id").notNull(),
    kind: text("kind", { enum: ["message", "status", "conversation", "entry"] }).notNull(),
    messageId: uuid("message_id"),
    entryId: uuid("entry_id"),
    createdAt: createdAt(),
  },
  (t) => [index("inbox_events_org_idx").on(t.organizationId, t.id), index("inbox_events_created_idx").on(t.createdAt)],
);

/** Which member is viewing or typing in which conversation now: refreshed while they are, stale after a minute. */
export const inboxPresence = pgTable(
  "inbox_presence",
  {
    conversationId: uuid("conversation_id")
      .notNull()
      .references(() => conversations.id, { onDelete: "cascade" }),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    state: text("state", { enum: ["viewing", "typing"] }).notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.conversationId, t.userId] })],
);

/** Saved answers an agent inserts in the composer by typing `/` and the shortcut. */
export const quickReplies = pgTable(
  "quick_replies",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    shortcut: text("shortcut").notNull(),
    body: text("body").notNull(),
    createdBy: uuid("created_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("quick_replies_org_shortcut_idx").on(t.organizationId, sql`lower(${t.shortcut})`)],
);
