import { sql } from "drizzle-orm";
import { bigint, boolean, check, date, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";

/**
 * The partner programme (issue 46, decision 086): agencies, resellers and integrators that bring
 * organisations to Jumbe earn a share of what those organisations pay, settled monthly. Money is
 * integer cents of KES; shares are basis points (1,500 = 15%). Like billing's records, these carry
 * organisation ids without foreign keys: the books outlive a closed organisation.
 */

export const PARTNER_STATUSES = ["pending", "active", "suspended"] as const;
export type PartnerStatus = (typeof PARTNER_STATUSES)[number];
export const PARTNER_CATEGORIES = ["CRM", "E-commerce", "Agency", "Bank", "Government", "Reseller", "Integrator"] as const;
export const PAYOUT_METHODS = ["mpesa", "bank"] as const;

/** A partner: one organisation enrolled in the programme, its share and where its money goes. */
export const partners = pgTable(
  "partners",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: uuid("organization_id").notNull(),
    /** The referral code in `?ref=CODE`: upper-case letters and digits. */
    code: text("code").notNull(),
    name: text("name").notNull(),
    category: text("category").notNull(),
    status: text("status", { enum: PARTNER_STATUSES }).notNull().default("pending"),
    /** The share in effect now; each change is a row of partner_share_changes, dated. */
    shareBps: integer("share_bps").notNull(),
    payoutMethod: text("payout_method", { enum: PAYOUT_METHODS }).notNull(),
    /** M-Pesa: 2547XXXXXXXX. */
    mpesaPhone: text("mpesa_phone"),
    /** Bank: `{bank, branch, accountName, accountNumber}`. */
    bankDetails: jsonb("bank_details"),
    kraPin: text("kra_pin").notNull(),
    /** Kenyan resident for tax: withholding at the resident rate, else the non-resident one. */
    resident: boolean("resident").notNull().default(true),
    appliedBy: uuid("applied_by"),
    approvedAt: timestamp("approved_at", { withTimezone: true }),
    approvedBy: uuid("approved_by"),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("partners_organization_key").on(t.organizationId),
    uniqueIndex("partners_code_key").on(t.code),
    check("partners_share_check", sql`share_bps between 0 and 5000`),
  ],
);

/** Every share a partner has had, from when: a payment takes the share in effect when it was paid (never retroactive). */
export const partnerShareChanges = pgTable(
  "partner_share_changes",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    partnerId: uuid("partner_id").notNull(),
    shareBps: integer("share_bps").notNull(),
    reason: text("reason").notNull(),
    effectiveFrom: timestamp("effective_from", { withTimezone: true }).notNull().defaultNow(),
    changedBy: uuid("changed_by"),
    createdAt: createdAt(),
  },
  (t) => [index("partner_share_changes_partner_idx").on(t.partnerId, t.effectiveFrom)],
);

/**
 * Every status a partner has had, from when (approved, suspended, reactivated): a payment earns only if
 * its partner was active when it was paid, whenever the ledger records it (decision 102). Written in
 * the transaction that changes `partners.status`.
 */
export const partnerStatusChanges = pgTable(
  "partner_status_changes",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    partnerId: uuid("partner_id").notNull(),
    status: text("status", { enum: PARTNER_STATUSES }).notNull(),
    effectiveFrom: timestamp("effective_from", { withTimezone: true }).notNull().defaultNow(),
    createdAt: createdAt(),
  },
  (t) => [index("partner_status_changes_partner_idx").on(t.partnerId, t.effectiveFrom)],
);

/** Who brought whom: an organisation belongs to at most one partner at a time; history is kept. */
export const partnerAttributions = pgTable(
  "partner_attributions",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    partnerId: uuid("partner_id").notNull(),
    organizationId: uuid("organization_id").notNull(),
    source: text("source", { enum: ["referral", "admin"] }).notNull(),
    reason: text("reason"),
    startedAt: timestamp("started_at", { withTimezone: true }).notNull().defaultNow(),
    endedAt: timestamp("ended_at", { withTimezone: true }),
    createdBy: uuid("created_by"),
  },
  (t) => [
    uniqueIndex("partner_attributions_current_key")
      .on(t.organizationId)
      .where(sql`ended_at is null`),
    index("partner_attributions_partner_idx").on(t.partnerId, t.startedAt),
    index("partner_attributions_org_idx").on(t.organizationId, t.startedAt),
  ],
);

export const REFERRAL_REVIEW_STATUSES = ["pending", "approved", "rejected"] as const;
export type ReferralReviewStatus = (typeof REFERRAL_REVIEW_STATUSES)[number];
/** What a referral shared with its partner: a member's phone (or the partner's M-Pesa number), a member's e-mail domain, a KRA PIN. */
export const REFERRAL_MATCH_FIELDS = ["phone", "email_domain", "kra_pin"] as const;
export type ReferralMatchField = (typeof REFERRAL_MATCH_FIELDS)[number];

/**
 * A referral that looks like the partner's own (issue 72, decision 104): an organisation that shares
 * a phone, an e-mail domain or a KRA PIN with its partner earns nothing until a platform
 * administrator approves it (an attribution from the approval, never before) or rejects it, with why.
 * `matches` says which fields matched and with what: `[{field, value}]`.
 */
export const partnerReferralReviews = pgTable(
  "partner_referral_reviews",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    partnerId: uuid("partner_id").notNull(),
    organizationId: uuid("organization_id").notNull(),
    matches: jsonb("matches").notNull(),
    status: text("status", { enum: REFERRAL_REVIEW_STATUSES }).notNull().default("pending"),
    decidedBy: uuid("decided_by"),
    decidedAt: timestamp("decided_at", { withTimezone: true }),
    decisionReason: text("decision_reason"),
    createdAt: createdAt(),
  },
  (t) => [
    // One open review an organisation; decided ones are history.
    uniqueIndex("partner_referral_reviews_pending_key")
      .on(t.organizationId)
      .where(sql`status = 'pending'`),
    index("partner_referral_reviews_status_idx").on(t.status, t.createdAt),
    index("partner_referral_reviews_partner_idx").on(t.partnerId, t.createdAt),
    check("partner_referral_reviews_status_check", sql`status in ('pending', 'approved', 'rejected')`),
    check(
      "partner_referral_reviews_decision_check",
      sql`(status = 'pending') = (decided_at is null) and (status <> 'rejected' or coalesce(length(decision_reason), 0) > 0)`,
    ),
  ],
);

export const PARTNER_TRANSACTION_KINDS = ["topup", "subscription", "bank_transfer", "credit_note"] as const;

/**
 * The programme's ledger: one row per paid invoice of a client organisation (its amount net of VAT)
 * and one per credit note against such an invoice (negative: it reverses the share). Unique per
 * invoice, so a payment never counts twice however often it is recorded.
 */
export const partnerTransactions = pgTable(
  "partner_transactions",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    partnerId: uuid("partner_id").notNull(),
    clientOrganizationId: uuid("client_organization_id").notNull(),
    invoiceId: uuid("invoice_id").notNull(),
    kind: text("kind", { enum: PARTNER_TRANSACTION_KINDS }).notNull(),
    /** Net of VAT; negative for a credit note. */
    amountCents: bigint("amount_cents", { mode: "number" }).notNull(),
    shareBps: integer("share_bps").notNull(),
    partnerCents: bigint("partner_cents", { mode: "number" }).notNull(),
    platformCents: bigint("platform_cents", { mode: "number" }).notNull(),
    /** When the invoice was paid (a credit note: issued): the month it settles in (Nairobi). */
    occurredAt: timestamp("occurred_at", { withTimezone: true }).notNull(),
    settlementId: uuid("settlement_id"),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("partner_transactions_invoice_key").on(t.invoiceId),
    // The Transactions tab's pages, newest first by (occurred_at, id), each from an index without a
    // sort: unfiltered or by month, by partner (and a partner's own page), by kind (issue 46's bench).
    index("partner_transactions_partner_idx").on(t.partnerId, t.occurredAt, t.id),
    index("partner_transactions_occurred_idx").on(t.occurredAt, t.id),
    index("partner_transactions_kind_idx").on(t.kind, t.occurredAt, t.id),
    check("partner_transactions_split_check", sql`partner_cents + platform_cents = amount_cents`),
  ],
);

export const SETTLEMENT_STATUSES = ["pending", "processing", "paid", "failed"] as const;

/** One partner's month: its transactions summed, withholding tax deducted, paid out once. */
export const partnerSettlements = pgTable(
  "partner_settlements",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    partnerId: uuid("partner_id").notNull(),
    /** The month settled: its first day (Nairobi). */
    period: date("period").notNull(),
    transactions: integer("transactions").notNull(),
    revenueCents: bigint("revenue_cents", { mode: "number" }).notNull(),
    partnerCents: bigint("partner_cents", { mode: "number" }).notNull(),
    withholdingBps: integer("withholding_bps").notNull(),
    withholdingCents: bigint("withholding_cents", { mode: "number" }).notNull(),
    netCents: bigint("net_cents", { mode: "number" }).notNull(),
    /** Cents the partner's earlier settlements could not pay (M-Pesa pays whole shillings), paid with this one. */
    carriedInCents: bigint("carried_in_cents", { mode: "number" }).notNull().default(0),
    /** Cents this one cannot pay (by M-Pesa: under a shilling), carried to the partner's next settlement. */
    carriedOutCents: bigint("carried_out_cents", { mode: "number" }).notNull().default(0),
    /** What is paid, and what the statement says is paid: net + carried in - carried out (decision 103). */
    payableCents: bigint("payable_cents", { mode: "number" }).notNull(),
    status: text("status", { enum: SETTLEMENT_STATUSES }).notNull().default("pending"),
    payoutMethod: text("payout_method", { enum: PAYOUT_METHODS }).notNull(),
    /** The M-Pesa receipt or the bank's reference, once paid. */
    payoutReference: text("payout_reference"),
    failureReason: text("failure_reason"),
    createdAt: createdAt(),
    paidAt: timestamp("paid_at", { withTimezone: true }),
  },
  (t) => [
    uniqueIndex("partner_settlements_period_key").on(t.partnerId, t.period),
    index("partner_settlements_period_idx").on(t.period, t.status),
    check("partner_settlements_net_check", sql`partner_cents - withholding_cents = net_cents`),
    check("partner_settlements_payable_check", sql`payable_cents = net_cents + carried_in_cents - carried_out_cents`),
    // M-Pesa pays whole shillings, the cents carried (under a shilling); a bank transfer pays to the cent.
    check(
      "partner_settlements_carry_check",
      sql`carried_in_cents >= 0 and carried_out_cents >= 0
          and case when payout_method = 'mpesa' then carried_out_cents < 100 and payable_cents % 100 = 0 else carried_out_cents = 0 end`,
    ),
  ],
);

export const PAYOUT_STATUSES = ["awaiting_approval", "requested", "accepted", "paid", "failed", "expired"] as const;

/**
 * A settlement's payout attempts. An M-Pesa attempt's id is Daraja's OriginatorConversationID, so
 * sending it again never pays twice; a failed attempt is followed by a new one. Above the approval
 * threshold an attempt waits for a second administrator (maker-checker).
 */
export const partnerPayouts = pgTable(
  "partner_payouts",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    settlementId: uuid("settlement_id").notNull(),
    attempt: integer("attempt").notNull(),
    method: text("method", { enum: PAYOUT_METHODS }).notNull(),
    amountCents: bigint("amount_cents", { mode: "number" }).notNull(),
    status: text("status", { enum: PAYOUT_STATUSES }).notNull(),
    originatorConversationId: text("originator_conversation_id").notNull(),
    conversationId: text("conversation_id"),
    phone: text("phone"),
    resultCode: integer("result_code"),
    resultDesc: text("result_desc"),
    receipt: text("receipt"),
    receiverName: text("receiver_name"),
    requestedBy: uuid("requested_by"),
    approvedBy: uuid("approved_by"),
    nextCheckAt: timestamp("next_check_at", { withTimezone: true }),
    checks: integer("checks").notNull().default(0),
    createdAt: createdAt(),
    completedAt: timestamp("completed_at", { withTimezone: true }),
  },
  (t) => [
    uniqueIndex("partner_payouts_attempt_key").on(t.settlementId, t.attempt),
    uniqueIndex("partner_payouts_originator_key").on(t.originatorConversationId),
    // One attempt at a time: a new one only once the last has failed or expired.
    uniqueIndex("partner_payouts_open_key")
      .on(t.settlementId)
      .where(sql`status in ('awaiting_approval', 'requested', 'accepted', 'paid')`),
    index("partner_payouts_check_idx")
      .on(t.nextCheckAt)
      .where(sql`status in ('requested', 'accepted') and next_check_at is not null`),
  ],
);

/**
 * The programme's recurring work across instances (decision 087): `settlement`: the last month (its
 * first day, at Nairobi's midnight) whose settlement run completed. (The ledger needs no mark: it is
 * written with each payment, decision 102.)
 */
export const partnerSchedule = pgTable("partner_schedule", {
  name: text("name", { enum: ["settlement"] }).primaryKey(),
  at: timestamp("at", { withTimezone: true }).notNull(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});
