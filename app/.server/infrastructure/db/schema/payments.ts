import { sql } from "drizzle-orm";
import { boolean, index, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";
import { organizations, users } from "./auth";

/**
 * Payments (issue 76): the organisation's own M-Pesa shortcodes, which its customers pay in the chat.
 * The money goes to the business's Paybill or Till; Jumbe never holds it.
 */

/** Paybill: CustomerPayBillOnline to the paybill. Till: CustomerBuyGoodsOnline, the store number and the till. */
export const MPESA_SHORTCODE_KINDS = ["paybill", "till"] as const;
export type MpesaShortcodeKind = (typeof MPESA_SHORTCODE_KINDS)[number];
/** Safaricom's sandbox (sandbox.safaricom.co.ke, or the local one) or production (api.safaricom.co.ke). */
export const MPESA_ENVIRONMENTS = ["sandbox", "production"] as const;
export type MpesaEnvironment = (typeof MPESA_ENVIRONMENTS)[number];
/** What the last "test connection" (or the last real call) found. */
export const MPESA_SHORTCODE_STATUSES = ["untested", "working", "failing"] as const;

/**
 * One M-Pesa shortcode of an organisation, with the Daraja app's credentials that may use it.
 * Secrets are sealed with encryptSecret (ENCRYPTION_KEY) and never shown again; a page shows only
 * whether each is set and its last four characters of the consumer key.
 */
export const mpesaShortcodes = pgTable(
  "mpesa_shortcodes",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    /** The name the team knows it by ("Main till", "Nairobi branch"). */
    label: text("label").notNull(),
    kind: text("kind", { enum: MPESA_SHORTCODE_KINDS }).notNull(),
    /** BusinessShortCode: the paybill, or for a till the store (head office) number used on Go Live. */
    businessShortCode: text("business_short_code").notNull(),
    /** PartyB of a till (CustomerBuyGoodsOnline); empty for a paybill, whose PartyB is the paybill. */
    tillNumber: text("till_number").notNull().default(""),
    environment: text("environment", { enum: MPESA_ENVIRONMENTS }).notNull(),
    consumerKeySealed: text("consumer_key_sealed").notNull(),
    /** The consumer key's last four characters, to tell two apps apart on the page. */
    consumerKeyHint: text("consumer_key_hint").notNull(),
    consumerSecretSealed: text("consumer_secret_sealed").notNull(),
    passkeySealed: text("passkey_sealed").notNull(),
    /**
     * The token in this shortcode's callback and C2B URLs (…/webhooks/pay/<token>/…): what binds
     * an unsigned Daraja callback to this organisation and shortcode. Random, unique, never reused.
     */
    callbackToken: text("callback_token").notNull(),
    /** The shortcode a payment request uses when none is named. One per organisation. */
    isDefault: boolean("is_default").notNull().default(false),
    status: text("status", { enum: MPESA_SHORTCODE_STATUSES }).notNull().default("untested"),
    /** In words a shop owner understands, when status is failing. */
    statusDetail: text("status_detail"),
    testedAt: timestamp("tested_at", { withTimezone: true }),
    /** When Jumbe registered this shortcode's C2B URLs with Daraja (null: not registered). */
    c2bRegisteredAt: timestamp("c2b_registered_at", { withTimezone: true }),
    createdBy: uuid("created_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("mpesa_shortcodes_org_idx").on(t.organizationId),
    uniqueIndex("mpesa_shortcodes_callback_token_idx").on(t.callbackToken),
    // One organisation cannot connect the same till or paybill twice in one environment.
    uniqueIndex("mpesa_shortcodes_org_code_idx").on(t.organizationId, t.environment, t.businessShortCode, t.tillNumber),
    uniqueIndex("mpesa_shortcodes_org_default_idx")
      .on(t.organizationId)
      .where(sql`is_default`),
  ],
);
