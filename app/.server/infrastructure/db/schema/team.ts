import { sql } from "drizzle-orm";
import { check, index, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";
import { organizations, users } from "./auth";
import { PLATFORM_ROLES } from "../../../../lib/roles";

/**
 * An invitation to join an organisation: a single-use link by e-mail, valid for 7 days. Only the
 * SHA-256 of the link's token is stored. Resending gives the same invitation a new token and a new
 * expiry; accepting or revoking closes it. One open invitation an e-mail address an organisation.
 */
export const invitations = pgTable(
  "invitations",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    email: text("email").notNull(),
    role: text("role", { enum: ["admin", "agent", "viewer"] }).notNull(),
    tokenHash: text("token_hash").notNull().unique(),
    invitedBy: uuid("invited_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
    sentAt: timestamp("sent_at", { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    acceptedAt: timestamp("accepted_at", { withTimezone: true }),
    acceptedBy: uuid("accepted_by").references(() => users.id, { onDelete: "set null" }),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
    /** An invitation to the platform's console staff (issue 74): the account made is a platform administrator with this role. */
    platformRole: text("platform_role", { enum: PLATFORM_ROLES }),
  },
  (t) => [
    uniqueIndex("invitations_open_key")
      .on(t.organizationId, sql`lower(${t.email})`)
      .where(sql`accepted_at is null and revoked_at is null`),
    index("invitations_organization_idx").on(t.organizationId, t.createdAt),
    check("invitations_role_check", sql`role in ('admin', 'agent', 'viewer')`),
    check("invitations_platform_role_check", sql`platform_role is null or platform_role in ('owner', 'finance', 'support')`),
  ],
);
