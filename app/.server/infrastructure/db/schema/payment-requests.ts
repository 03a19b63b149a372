import { sql } from "drizzle-orm";
import { boolean, index, integer, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";
import { organizations, users } from "./auth";
import { contacts, conversations } from "./messaging";
import { mpesaShortcodes } from "./payments";

/**
 * Payment requests (issue 76, decision 137): a business asks a customer in the chat to pay an
 * amount to its own M-Pesa shortcode; the customer taps Pay and approves an STK push, or pays the
 * paybill with the request's reference. Paid at most once: every tap, callback, status-query result
 * and C2B confirmation takes the request's row lock (select … for update) before it changes it.
 */

export const PAYMENT_REQUEST_STATUSES = ["open", "paid", "expired", "cancelled"] as const;
export type PaymentRequestStatus = (typeof PAYMENT_REQUEST_STATUSES)[number];
/** Who or what asked for the money. */
export const PAYMENT_REQUEST_SOURCES = ["inbox", "contact", "flow", "automation", "shopify", "api", "order"] as const;
export type PaymentRequestSource = (typeof PAYMENT_REQUEST_SOURCES)[number];
/** How a request was paid: the prompt (STK push) or the paybill/till by hand (C2B). */
export const PAYMENT_REQUEST_PAID_VIA = ["stk", "c2b"] as const;

export const paymentRequests = pgTable(
  "payment_requests",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    /** No cascade: a shortcode with requests on record is not removed (Settings → Payments says so). */
    shortcodeId: uuid("shortcode_id")
      .notNull()
      .references(() => mpesaShortcodes.id),
    contactId: uuid("contact_id")
      .notNull()
      .references(() => contacts.id, { onDelete: "cascade" }),
    conversationId: uuid("conversation_id").references(() => conversations.id, { onDelete: "set null" }),
    /** Whole Kenya shillings, 1 to 250,000 (Daraja's STK limits). */
    amountKes: integer("amount_kes").notNull(),
    /** What it is for, in the business's words (1–100 characters). */
    description: text("description").notNull(),
    /** Daraja's AccountReference (≤ 12, letters and digits), and the account a paybill payment names. */
    reference: text("reference").notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    status: text("status", { enum: PAYMENT_REQUEST_STATUSES }).notNull().default("open"),
    /** The customer asked to pay from another number: their next text is read as that number. */
    phoneAskedAt: timestamp("phone_asked_at", { withTimezone: true }),
    paidVia: text("paid_via", { enum: PAYMENT_REQUEST_PAID_VIA }),
    paidReceipt: text("paid_receipt"),
    paidAmountKes: integer("paid_amount_kes"),
    paidPhone: text("paid_phone"),
    paidAt: timestamp("paid_at", { withTimezone: true }),
    /** M-Pesa took a different amount than asked: flagged for the team, not silently accepted. */
    amountMismatch: boolean("amount_mismatch").notNull().default(false),
    /** The message that asked (the interactive buttons), once queued. */
    messageId: uuid("message_id"),
    createdBy: uuid("created_by").references(() => users.id, { onDelete: "set null" }),
    source: text("source", { enum: PAYMENT_REQUEST_SOURCES }).notNull(),
    /** The flow, automation rule, Shopify order or API key it came from. */
    sourceId: text("source_id"),
    /** The API's Idempotency-Key (one request per key per organisation). */
    idempotencyKey: text("idempotency_key"),
    closedAt: timestamp("closed_at", { withTimezone: true }),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("payment_requests_org_created_idx").on(t.organizationId, t.createdAt.desc(), t.id.desc()),
    // The thread's open requests, and a customer's tap or typed number.
    index("payment_requests_open_contact_idx")
      .on(t.contactId)
      .where(sql`status = 'open'`),
    index("payment_requests_conversation_idx").on(t.conversationId, t.createdAt.desc()),
    // The expiry job.
    index("payment_requests_open_expiry_idx")
      .on(t.expiresAt)
      .where(sql`status = 'open'`),
    // A C2B confirmation names the reference (upper-cased) on one shortcode.
    index("payment_requests_open_reference_idx")
      .on(t.shortcodeId, sql`upper(${t.reference})`)
      .where(sql`status = 'open'`),
    uniqueIndex("payment_requests_receipt_idx").on(t.paidReceipt),
    uniqueIndex("payment_requests_idempotency_idx").on(t.organizationId, t.idempotencyKey),
  ],
);

export const PAYMENT_ATTEMPT_STATES = ["pending", "paid", "failed", "in_doubt"] as const;
export type PaymentAttemptState = (typeof PAYMENT_ATTEMPT_STATES)[number];

/** One STK push of a request: the prompt on one phone, and what became of it. */
export const paymentAttempts = pgTable(
  "payment_attempts",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    requestId: uuid("request_id")
      .notNull()
      .references(() => paymentRequests.id, { onDelete: "cascade" }),
    /** 2547XXXXXXXX or 2541XXXXXXXX: the phone the prompt went to. */
    phone: text("phone").notNull(),
    /** Daraja's ids, once it accepted the push. */
    checkoutRequestId: text("checkout_request_id"),
    merchantRequestId: text("merchant_request_id"),
    state: text("state", { enum: PAYMENT_ATTEMPT_STATES }).notNull().default("pending"),
    /** Daraja's ResultCode (a number as text) or its errorCode for a refused push. */
    resultCode: text("result_code"),
    /** ResultDesc, or Daraja's errorMessage, as M-Pesa said it (English). */
    resultDesc: text("result_desc"),
    /** The query job's next look at a prompt whose callback has not come, and how often it looked. */
    nextCheckAt: timestamp("next_check_at", { withTimezone: true }),
    checks: integer("checks").notNull().default(0),
    createdAt: createdAt(),
    finishedAt: timestamp("finished_at", { withTimezone: true }),
  },
  (t) => [
    uniqueIndex("payment_attempts_checkout_idx").on(t.checkoutRequestId),
    uniqueIndex("payment_attempts_merchant_idx").on(t.merchantRequestId),
    index("payment_attempts_request_idx").on(t.requestId, t.createdAt.desc()),
    index("payment_attempts_due_idx")
      .on(t.nextCheckAt)
      .where(sql`state in ('pending', 'in_doubt')`),
  ],
);

/** Why a C2B payment to a tenant's shortcode settled no request by itself (null: it did). */
export const C2B_UNMATCHED_REASONS = ["no_request", "several_requests", "request_closed", "untrusted_source"] as const;
export type C2bUnmatchedReason = (typeof C2B_UNMATCHED_REASONS)[number];

/**
 * Every C2B confirmation Daraja sent for a tenant's shortcode (issue 76): money that is in the
 * business's paybill or till. One that named no open request (a typo in the account number, a
 * request already closed, a source outside Safaricom's addresses) waits in Settings → Payments'
 * "Received without a request" until a manager matches it to a request, which settles that request
 * under its lock, once. Recorded once per M-Pesa transaction (TransID) per shortcode.
 */
export const paymentC2bReceipts = pgTable(
  "payment_c2b_receipts",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    /** No cascade: a shortcode with receipts on record is not removed. */
    shortcodeId: uuid("shortcode_id")
      .notNull()
      .references(() => mpesaShortcodes.id),
    /** M-Pesa's TransID: the receipt. */
    transId: text("trans_id").notNull(),
    amountKes: integer("amount_kes").notNull(),
    /** As Daraja sends it (masked since 2021: "2547 ***** 123"). */
    msisdn: text("msisdn").notNull().default(""),
    payerName: text("payer_name").notNull().default(""),
    /** The account number the payer typed. */
    billRef: text("bill_ref").notNull().default(""),
    paidAt: timestamp("paid_at", { withTimezone: true }).notNull(),
    /** The request it settled (by itself, or matched by a manager). */
    requestId: uuid("request_id").references(() => paymentRequests.id, { onDelete: "set null" }),
    unmatchedReason: text("unmatched_reason", { enum: C2B_UNMATCHED_REASONS }),
    matchedBy: uuid("matched_by").references(() => users.id, { onDelete: "set null" }),
    matchedAt: timestamp("matched_at", { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("payment_c2b_receipts_trans_idx").on(t.shortcodeId, t.transId),
    index("payment_c2b_receipts_unmatched_idx")
      .on(t.organizationId, t.createdAt)
      .where(sql`request_id is null`),
  ],
);
