import { sql } from "drizzle-orm";
import { bigint, boolean, check, date, index, integer, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";

import { ORG_ROLES, PLATFORM_ROLES, USER_TYPES } from "../../../../lib/roles";

export { ORG_ROLES, type OrgRole } from "../../../../lib/roles";

/** A tenant: every tenant-owned row carries its id. */
export const organizations = pgTable(
  "organizations",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    name: text("name").notNull(),
    businessId: text("business_id").notNull().unique(),
    planType: text("plan_type").notNull().default("Starter"),
    billingType: text("billing_type").notNull().default("postpaid"),
    /**
     * The messages a month the organisation may send: its plan's (billing_plans.message_limit for its
     * plan and billing type) unless a platform administrator set an override, with its reason. A
     * trigger keeps it so on every insert and update (migration 0037, decision 051); writing it
     * directly has no effect.
     */
    messageLimit: integer("message_limit").notNull().default(1000),
    messageLimitOverride: integer("message_limit_override"),
    messageLimitOverrideReason: text("message_limit_override_reason"),
    status: text("status", { enum: ["pending", "active", "suspended"] })
      .notNull()
      .default("pending"),
    whatsappNumber: text("whatsapp_number"),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
    // Account Settings, Organisation: what invoices carry (KRA PIN: a letter, 9 digits, a letter).
    kraPin: text("kra_pin"),
    postalAddress: text("postal_address"),
    county: text("county"),
    industry: text("industry"),
    timeZone: text("time_zone").notNull().default("Africa/Nairobi"),
    /** The owner's "require two-factor for everyone": members without it set it up before anything else. */
    requireTwoFactor: boolean("require_two_factor").notNull().default(false),
    /** Maker-checker: a campaign or broadcast to more recipients than this waits for another owner or admin. Null: off. */
    approvalThreshold: integer("approval_threshold"),
    /** Closing: the owner asked on closureRequestedAt; the data is erased after eraseAfter unless reopened first. */
    closureRequestedAt: timestamp("closure_requested_at", { withTimezone: true }),
    closureRequestedBy: uuid("closure_requested_by"),
    eraseAfter: timestamp("erase_after", { withTimezone: true }),
    /** A change of plan asked for, effective at the start of the next billing period (the 1st, Africa/Nairobi). */
    nextPlanType: text("next_plan_type"),
    nextBillingType: text("next_billing_type"),
    nextPlanFrom: date("next_plan_from"),
    /** A platform administrator's suspension (status suspended): when and why, shown in the console. */
    suspendedAt: timestamp("suspended_at", { withTimezone: true }),
    suspensionReason: text("suspension_reason"),
    /** Hold this tenant's template submissions for a platform administrator before they go to Meta (new or flagged tenants). */
    templateReview: boolean("template_review").notNull().default(false),
    /** The language of its members' e-mails until each chooses one (issue 43): en, sw or fr. */
    defaultLocale: text("default_locale", { enum: ["en", "sw", "fr"] })
      .notNull()
      .default("en"),
    /**
     * How long its data is kept, in days (issue 78, decision 165): message bodies and payloads, media
     * files, and logs (activity, webhook deliveries out). Within lib/retention-limits.ts's limits, which
     * the checks below repeat; the retention job enforces them daily.
     */
    messageRetentionDays: integer("message_retention_days").notNull().default(730),
    mediaRetentionDays: integer("media_retention_days").notNull().default(90),
    logRetentionDays: integer("log_retention_days").notNull().default(90),
  },
  (t) => [
    check("organizations_message_retention_check", sql`message_retention_days between 30 and 2555`),
    check("organizations_media_retention_check", sql`media_retention_days between 30 and message_retention_days`),
    check("organizations_log_retention_check", sql`log_retention_days between 30 and 365`),
    check("organizations_kra_pin_check", sql`kra_pin is null or kra_pin ~ '^[A-Z][0-9]{9}[A-Z]$'`),
    check("organizations_default_locale_check", sql`default_locale in ('en', 'sw', 'fr')`),
    check("organizations_approval_threshold_check", sql`approval_threshold is null or approval_threshold >= 0`),
    check(
      "organizations_message_limit_override_check",
      sql`(message_limit_override is null and message_limit_override_reason is null) or (message_limit_override > 0 and length(message_limit_override_reason) > 0)`,
    ),
    index("organizations_erase_after_idx")
      .on(t.eraseAfter)
      .where(sql`erase_after is not null`),
    // The admin console: its search (any part of the name or business id) and the bell's sign-ups, newest first.
    index("organizations_search_trgm_idx").using("gin", sql`(${t.name} || ' ' || ${t.businessId}) gin_trgm_ops`),
    index("organizations_created_idx").on(t.createdAt.desc()),
  ],
);

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
    usertype: text("usertype", { enum: USER_TYPES }).notNull().default("individual"),
    avatarUrl: text("avatar_url"),
    passwordHash: text("password_hash").notNull(),
    isVerified: boolean("is_verified").notNull().default(false),
    createdAt: createdAt(),
    lastLoginAt: timestamp("last_login_at", { withTimezone: true }),
    passwordChangedAt: timestamp("password_changed_at", { withTimezone: true }),
    // The member's role inside their organisation (owner, admin, agent, viewer); usertype says
    // whether they run the platform. Every guard reads both (app/.server/domains/auth/permissions.ts).
    orgRole: text("org_role", { enum: ORG_ROLES }).notNull().default("owner"),
    /** Two-factor sign-in (RFC 6238): the secret sealed with encryptSecret; on once twoFactorEnabledAt is set. */
    totpSecret: text("totp_secret"),
    twoFactorEnabledAt: timestamp("two_factor_enabled_at", { withTimezone: true }),
    /** The last time step a code was accepted for: a code is good once. */
    totpLastStep: bigint("totp_last_step", { mode: "number" }),
    /** A platform administrator's bell: events after this are unread. */
    adminBellSeenAt: timestamp("admin_bell_seen_at", { withTimezone: true }),
    /** The language the member chose (issue 43): their pages and e-mails; null until they choose (then the organisation's for e-mails). */
    locale: text("locale", { enum: ["en", "sw", "fr"] }),
    /**
     * A platform administrator's staff role in the console (issue 74, decision 112): owner (every
     * console task, staff management), finance (money: billing, payouts) or support (people and
     * numbers, no money). Read only when usertype is admin; an administrator without one is an owner.
     */
    platformRole: text("platform_role", { enum: PLATFORM_ROLES }),
    /** A platform staff member the console's owner suspended: no session works and none can be opened. */
    staffSuspendedAt: timestamp("staff_suspended_at", { withTimezone: true }),
    /** Two-factor sign-in must be set up before any page (staff invited in the console, or made by `npm run admin:create`). */
    twoFactorRequired: boolean("two_factor_required").notNull().default(false),
  },
  (t) => [
    uniqueIndex("users_email_lower_key").on(sql`lower(${t.email})`),
    index("users_organization_idx").on(t.organizationId),
    // The platform's own organisations (isTenant in the admin console reads this set in every statement).
    index("users_platform_admin_idx")
      .on(t.organizationId)
      .where(sql`usertype = 'admin'`),
    // At most one owner an organisation; team/members.ts keeps it exactly one (a transfer swaps the two in one transaction).
    uniqueIndex("users_one_owner_key")
      .on(t.organizationId)
      .where(sql`org_role = 'owner'`),
    check("users_org_role_check", sql`org_role in ('owner', 'admin', 'agent', 'viewer')`),
    check("users_locale_check", sql`locale is null or locale in ('en', 'sw', 'fr')`),
    check("users_platform_role_check", sql`platform_role is null or platform_role in ('owner', 'finance', 'support')`),
    // The admin console's search: any part of the name, e-mail or phone (app/.server/domains/admin/search).
    index("users_search_trgm_idx").using(
      "gin",
      sql`(${t.firstName} || ' ' || ${t.lastName} || ' ' || ${t.email} || ' ' || coalesce(${t.phoneNumber}, '')) gin_trgm_ops`,
    ),
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
    /** When the person last proved who they are in this session (the sign-in, or a step-up): destructive admin actions want it within 10 minutes. */
    confirmedAt: timestamp("confirmed_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("sessions_user_idx").on(t.userId), index("sessions_expires_idx").on(t.expiresAt)],
);

/** One-time codes for e-mail verification, password reset, e-mail change and sign-in under attack, stored as keyed hashes. */
export const verificationCodes = pgTable(
  "verification_codes",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    purpose: text("purpose", { enum: ["signup", "reset", "email_change", "signin"] }).notNull(),
    codeHash: text("code_hash").notNull(),
    targetEmail: text("target_email").notNull(),
    attempts: integer("attempts").notNull().default(0),
    sentAt: timestamp("sent_at", { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    consumedAt: timestamp("consumed_at", { withTimezone: true }),
  },
  (t) => [uniqueIndex("verification_codes_user_purpose_key").on(t.userId, t.purpose)],
);

export type Organization = typeof organizations.$inferSelect;
export type User = typeof users.$inferSelect;
