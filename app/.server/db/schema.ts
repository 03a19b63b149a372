import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  date,
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

const createdAt = () => timestamp("created_at", { withTimezone: true }).notNull().defaultNow();

/** A tenant: every tenant-owned row carries its id. */
export const organizations = pgTable("organizations", {
  id: uuid("id").primaryKey().defaultRandom(),
  name: text("name").notNull(),
  businessId: text("business_id").notNull().unique(),
  planType: text("plan_type").notNull().default("Starter"),
  billingType: text("billing_type").notNull().default("postpaid"),
  messageLimit: integer("message_limit").notNull().default(1000),
  status: text("status", { enum: ["pending", "active", "suspended"] }).notNull().default("pending"),
  whatsappNumber: text("whatsapp_number"),
  createdAt: createdAt(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});

export const users = pgTable(
  "users",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    email: text("email").notNull(),
    firstName: text("first_name").notNull(),
    lastName: text("last_name").notNull(),
    phoneNumber: text("phone_number"),
    usertype: text("usertype", { enum: ["individual", "admin"] }).notNull().default("individual"),
    avatarUrl: text("avatar_url"),
    passwordHash: text("password_hash").notNull(),
    isVerified: boolean("is_verified").notNull().default(false),
    createdAt: createdAt(),
    lastLoginAt: timestamp("last_login_at", { withTimezone: true }),
    passwordChangedAt: timestamp("password_changed_at", { withTimezone: true }),
  },
  (t) => [
    uniqueIndex("users_email_lower_key").on(sql`lower(${t.email})`),
    index("users_organization_idx").on(t.organizationId),
  ],
);

/** The cookie holds a random token; only its SHA-256 is stored, so a database leak yields no sessions. */
export const sessions = pgTable(
  "sessions",
  {
    id: text("id").primaryKey(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    persistent: boolean("persistent").notNull().default(false),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    createdAt: createdAt(),
    lastUsedAt: timestamp("last_used_at", { withTimezone: true }).notNull().defaultNow(),
    ipAddress: text("ip_address"),
    userAgent: text("user_agent"),
  },
  (t) => [index("sessions_user_idx").on(t.userId), index("sessions_expires_idx").on(t.expiresAt)],
);

/** One-time codes for e-mail verification, password reset and e-mail change, stored as keyed hashes. */
export const verificationCodes = pgTable(
  "verification_codes",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    purpose: text("purpose", { enum: ["signup", "reset", "email_change"] }).notNull(),
    codeHash: text("code_hash").notNull(),
    targetEmail: text("target_email").notNull(),
    attempts: integer("attempts").notNull().default(0),
    sentAt: timestamp("sent_at", { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    consumedAt: timestamp("consumed_at", { withTimezone: true }),
  },
  (t) => [uniqueIndex("verification_codes_user_purpose_key").on(t.userId, t.purpose)],
);

/** Fixed-window counters shared by every server instance. */
export const rateLimits = pgTable("rate_limits", {
  key: text("key").primaryKey(),
  windowStart: timestamp("window_start", { withTimezone: true }).notNull(),
  hits: integer("hits").notNull(),
});

export const activityLogs = pgTable(
  "activity_logs",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
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
  (t) => [
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

/** Sandbox mail outbox: what would have gone out over SMTP. */
export const mailOutbox = pgTable("mail_outbox", {
  id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
  toAddress: text("to_address").notNull(),
  subject: text("subject").notNull(),
  textBody: text("text_body").notNull(),
  htmlBody: text("html_body"),
  sentAt: timestamp("sent_at", { withTimezone: true }).notNull().defaultNow(),
});

export const contacts = pgTable(
  "contacts",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    phone: text("phone"),
    waId: text("wa_id"),
    createdAt: createdAt(),
    lastSeenAt: timestamp("last_seen_at", { withTimezone: true }),
  },
  (t) => [
    index("contacts_org_idx").on(t.organizationId),
    uniqueIndex("contacts_org_wa_id_idx").on(t.organizationId, t.waId).where(sql`wa_id is not null`),
  ],
);

export const messageTemplates = pgTable(
  "message_templates",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    category: text("category").notNull(),
    language: text("language").notNull(),
    status: text("status", { enum: ["approved", "pending", "rejected"] }).notNull().default("pending"),
    body: text("body").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("message_templates_org_idx").on(t.organizationId)],
);

export const messages = pgTable(
  "messages",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    contactId: uuid("contact_id").references(() => contacts.id, { onDelete: "set null" }),
    direction: text("direction", { enum: ["outbound", "inbound"] }).notNull(),
    status: text("status").notNull(),
    body: text("body").notNull().default(""),
    /** WhatsApp's message id (wamid): unique per tenant, the key for statuses and duplicate deliveries. */
    wamid: text("wamid"),
    phoneNumberId: text("phone_number_id"),
    messageType: text("message_type").notNull().default("text"),
    /** The message object as Meta sent it (media ids, replies, reactions...). */
    payload: jsonb("payload"),
    /** When WhatsApp says the message happened (webhook timestamp); createdAt is when Jumbe stored it. */
    sentAt: timestamp("sent_at", { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [
    index("messages_org_created_idx").on(t.organizationId, t.createdAt),
    uniqueIndex("messages_org_wamid_idx").on(t.organizationId, t.wamid).where(sql`wamid is not null`),
  ],
);

/**
 * A WhatsApp Business Account a tenant connected through Embedded Signup. A live WABA belongs to one
 * tenant; a disconnected row stays as that tenant's history and no longer holds the WABA.
 */
export const whatsappAccounts = pgTable(
  "whatsapp_accounts",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    wabaId: text("waba_id").notNull(),
    businessId: text("business_id"),
    name: text("name"),
    status: text("status", { enum: ["connected", "disconnected"] }).notNull().default("connected"),
    /** The business token from the code exchange, AES-GCM encrypted with ENCRYPTION_KEY. */
    accessTokenEncrypted: text("access_token_encrypted").notNull(),
    /** null: the token does not expire (debug_token expires_at 0). */
    tokenExpiresAt: timestamp("token_expires_at", { withTimezone: true }),
    subscribed: boolean("subscribed").notNull().default(false),
    connectedAt: timestamp("connected_at", { withTimezone: true }).notNull().defaultNow(),
    disconnectedAt: timestamp("disconnected_at", { withTimezone: true }),
    /** The last account_update event from Meta and when Meta says it happened. */
    accountEvent: text("account_event"),
    accountEventAt: timestamp("account_event_at", { withTimezone: true }),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("whatsapp_accounts_org_idx").on(t.organizationId),
    index("whatsapp_accounts_waba_idx").on(t.wabaId),
    uniqueIndex("whatsapp_accounts_live_waba_idx").on(t.wabaId).where(sql`status = 'connected'`),
  ],
);

/**
 * Each Embedded Signup a tenant completed or failed, newest last: the WhatsApp page's first step
 * reads "error" while the latest attempt failed and nothing is connected.
 */
export const whatsappSignupAttempts = pgTable(
  "whatsapp_signup_attempts",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    userId: uuid("user_id"),
    wabaId: text("waba_id").notNull(),
    outcome: text("outcome", { enum: ["connected", "failed"] }).notNull(),
    /** Why it failed, in the words shown to the user. */
    reason: text("reason"),
    createdAt: createdAt(),
  },
  (t) => [index("whatsapp_signup_attempts_org_idx").on(t.organizationId, t.createdAt.desc(), t.id.desc())],
);

/** A phone number of a connected WABA. A live number belongs to exactly one tenant. */
export const whatsappPhoneNumbers = pgTable(
  "whatsapp_phone_numbers",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    accountId: uuid("account_id")
      .notNull()
      .references(() => whatsappAccounts.id, { onDelete: "cascade" }),
    phoneNumberId: text("phone_number_id").notNull(),
    displayPhoneNumber: text("display_phone_number").notNull(),
    /** Digits only, as webhooks' metadata carries it. */
    phoneDigits: text("phone_digits").notNull(),
    verifiedName: text("verified_name"),
    qualityRating: text("quality_rating"),
    status: text("status"),
    codeVerificationStatus: text("code_verification_status"),
    platformType: text("platform_type"),
    messagingLimit: text("messaging_limit"),
    registeredAt: timestamp("registered_at", { withTimezone: true }),
    qualityEvent: text("quality_event"),
    qualityEventAt: timestamp("quality_event_at", { withTimezone: true }),
    /** Set with its account's disconnection: the row is history and the number free for others. */
    disconnectedAt: timestamp("disconnected_at", { withTimezone: true }),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("whatsapp_phone_numbers_org_idx").on(t.organizationId),
    index("whatsapp_phone_numbers_account_idx").on(t.accountId),
    index("whatsapp_phone_numbers_phone_idx").on(t.phoneNumberId),
    uniqueIndex("whatsapp_phone_numbers_live_idx").on(t.phoneNumberId).where(sql`disconnected_at is null`),
  ],
);

/**
 * The two-step verification PIN Jumbe set when registering a number, kept even when a connection
 * attempt fails afterwards: a second attempt must send the same PIN or Meta answers 133005.
 */
export const whatsappRegistrationPins = pgTable("whatsapp_registration_pins", {
  phoneNumberId: text("phone_number_id").primaryKey(),
  organizationId: uuid("organization_id")
    .notNull()
    .references(() => organizations.id, { onDelete: "cascade" }),
  pinEncrypted: text("pin_encrypted").notNull(),
  createdAt: createdAt(),
});

/** Every webhook delivery Meta made, byte for byte as received, kept after processing. */
export const webhookEvents = pgTable(
  "webhook_events",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    receivedAt: timestamp("received_at", { withTimezone: true }).notNull().defaultNow(),
    body: text("body").notNull(),
    signature: text("signature").notNull(),
    processedAt: timestamp("processed_at", { withTimezone: true }),
    /** processed, invalid (not JSON / not a WhatsApp envelope), failed (gave up after retries). */
    outcome: text("outcome"),
  },
  (t) => [index("webhook_events_unprocessed_idx").on(t.id).where(sql`processed_at is null`)],
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

/** Message statuses from webhooks, one row per (message, status): kept even before Jumbe knows the message. */
export const messageStatuses = pgTable(
  "message_statuses",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    phoneNumberId: text("phone_number_id").notNull(),
    wamid: text("wamid").notNull(),
    status: text("status").notNull(),
    occurredAt: timestamp("occurred_at", { withTimezone: true }).notNull(),
    recipientId: text("recipient_id"),
    errors: jsonb("errors"),
    pricing: jsonb("pricing"),
    eventId: bigint("event_id", { mode: "number" }),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("message_statuses_org_wamid_status_idx").on(t.organizationId, t.wamid, t.status)],
);

/**
 * The job queue: rows are claimed with FOR UPDATE SKIP LOCKED under a lease (lockedUntil), so any
 * number of workers in any number of processes share it, and a crashed worker's jobs come back.
 */
export const jobs = pgTable(
  "jobs",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    queue: text("queue").notNull(),
    payload: jsonb("payload").notNull(),
    runAt: timestamp("run_at", { withTimezone: true }).notNull().defaultNow(),
    attempts: integer("attempts").notNull().default(0),
    lockedUntil: timestamp("locked_until", { withTimezone: true }),
    lastError: text("last_error"),
    /** Set when the job gave up; such rows stay for inspection and are never claimed again. */
    failedAt: timestamp("failed_at", { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [index("jobs_ready_idx").on(t.queue, t.runAt).where(sql`failed_at is null`)],
);

export type Organization = typeof organizations.$inferSelect;
export type User = typeof users.$inferSelect;

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
  (t) => [uniqueIndex("api_keys_one_live_idx").on(t.organizationId).where(sql`revoked_at is null`)],
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
