import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  check,
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
import { createdAt } from "./columns";
import { organizations, users } from "./auth";

/**
 * Billing (issue 17, decision 035). Money is integer cents of KES everywhere. Financial records
 * (the ledger, payments, invoices) carry their organisation's id without a foreign key: Kenyan law
 * keeps books five years (TPA s.23), so closing and erasing an organisation leaves them, with the
 * buyer's details frozen on each invoice.
 */

export const BILLING_TYPES = ["prepaid", "postpaid"] as const;
export type BillingType = (typeof BILLING_TYPES)[number];
export const PLAN_CODES = ["starter", "growth", "enterprise"] as const;
export type PlanCode = (typeof PLAN_CODES)[number];

/**
 * The price list: one row per plan and billing type. Prepaid: each template message costs
 * messagePriceCents from the wallet, up to messageLimit a month. Postpaid: monthlyFeeCents a month
 * with includedMessages, each message beyond at messagePriceCents, invoiced on the 1st.
 */
export const billingPlans = pgTable(
  "billing_plans",
  {
    code: text("code", { enum: PLAN_CODES }).notNull(),
    billingType: text("billing_type", { enum: BILLING_TYPES }).notNull(),
    /** As organisations.plan_type stores it: Starter, Growth, Enterprise. */
    name: text("name").notNull(),
    messageLimit: integer("message_limit").notNull(),
    monthlyFeeCents: bigint("monthly_fee_cents", { mode: "number" }).notNull().default(0),
    includedMessages: integer("included_messages").notNull().default(0),
    messagePriceCents: integer("message_price_cents").notNull(),
    pricesIncludeVat: boolean("prices_include_vat").notNull(),
    sort: integer("sort").notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.code, t.billingType] }),
    check(
      "billing_plans_amounts_check",
      sql`monthly_fee_cents >= 0 and included_messages >= 0 and message_price_cents >= 0 and message_limit > 0`,
    ),
  ],
);

/**
 * An organisation's wallet: the ledger's running totals, changed only together with a ledger row
 * (wallet_entries) in the same transaction. balance: money paid in and not yet spent; held: the part
 * reserved by queued prepaid messages. Available = balance − held, never below zero (the check).
 */
export const wallets = pgTable(
  "wallets",
  {
    organizationId: uuid("organization_id")
      .primaryKey()
      .references(() => organizations.id, { onDelete: "cascade" }),
    balanceCents: bigint("balance_cents", { mode: "number" }).notNull().default(0),
    heldCents: bigint("held_cents", { mode: "number" }).notNull().default(0),
    /** Tell the owners and admins (bell and e-mail) when the available balance falls below this. */
    lowBalanceThresholdCents: bigint("low_balance_threshold_cents", { mode: "number" }),
    /** When the low-balance alert last went out (again only after the balance has recovered). */
    lowBalanceNotifiedAt: timestamp("low_balance_notified_at", { withTimezone: true }),
    /** "Send me an M-Pesa prompt when my balance falls below X": the phone, the threshold and the amount. */
    autoTopupThresholdCents: bigint("auto_topup_threshold_cents", { mode: "number" }),
    autoTopupAmountCents: bigint("auto_topup_amount_cents", { mode: "number" }),
    autoTopupPhone: text("auto_topup_phone"),
    autoTopupRequestedAt: timestamp("auto_topup_requested_at", { withTimezone: true }),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  () => [
    check("wallets_available_check", sql`held_cents >= 0 and balance_cents >= held_cents`),
    check("wallets_settings_check", sql`coalesce(low_balance_threshold_cents, 0) >= 0 and coalesce(auto_topup_threshold_cents, 0) >= 0`),
  ],
);

export const WALLET_ENTRY_KINDS = ["topup", "hold", "release", "charge", "refund", "adjustment", "invoice_payment"] as const;
export type WalletEntryKind = (typeof WALLET_ENTRY_KINDS)[number];

/**
 * The ledger, append-only: every change of a wallet, with its cause. amount: the change of the
 * balance (a top-up +, a charge −); held: the change of the reserved part (a hold +, its charge or
 * release −). A wallet's balance is the sum of its amounts, its held part the sum of its helds.
 */
export const walletEntries = pgTable(
  "wallet_entries",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    organizationId: uuid("organization_id").notNull(),
    kind: text("kind", { enum: WALLET_ENTRY_KINDS }).notNull(),
    amountCents: bigint("amount_cents", { mode: "number" }).notNull().default(0),
    heldCents: bigint("held_cents", { mode: "number" }).notNull().default(0),
    /** The wallet after this entry: balance and held. */
    balanceAfterCents: bigint("balance_after_cents", { mode: "number" }).notNull(),
    heldAfterCents: bigint("held_after_cents", { mode: "number" }).notNull(),
    /** Causes: messages (how many; the campaign), a payment, an invoice, a member. */
    messageCount: integer("message_count"),
    campaignId: uuid("campaign_id"),
    paymentId: uuid("payment_id"),
    invoiceId: uuid("invoice_id"),
    /** A payment's receipt (M-Pesa receipt or C2B TransID, Paystack reference, bank reference): credits once. */
    receipt: text("receipt"),
    description: text("description").notNull(),
    createdBy: uuid("created_by"),
    createdAt: createdAt(),
  },
  (t) => [
    index("wallet_entries_org_idx").on(t.organizationId, t.id),
    uniqueIndex("wallet_entries_receipt_key")
      .on(t.receipt)
      .where(sql`receipt is not null`),
  ],
);

/**
 * What each day's charged messages were, by number and Meta pricing category (Africa/Nairobi days):
 * the usage bar, the spend breakdown and postpaid overage read this, never the messages table.
 */
export const billingUsageDaily = pgTable(
  "billing_usage_daily",
  {
    organizationId: uuid("organization_id").notNull(),
    day: date("day").notNull(),
    phoneNumberId: text("phone_number_id").notNull(),
    category: text("category").notNull(),
    messages: integer("messages").notNull().default(0),
    amountCents: bigint("amount_cents", { mode: "number" }).notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.day, t.phoneNumberId, t.category] }),
    // The platform's "Messages this month" (the console's Overview) reads this month's rows of every organisation.
    index("billing_usage_daily_day_idx").on(t.day),
  ],
);

/**
 * What charges and refunds add to billing_usage_daily, waiting for the usage fold (decision 173): an
 * insert that never waits, where an upsert of the day's row made every charge of an organisation wait
 * for the one before it to commit. Readers add these rows to the rollup's, so nothing lags.
 */
export const billingUsagePending = pgTable(
  "billing_usage_pending",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    organizationId: uuid("organization_id").notNull(),
    day: date("day").notNull(),
    phoneNumberId: text("phone_number_id").notNull(),
    category: text("category").notNull(),
    messages: integer("messages").notNull(),
    amountCents: bigint("amount_cents", { mode: "number" }).notNull(),
  },
  // "Messages this month" of one organisation reads its pending rows by this, however many wait
  // (a fold stopped for hours leaves many): not the whole table on every page.
  (t) => [index("billing_usage_pending_org_day_idx").on(t.organizationId, t.day)],
);

export const PAYMENT_METHODS = ["mpesa", "card", "bank", "c2b"] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];
export const PAYMENT_STATUSES = ["pending", "completed", "failed"] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

/**
 * A payment in: an M-Pesa prompt (STK push), a paybill payment (C2B), a card checkout, a bank
 * transfer awaiting reconciliation. Pending until confirmed by Safaricom's query (or a callback
 * that matches), Paystack's verification, or an administrator's reconciliation.
 */
export const payments = pgTable(
  "payments",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: uuid("organization_id").notNull(),
    method: text("method", { enum: PAYMENT_METHODS }).notNull(),
    status: text("status", { enum: PAYMENT_STATUSES }).notNull().default("pending"),
    amountCents: bigint("amount_cents", { mode: "number" }).notNull(),
    /** An invoice this pays; null: a top-up of the wallet. */
    invoiceId: uuid("invoice_id"),
    /** The prompt's phone (2547XXXXXXXX), or a paybill payer's number as Safaricom gave it (maybe masked). */
    phone: text("phone"),
    /** M-Pesa Express: Daraja's ids, and the hash of the secret in this payment's callback address. */
    checkoutRequestId: text("checkout_request_id"),
    merchantRequestId: text("merchant_request_id"),
    callbackSecretHash: text("callback_secret_hash"),
    /** Card: Paystack's reference. Bank: the reference the payer quotes. */
    reference: text("reference"),
    /** Card: Paystack's checkout page for it, answered again to a repeat of the same request. */
    checkoutUrl: text("checkout_url"),
    /** What confirmed it: the M-Pesa receipt or TransID, Paystack's reference, the bank's reference. */
    receipt: text("receipt"),
    resultCode: text("result_code"),
    failureReason: text("failure_reason"),
    /** The query job: when to ask Safaricom (or Paystack) next, and how many times it has. */
    nextCheckAt: timestamp("next_check_at", { withTimezone: true }),
    checks: integer("checks").notNull().default(0),
    /** A prompt the wallet's "send me a prompt below X" asked for (no member pressed a button). */
    automatic: boolean("automatic").notNull().default(false),
    /** The client's key for this request: a double tap makes one payment. */
    idempotencyKey: text("idempotency_key"),
    createdBy: uuid("created_by"),
    createdAt: createdAt(),
    completedAt: timestamp("completed_at", { withTimezone: true }),
  },
  (t) => [
    index("payments_org_created_idx").on(t.organizationId, t.createdAt),
    uniqueIndex("payments_checkout_request_key")
      .on(t.checkoutRequestId)
      .where(sql`checkout_request_id is not null`),
    uniqueIndex("payments_method_reference_key")
      .on(t.method, t.reference)
      .where(sql`reference is not null`),
    uniqueIndex("payments_receipt_key")
      .on(t.receipt)
      .where(sql`receipt is not null`),
    uniqueIndex("payments_idempotency_key")
      .on(t.organizationId, t.idempotencyKey)
      .where(sql`idempotency_key is not null`),
    // The admin console: money received by method in a period, and revenue this month (completed payments by when they completed).
    index("payments_completed_idx")
      .on(t.completedAt)
      .where(sql`status = 'completed'`),
    index("payments_next_check_idx")
      .on(t.nextCheckAt)
      .where(sql`status = 'pending' and next_check_at is not null`),
    check("payments_amount_check", sql`amount_cents > 0`),
  ],
);

/** Paybill payments whose account number matched no organisation: kept for an administrator to place. */
export const mpesaSuspense = pgTable("mpesa_suspense", {
  transId: text("trans_id").primaryKey(),
  billRefNumber: text("bill_ref_number").notNull(),
  amountCents: bigint("amount_cents", { mode: "number" }).notNull(),
  msisdn: text("msisdn"),
  payload: jsonb("payload").notNull(),
  createdAt: createdAt(),
  resolvedAt: timestamp("resolved_at", { withTimezone: true }),
});

export const INVOICE_KINDS = ["topup", "subscription", "bank_transfer", "credit_note"] as const;
export const INVOICE_STATUSES = ["paid", "pending", "overdue", "disputed", "void"] as const;
export const RECLASSIFICATIONS = ["to_account", "to_prepaid"] as const;
export type Reclassification = (typeof RECLASSIFICATIONS)[number];

/**
 * Invoices and receipts, numbered without gaps per series and year (INV-2026-000001,
 * RCT-2026-000001). The seller, buyer and lines are frozen when it is issued; the eTIMS fields wait
 * for transmission to KRA (a later issue).
 */
export const invoices = pgTable(
  "invoices",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: uuid("organization_id").notNull(),
    number: text("number").notNull().unique(),
    series: text("series", { enum: ["INV", "RCT", "CRN"] }).notNull(),
    kind: text("kind", { enum: INVOICE_KINDS }).notNull(),
    status: text("status", { enum: INVOICE_STATUSES }).notNull(),
    issuedAt: timestamp("issued_at", { withTimezone: true }).notNull().defaultNow(),
    dueAt: timestamp("due_at", { withTimezone: true }),
    paidAt: timestamp("paid_at", { withTimezone: true }),
    periodStart: date("period_start"),
    periodEnd: date("period_end"),
    description: text("description").notNull(),
    planType: text("plan_type"),
    billingType: text("billing_type", { enum: BILLING_TYPES }),
    netCents: bigint("net_cents", { mode: "number" }).notNull(),
    vatCents: bigint("vat_cents", { mode: "number" }).notNull(),
    totalCents: bigint("total_cents", { mode: "number" }).notNull(),
    pricesIncludeVat: boolean("prices_include_vat").notNull(),
    seller: jsonb("seller").notNull(),
    buyer: jsonb("buyer").notNull(),
    lines: jsonb("lines").notNull(),
    paymentId: uuid("payment_id"),
    paymentMethod: text("payment_method", { enum: PAYMENT_METHODS }),
    paymentReference: text("payment_reference"),
    /** Bank transfers: reconciled by an administrator against the bank statement. */
    reconciled: boolean("reconciled").notNull().default(false),
    reconciledAt: timestamp("reconciled_at", { withTimezone: true }),
    reconciledBy: uuid("reconciled_by"),
    /** The administrator's notes from the reconcile form. */
    reconciliationNote: text("reconciliation_note"),
    /** A reconciled transfer: the day the payer says the money was sent (the statement's value date); paid_at is when it was recorded. */
    valueDate: date("value_date"),
    /** A reconciled transfer: the bank's own reference from the statement, kept beside the payer's (payment_reference). */
    bankReference: text("bank_reference"),
    /** A credit note: the invoice it credits. */
    creditsInvoiceId: uuid("credits_invoice_id"),
    /**
     * A document written by a change of billing type (decision 124): "to_account", a credit note turning
     * unspent prepaid credit into money on account; "to_prepaid", a tax invoice paid from money on account
     * that makes it prepaid credit. Null for every other document.
     */
    reclassifies: text("reclassifies", { enum: RECLASSIFICATIONS }),
    /** Overdue reminders e-mailed so far, and when the last went. */
    reminders: integer("reminders").notNull().default(0),
    lastReminderAt: timestamp("last_reminder_at", { withTimezone: true }),
    /** KRA eTIMS: the control unit's serial and invoice number, and the QR code's address, once transmitted. */
    etimsCuSerial: text("etims_cu_serial"),
    etimsCuInvoiceNumber: text("etims_cu_invoice_number"),
    etimsQrUrl: text("etims_qr_url"),
    etimsTransmittedAt: timestamp("etims_transmitted_at", { withTimezone: true }),
  },
  (t) => [
    index("invoices_org_issued_idx").on(t.organizationId, t.issuedAt),
    // The admin console's invoice table across tenants (newest first, or one status's) and its reconciliation list.
    index("invoices_issued_idx").on(t.issuedAt, t.id),
    index("invoices_status_issued_idx").on(t.status, t.issuedAt, t.id),
    index("invoices_total_idx").on(t.totalCents, t.id),
    index("invoices_unreconciled_bank_idx")
      .on(t.issuedAt)
      .where(sql`status in ('pending', 'overdue') and reconciled = false and (kind = 'bank_transfer' or payment_method = 'bank')`),
    // The console's search by the reference a payer quoted, or the bank's own (prefix matches on the upper case).
    index("invoices_payment_reference_idx")
      .on(sql`upper(${t.paymentReference}) text_pattern_ops`)
      .where(sql`payment_reference is not null`),
    index("invoices_bank_reference_idx")
      .on(sql`upper(${t.bankReference}) text_pattern_ops`)
      .where(sql`bank_reference is not null`),
    // The monthly job's once: one subscription invoice a period.
    uniqueIndex("invoices_subscription_period_key")
      .on(t.organizationId, t.periodStart)
      .where(sql`kind = 'subscription'`),
    // The partner programme's ledger records the invoices paid since its last run, every minute (decision 087).
    index("invoices_paid_idx")
      .on(t.paidAt)
      .where(sql`paid_at is not null`),
    index("invoices_unpaid_due_idx")
      .on(t.dueAt)
      .where(sql`status in ('pending', 'overdue')`),
    // A credited invoice's credit notes: the amount due (AMOUNT_DUE_SQL) and the partner ledger's reversals (decision 102).
    index("invoices_credits_idx")
      .on(t.creditsInvoiceId)
      .where(sql`credits_invoice_id is not null`),
    check("invoices_totals_check", sql`net_cents + vat_cents = total_cents`),
    // The admin console's search by any part of the number.
    index("invoices_number_trgm_idx").using("gin", sql`${t.number} gin_trgm_ops`),
  ],
);

/** The last number given per series and year: taken in the invoice's own transaction, so a rollback leaves no gap. */
export const invoiceCounters = pgTable(
  "invoice_counters",
  {
    series: text("series").notNull(),
    year: integer("year").notNull(),
    last: integer("last").notNull(),
  },
  (t) => [primaryKey({ columns: [t.series, t.year] })],
);

/** A member's dispute of an invoice, resolved by a platform administrator (the admin console's Billing tab). */
export const invoiceDisputes = pgTable(
  "invoice_disputes",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    invoiceId: uuid("invoice_id")
      .notNull()
      .references(() => invoices.id, { onDelete: "cascade" }),
    reason: text("reason").notNull(),
    status: text("status", { enum: ["open", "resolved"] })
      .notNull()
      .default("open"),
    /** The invoice's status before the dispute, restored when it is resolved without a credit. */
    previousStatus: text("previous_status").notNull(),
    raisedBy: uuid("raised_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
    resolvedAt: timestamp("resolved_at", { withTimezone: true }),
    resolvedBy: uuid("resolved_by"),
    resolution: text("resolution"),
    /** How it was resolved: a credit note for the invoice, or rejected with the note the tenant sees. */
    outcome: text("outcome", { enum: ["credited", "rejected"] }),
    creditNoteId: uuid("credit_note_id"),
  },
  (t) => [
    uniqueIndex("invoice_disputes_open_key")
      .on(t.invoiceId)
      .where(sql`status = 'open'`),
    index("invoice_disputes_org_idx").on(t.organizationId, t.createdAt),
    // The admin console's bell: disputes opened, newest first, across tenants.
    index("invoice_disputes_created_idx").on(t.createdAt.desc()),
  ],
);
