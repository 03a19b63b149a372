import { sql } from "drizzle-orm";
import {
  type AnyPgColumn,
  bigint,
  boolean,
  doublePrecision,
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

export const contacts = pgTable(
  "contacts",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /** E.164 with its plus sign. */
    phone: text("phone"),
    waId: text("wa_id"),
    /**
     * Meta's business-scoped user id (BSUID, e.g. `KE.1234…`): a person who hides their number
     * behind a username still arrives with it, so they stay one contact.
     */
    userId: text("user_id"),
    /** Free labels for filters and segments, lower-cased, at most 50 of 40 characters each. */
    tags: text("tags")
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    /** Values of the tenant's custom attributes (contact_attributes), by key: usable as template variables. */
    attributes: jsonb("attributes")
      .$type<Record<string, string | number | boolean>>()
      .notNull()
      .default(sql`'{}'::jsonb`),
    notes: text("notes"),
    /** The person's language for Jumbe's own replies (en or sw); null: not known. */
    language: text("language"),
    /** Derived from the consent ledger (consent_events), written in the same transaction as its latest event. */
    optIn: text("opt_in", { enum: ["opted_in", "opted_out", "unknown"] })
      .notNull()
      .default("unknown"),
    optInChangedAt: timestamp("opt_in_changed_at", { withTimezone: true }),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
    lastSeenAt: timestamp("last_seen_at", { withTimezone: true }),
    /** The first and the latest Click-to-WhatsApp ad that brought the person (ad_referrals.id; decision 154). */
    firstAdReferralId: uuid("first_ad_referral_id"),
    lastAdReferralId: uuid("last_ad_referral_id"),
    /**
     * What the Contacts tab's search matches, lower-cased: the name, the number and the custom
     * attributes' values (not their keys). One trigram index covers all three, so a search of
     * 1,000,000 contacts is an index scan, not a pass over every row's JSON.
     */
    searchText: text("search_text").generatedAlwaysAs(
      sql`lower(name || ' ' || coalesce(phone, '') || ' ' || jsonb_path_query_array(attributes, '$.*')::text)`,
    ),
  },
  (t) => [
    index("contacts_org_idx").on(t.organizationId),
    uniqueIndex("contacts_org_phone_idx")
      .on(t.organizationId, t.phone)
      .where(sql`phone is not null`),
    // Keyset paging, newest first, and the filters' common orders.
    index("contacts_org_created_idx").on(t.organizationId, t.createdAt.desc(), t.id.desc()),
    index("contacts_org_seen_idx").on(t.organizationId, t.lastSeenAt.desc().nullsLast()),
    index("contacts_tags_idx").using("gin", t.tags),
    // The organisation first (btree_gin, decision 177): a search reads only its organisation's entries of each trigram.
    index("contacts_search_trgm_idx").using("gin", t.organizationId, sql`${t.searchText} gin_trgm_ops`),
    uniqueIndex("contacts_org_wa_id_idx")
      .on(t.organizationId, t.waId)
      .where(sql`wa_id is not null`),
    uniqueIndex("contacts_org_user_id_idx")
      .on(t.organizationId, t.userId)
      .where(sql`user_id is not null`),
  ],
);

/**
 * One conversation per customer per business number. Its service window is open for 24 hours
 * after the customer's last message (`last_inbound_at`): free-form messages only then.
 */
export const conversations = pgTable(
  "conversations",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    phoneNumberId: text("phone_number_id").notNull(),
    contactId: uuid("contact_id")
      .notNull()
      .references(() => contacts.id, { onDelete: "cascade" }),
    lastInboundAt: timestamp("last_inbound_at", { withTimezone: true }),
    lastMessageAt: timestamp("last_message_at", { withTimezone: true }).notNull().defaultNow(),
    createdAt: createdAt(),
    /** The inbox (decision 034): open until an agent resolves it; the customer writing again reopens it. */
    status: text("status", { enum: ["open", "resolved"] })
      .notNull()
      .default("open"),
    /** The agent answering it; null: nobody yet. */
    assignedTo: uuid("assigned_to").references(() => users.id, { onDelete: "set null" }),
    resolvedAt: timestamp("resolved_at", { withTimezone: true }),
    /**
     * Since when a person holds the conversation (issue 44): automations and the assistant stay silent
     * while it is set. Set by an assignment, a hand-over and a member's reply; cleared by resolving.
     */
    personHeldAt: timestamp("person_held_at", { withTimezone: true }),
    /** The customer's messages nobody has opened yet: raised as they arrive, zeroed when an agent opens the thread. */
    unreadCount: integer("unread_count").notNull().default(0),
    /** The latest ad the customer came from into this conversation (ad_referrals.id; decision 154). */
    adReferralId: uuid("ad_referral_id"),
    /** When the customer last wrote from an ad: a business reply within 24 hours opens the free entry window. */
    adEntryAt: timestamp("ad_entry_at", { withTimezone: true }),
    /** Meta's free entry point window: every message, templates too, is free until then (72 hours from the reply). */
    freeEntryUntil: timestamp("free_entry_until", { withTimezone: true }),
  },
  (t) => [
    uniqueIndex("conversations_org_number_contact_idx").on(t.organizationId, t.phoneNumberId, t.contactId),
    // The inbox's list: newest activity first, a keyset page at a time, whole or by state or agent.
    index("conversations_org_last_idx").on(t.organizationId, t.lastMessageAt.desc(), t.id.desc()),
    index("conversations_org_status_last_idx").on(t.organizationId, t.status, t.lastMessageAt.desc(), t.id.desc()),
    index("conversations_org_assignee_last_idx")
      .on(t.organizationId, t.assignedTo, t.lastMessageAt.desc(), t.id.desc())
      .where(sql`assigned_to is not null`),
  ],
);

export const messages = pgTable(
  "messages",
  {
    /**
     * With created_at, the key: the table is partitioned by month of created_at (decision 181). A message
     * is read by both where both are known (one partition), by id alone elsewhere (each partition's index).
     */
    id: uuid("id").defaultRandom().notNull(),
    /**
     * Arrival order: Meta's timestamps are whole seconds, so messages of one second (several in one
     * webhook batch) keep their order by this. A conversation reads in (sent_at, seq) order.
     */
    seq: bigint("seq", { mode: "number" }).generatedAlwaysAsIdentity(),
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
    /** How it travelled: WhatsApp, or SMS through Africa's Talking (issue 77; its details in sms_messages). */
    channel: text("channel", { enum: ["whatsapp", "sms"] })
      .notNull()
      .default("whatsapp"),
    /** The message object as Meta sent it (media ids, replies, reactions...). */
    payload: jsonb("payload"),
    /**
     * Inbound: when WhatsApp says the customer sent it. Outbound: Meta's "sent" status time.
     * createdAt is when Jumbe stored it.
     */
    sentAt: timestamp("sent_at", { withTimezone: true }),
    createdAt: createdAt(),
    // Outbound only from here on.
    /** Who sends it: api, campaign, broadcast, inbox. */
    source: text("source"),
    /** The recipient in E.164 as Jumbe normalised it, and the WhatsApp id Meta answered with. */
    recipientPhone: text("recipient_phone"),
    recipientWaId: text("recipient_wa_id"),
    templateId: uuid("template_id"),
    /** The message this one replies to (context.message_id). */
    contextWamid: text("context_wamid"),
    /** The dispatcher's claim: attempts so far, the earliest next try, and the lease of a worker holding it. */
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true }),
    lockedUntil: timestamp("locked_until", { withTimezone: true }),
    /** Meta answered 200 with the wamid: accepted, before any status webhook. */
    acceptedAt: timestamp("accepted_at", { withTimezone: true }),
    deliveredAt: timestamp("delivered_at", { withTimezone: true }),
    readAt: timestamp("read_at", { withTimezone: true }),
    failedAt: timestamp("failed_at", { withTimezone: true }),
    /** Meta's error (code, title, details) or Jumbe's own refusal before calling Meta. */
    errorCode: integer("error_code"),
    errorTitle: text("error_title"),
    errorDetails: text("error_details"),
    /** What Meta's status webhooks said about pricing: category, type (regular, free_customer_service...), billable. */
    pricingCategory: text("pricing_category"),
    pricingType: text("pricing_type"),
    billable: boolean("billable"),
    /**
     * Inbound media: the file Jumbe downloaded from Meta into its storage (null until the download
     * job has run, or when it failed: error_* then say why). A column rather than a key in payload,
     * so payload stays exactly what Meta sent and a deleted file unlinks itself.
     */
    mediaFileId: uuid("media_file_id").references((): AnyPgColumn => mediaFiles.id, { onDelete: "set null" }),
    /** The campaign or broadcast that sent it (campaigns.id; no foreign key: the schema files would import each other). */
    campaignId: uuid("campaign_id"),
    /** The member who wrote it in the inbox. */
    sentBy: uuid("sent_by").references(() => users.id, { onDelete: "set null" }),
    /** The automation run that sent it (automation_runs.id; no foreign key: the schema files would import each other). */
    automationRunId: uuid("automation_run_id"),
    /** A failed message an agent sent again (as a new message): when, so it is retried once. */
    retriedAt: timestamp("retried_at", { withTimezone: true }),
    /**
     * Outbound: when the customer answered it (analytics, decision 036): the customer's next message
     * on the same number within 24 hours, or one quoting it. Set once, by the analytics fold.
     */
    repliedAt: timestamp("replied_at", { withTimezone: true }),
    /**
     * Billing (decision 035). A prepaid template message holds its price when it is queued (held),
     * is charged when Meta accepts it (charged) and released when it fails before (released); one
     * Meta fails after accepting it is refunded. A postpaid one is counted as usage when accepted
     * (counted). Free (free): sent inside an ad's free entry window (decision 154), its hold released.
     * Null: free (a reply inside the customer service window) or inbound.
     */
    priceCents: integer("price_cents"),
    chargeState: text("charge_state", { enum: ["held", "unbilled", "charged", "counted", "released", "refunded", "free"] }),
    /**
     * When the retention job removed its body and payload (the organisation's message retention,
     * decision 165): the row stays (statuses, billing, the conversation's order), its words do not.
     */
    bodyExpiredAt: timestamp("body_expired_at", { withTimezone: true }),
  },
  (t) => [
    index("messages_org_created_idx").on(t.organizationId, t.createdAt),
    // The retention job's messages whose body is still kept (decision 165): expired ones are not read again.
    index("messages_org_body_kept_idx")
      .on(t.organizationId, t.createdAt)
      .where(sql`body_expired_at is null`),
    // A contact's messages: the timeline, a merge, an erasure, and the set-null of a deleted contact.
    index("messages_contact_idx")
      .on(t.contactId, t.createdAt)
      .where(sql`contact_id is not null`),
    primaryKey({ columns: [t.id, t.createdAt] }),
    // A wamid is unique per organisation through message_wamids (decision 174), across every month.
    // No index names `status`, in its columns or its predicate: Meta's status webhooks change it
    // three times a message, and an update that changes no indexed column is written in place on its
    // page (a HOT update, helped by the table's fillfactor of migration 0024) instead of adding an
    // entry to each index. A message waiting to be sent is "outbound, accepted_at and failed_at
    // null" (the same as status 'queued' before Meta accepts it); queries say it that way so the
    // planner can use these partial indexes.
    // The dispatcher's queue: outbound messages not yet accepted, by when they may go. Its predicate
    // names next_attempt_at (which the claim's `next_attempt_at <= now()` implies) so that no other
    // query can use it: with statistics from before a campaign queued its thousands, the planner
    // once took it for the pair-order probe and read the whole queue for each message.
    index("messages_dispatch_idx")
      .on(t.nextAttemptAt)
      .where(sql`direction = 'outbound' and accepted_at is null and failed_at is null and next_attempt_at is not null`),
    // The pair rate: what went to one person from one number lately.
    index("messages_pair_idx")
      .on(t.phoneNumberId, t.recipientPhone, t.acceptedAt)
      .where(sql`accepted_at is not null`),
    // A campaign's messages (its figures, its results), and those still waiting (its feeder, pause and cancel).
    index("messages_campaign_idx")
      .on(t.campaignId)
      .where(sql`campaign_id is not null`),
    index("messages_campaign_waiting_idx")
      .on(t.campaignId)
      .where(sql`campaign_id is not null and accepted_at is null and failed_at is null`),
    // The pair order: a person's earlier unsent message (dispatcher.ts pairState), one probe per message.
    // The inbox's search of what customers and agents wrote (not campaigns' templates, the same for everyone).
    // The organisation first (btree_gin, decision 177): a search reads only its organisation's entries of each trigram.
    index("messages_inbox_search_trgm_idx")
      .using("gin", t.organizationId, sql`lower(${t.body}) gin_trgm_ops`)
      .where(sql`contact_id is not null and (direction = 'inbound' or source = 'inbox')`),
    index("messages_queued_pair_idx")
      .on(t.organizationId, t.phoneNumberId, t.recipientPhone, t.seq)
      .where(sql`direction = 'outbound' and accepted_at is null and failed_at is null`),
  ],
);

/**
 * The first answer to each `Idempotency-Key` of the public API, kept 24 hours: a retry with the same
 * key and body gets it again; the same key with another body is refused (idempotency_conflict).
 */
export const apiIdempotency = pgTable(
  "api_idempotency",
  {
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    key: text("key").notNull(),
    requestHash: text("request_hash").notNull(),
    status: integer("status").notNull(),
    response: jsonb("response").notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.key] }), index("api_idempotency_created_idx").on(t.createdAt)],
);

/** Each number's send rate across every instance: a token bucket refilled at `rate` a second. */
export const sendingBuckets = pgTable("sending_buckets", {
  phoneNumberId: text("phone_number_id").primaryKey(),
  /** Messages a second Meta allows this number: 80 by default, 1,000 once Meta raises it. */
  rate: integer("rate").notNull().default(80),
  tokens: doublePrecision("tokens").notNull(),
  refilledAt: timestamp("refilled_at", { withTimezone: true }).notNull().defaultNow(),
  /**
   * Until when the messages already put back for want of tokens have their turns (one each 1/rate
   * s): the next ones put back take turns after them, so a burst waits once, not over and over.
   */
  reservedUntil: timestamp("reserved_until", { withTimezone: true }),
});

/**
 * Each business portfolio's messaging limit at work: the people it reached with business-initiated
 * messages (templates outside a service window) and when, so a rolling 24 hours can be counted.
 * A row older than 24 hours no longer counts; housekeeping removes it.
 */
export const messagingLimitRecipients = pgTable(
  "messaging_limit_recipients",
  {
    /** The account's business portfolio id (its WABA id when Meta did not name the portfolio). */
    portfolioId: text("portfolio_id").notNull(),
    recipient: text("recipient").notNull(),
    reachedAt: timestamp("reached_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.portfolioId, t.recipient] }),
    index("messaging_limit_recipients_reached_idx").on(t.portfolioId, t.reachedAt),
  ],
);

/** Media Jumbe keeps: uploads for sending and what customers sent, the bytes in the storage module. */
export const mediaFiles = pgTable(
  "media_files",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    direction: text("direction", { enum: ["outbound", "inbound"] }).notNull(),
    mimeType: text("mime_type").notNull(),
    size: integer("size").notNull(),
    sha256: text("sha256").notNull(),
    fileName: text("file_name"),
    /** Where the storage module keeps the bytes (a path under DATA_DIR by default). */
    storageKey: text("storage_key").notNull(),
    /** Meta's media id and the number it belongs to, once uploaded or as the inbound message named it. */
    metaMediaId: text("meta_media_id"),
    phoneNumberId: text("phone_number_id"),
    createdAt: createdAt(),
  },
  (t) => [index("media_files_org_idx").on(t.organizationId, t.createdAt)],
);

/**
 * Meta's media id for a file of Jumbe's on one business number: the dispatcher uploads a file once
 * per number and sends that id again while it is younger than Meta keeps media (30 days; decision 023).
 */
export const mediaUploads = pgTable(
  "media_uploads",
  {
    mediaFileId: uuid("media_file_id")
      .notNull()
      .references(() => mediaFiles.id, { onDelete: "cascade" }),
    phoneNumberId: text("phone_number_id").notNull(),
    metaMediaId: text("meta_media_id").notNull(),
    uploadedAt: timestamp("uploaded_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.mediaFileId, t.phoneNumberId] })],
);

/**
 * Each WhatsApp message id (wamid) a tenant's message holds, once (decision 174): the key that
 * recognises a duplicate delivery of an inbound message and finds an outbound message for its
 * status, whatever month the message is in. Written by triggers on messages in the statement that
 * gives a message its wamid (insert, the dispatcher's settle, a lost accept adopted), removed when
 * the message loses it (erasure) or is deleted; the inbound insert writes the keys first and inserts
 * only the messages whose key went in. No foreign key to messages: see decision 174.
 */
export const messageWamids = pgTable(
  "message_wamids",
  {
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    wamid: text("wamid").notNull(),
    messageId: uuid("message_id").notNull(),
    /** The message's created_at (its partition), the same value. */
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.wamid] }), index("message_wamids_message_idx").on(t.messageId)],
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
