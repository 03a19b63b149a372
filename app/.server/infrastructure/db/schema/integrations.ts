import { sql } from "drizzle-orm";
import { index, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";
import { organizations, users } from "./auth";

/** An integration connection's state: connected, or disconnected (kept for its history; tokens cleared). */
export const INTEGRATION_CONNECTION_STATUSES = ["connected", "disconnected"] as const;
/** Whether the connection works: healthy, or unhealthy after a failed refresh or call (last_error says why). */
export const INTEGRATION_HEALTH = ["healthy", "unhealthy"] as const;

/**
 * One organisation's connection to one outside system (issue 45): HubSpot, Shopify, Google Sheets.
 * Tokens are sealed with ENCRYPTION_KEY (encryptSecret) and never leave the server; the sync's own
 * place (a cursor, the last contact sent) is `sync_state`, so any instance can carry on from it.
 */
export const integrationConnections = pgTable(
  "integration_connections",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    /** The catalogue's id (domains/integrations/catalogue.ts): hubspot, shopify, google-sheets. */
    provider: text("provider").notNull(),
    status: text("status", { enum: INTEGRATION_CONNECTION_STATUSES }).notNull().default("connected"),
    /** What the provider calls the account, for people: a portal's domain, a shop, an e-mail. */
    accountLabel: text("account_label"),
    /** The provider's id of the account (HubSpot's portal id, the shop's domain, Google's subject). */
    externalAccountId: text("external_account_id"),
    scopes: text("scopes")
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    accessTokenSealed: text("access_token_sealed"),
    refreshTokenSealed: text("refresh_token_sealed"),
    /** When the access token stops working; null for one that does not expire (Shopify's offline token). */
    tokenExpiresAt: timestamp("token_expires_at", { withTimezone: true }),
    /**
     * While one instance refreshes the token, until when it holds the claim (a conditional update takes
     * it, so two never refresh at once; a crashed holder's claim lapses). The HTTP call is made outside
     * any transaction: a lock held across it would stall every other query on PGlite.
     */
    refreshClaimedUntil: timestamp("refresh_claimed_until", { withTimezone: true }),
    health: text("health", { enum: INTEGRATION_HEALTH }).notNull().default("healthy"),
    lastSyncAt: timestamp("last_sync_at", { withTimezone: true }),
    lastError: text("last_error"),
    lastErrorAt: timestamp("last_error_at", { withTimezone: true }),
    syncState: jsonb("sync_state")
      .notNull()
      .default(sql`'{}'::jsonb`),
    /** What connecting needed besides the tokens (a Shopify shop's domain): refresh and revoke use it too. */
    context: jsonb("context")
      .notNull()
      .default(sql`'{}'::jsonb`),
    createdBy: uuid("created_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
    connectedAt: timestamp("connected_at", { withTimezone: true }).notNull().defaultNow(),
    disconnectedAt: timestamp("disconnected_at", { withTimezone: true }),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("integration_connections_org_provider_idx").on(t.organizationId, t.provider),
    // The refresh job's look for tokens about to expire (only connected rows with a refresh token).
    index("integration_connections_expiry_idx")
      .on(t.tokenExpiresAt)
      .where(sql`status = 'connected' and refresh_token_sealed is not null`),
  ],
);

/**
 * An OAuth flow under way: the `state` sent to the provider (only its hash is kept), bound to the
 * organisation, the member and the provider; used once, within minutes. In the database, so the
 * callback may reach any instance behind nginx.
 */
export const integrationOauthStates = pgTable(
  "integration_oauth_states",
  {
    stateHash: text("state_hash").primaryKey(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    provider: text("provider").notNull(),
    /** PKCE's code verifier, sealed, for providers that take one. */
    codeVerifierSealed: text("code_verifier_sealed"),
    /** What the start step was given that the callback needs (a Shopify shop's domain). */
    context: jsonb("context")
      .notNull()
      .default(sql`'{}'::jsonb`),
    createdAt: createdAt(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
  },
  (t) => [index("integration_oauth_states_expires_idx").on(t.expiresAt)],
);
