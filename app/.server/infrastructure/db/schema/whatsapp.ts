import { sql } from "drizzle-orm";
import { bigint, boolean, index, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";
import { organizations } from "./auth";

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
    status: text("status", { enum: ["connected", "disconnected"] })
      .notNull()
      .default("connected"),
    /** The business token from the code exchange, AES-GCM encrypted with ENCRYPTION_KEY. */
    accessTokenEncrypted: text("access_token_encrypted").notNull(),
    /** null: the token does not expire (debug_token expires_at 0). */
    tokenExpiresAt: timestamp("token_expires_at", { withTimezone: true }),
    subscribed: boolean("subscribed").notNull().default(false),
    connectedAt: timestamp("connected_at", { withTimezone: true }).notNull().defaultNow(),
    disconnectedAt: timestamp("disconnected_at", { withTimezone: true }),
    /**
     * Set when Meta refused the token (error 190: expired, revoked, password changed): sending from
     * the account's numbers stops until the tenant connects again, which clears it.
     */
    tokenRefusedAt: timestamp("token_refused_at", { withTimezone: true }),
    tokenRefusal: text("token_refusal"),
    /** The last account_update event from Meta and when Meta says it happened. */
    accountEvent: text("account_event"),
    accountEventAt: timestamp("account_event_at", { withTimezone: true }),
    /** A platform administrator asked the tenant to connect this account again (Manage Account): why, shown to the tenant until they do. */
    reconnectRequestedAt: timestamp("reconnect_requested_at", { withTimezone: true }),
    reconnectReason: text("reconnect_reason"),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("whatsapp_accounts_org_idx").on(t.organizationId),
    index("whatsapp_accounts_waba_idx").on(t.wabaId),
    uniqueIndex("whatsapp_accounts_live_waba_idx")
      .on(t.wabaId)
      .where(sql`status = 'connected'`),
    // The admin console's search by any part of the WABA id.
    index("whatsapp_accounts_waba_trgm_idx").using("gin", sql`${t.wabaId} gin_trgm_ops`),
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
    uniqueIndex("whatsapp_phone_numbers_live_idx")
      .on(t.phoneNumberId)
      .where(sql`disconnected_at is null`),
    // The admin console's search: any part of the number as shown or as digits, or of Meta's phone number id.
    index("whatsapp_phone_numbers_search_trgm_idx").using(
      "gin",
      sql`(${t.displayPhoneNumber} || ' ' || ${t.phoneDigits} || ' ' || ${t.phoneNumberId}) gin_trgm_ops`,
    ),
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
