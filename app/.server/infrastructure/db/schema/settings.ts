import { sql } from "drizzle-orm";
import { index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid, boolean } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";
import { organizations, users } from "./auth";

/**
 * Two-factor sign-in, step two: after the right password a browser holds this challenge (its
 * token's SHA-256 is the id) for a few minutes and must answer it with a code before a session opens.
 */
export const twoFactorChallenges = pgTable(
  "two_factor_challenges",
  {
    id: text("id").primaryKey(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    remember: boolean("remember").notNull().default(false),
    attempts: integer("attempts").notNull().default(0),
    createdAt: createdAt(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
  },
  (t) => [index("two_factor_challenges_user_idx").on(t.userId), index("two_factor_challenges_expires_idx").on(t.expiresAt)],
);

/** Ten single-use recovery codes a user, shown once and stored as keyed hashes. */
export const recoveryCodes = pgTable(
  "recovery_codes",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    codeHash: text("code_hash").notNull(),
    createdAt: createdAt(),
    usedAt: timestamp("used_at", { withTimezone: true }),
  },
  (t) => [uniqueIndex("recovery_codes_user_code_key").on(t.userId, t.codeHash)],
);

import { NOTIFICATION_EVENTS } from "../../../../lib/notifications";

export { NOTIFICATION_EVENTS, type NotificationEvent } from "../../../../lib/notifications";

/** A notification for one member: what happened, in words, and where to look. */
export const notifications = pgTable(
  "notifications",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    event: text("event", { enum: NOTIFICATION_EVENTS }).notNull(),
    title: text("title").notNull(),
    body: text("body").notNull().default(""),
    /**
     * What the title and body say as the catalogue's messages and their inputs (issue 43:
     * domains/notifications/words.ts), said in each reader's language; the English above is their
     * English. Null on rows written before, which show their English.
     */
    words: jsonb("words").$type<{ title: unknown; body?: unknown }>(),
    /** A path inside the product (never another site). */
    link: text("link"),
    /** One notification a member a cause (a retried job does not notify twice). */
    dedupeKey: text("dedupe_key"),
    createdAt: createdAt(),
    readAt: timestamp("read_at", { withTimezone: true }),
  },
  (t) => [
    index("notifications_user_created_idx").on(t.userId, t.createdAt.desc(), t.id.desc()),
    index("notifications_user_unread_idx")
      .on(t.userId)
      .where(sql`read_at is null`),
    uniqueIndex("notifications_user_dedupe_key").on(t.userId, t.dedupeKey),
  ],
);

/** Which roles an event e-mails, an organisation's choice (no row: the event's default). */
export const notificationRules = pgTable(
  "notification_rules",
  {
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    event: text("event", { enum: NOTIFICATION_EVENTS }).notNull(),
    emailRoles: text("email_roles")
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.event] })],
);
