import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  customType,
  date,
  index,
  integer,
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
 * The AI assistant (issue 44): per organisation, whether it answers and on which numbers, its
 * instructions, the OpenAI-compatible endpoint it calls (the key sealed with ENCRYPTION_KEY, never
 * shown again: only its last four characters), when it hands over, and its monthly cost cap.
 */
export const assistantSettings = pgTable("assistant_settings", {
  organizationId: uuid("organization_id")
    .primaryKey()
    .references(() => organizations.id, { onDelete: "cascade" }),
  enabled: boolean("enabled").notNull().default(false),
  /** The business numbers (Meta's phone number ids) it answers on; empty: none. */
  phoneNumberIds: text("phone_number_ids")
    .array()
    .notNull()
    .default(sql`'{}'::text[]`),
  /** Tone, what not to discuss: up to 2,000 characters, put before the knowledge in the prompt. */
  instructions: text("instructions").notNull().default(""),
  baseUrl: text("base_url").notNull().default(""),
  model: text("model").notNull().default(""),
  /** encryptSecret(key); empty: no key (Ollama, llama.cpp). */
  apiKeySealed: text("api_key_sealed").notNull().default(""),
  /** The key's last four characters, to say which key is saved. */
  apiKeyLast4: text("api_key_last4").notNull().default(""),
  /** What the customer is told when a person takes over. */
  handoverText: text("handover_text").notNull().default(""),
  /** Hand over after this many assistant replies in a conversation. */
  maxTurns: integer("max_turns").notNull().default(6),
  /** KES cents a month; 0: no cap. */
  monthlyCapCents: bigint("monthly_cap_cents", { mode: "number" }).notNull().default(0),
  /** KES cents per million prompt (input) and completion (output) tokens. */
  inputPriceCents: bigint("input_price_cents", { mode: "number" }).notNull().default(0),
  outputPriceCents: bigint("output_price_cents", { mode: "number" }).notNull().default(0),
  version: integer("version").notNull().default(0),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  updatedBy: uuid("updated_by").references(() => users.id, { onDelete: "set null" }),
});

export const KNOWLEDGE_SOURCES = ["manual", "csv", "pdf"] as const;

/** An article of an organisation's knowledge base: what the assistant may answer from. */
export const knowledgeArticles = pgTable(
  "knowledge_articles",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    title: text("title").notNull(),
    /** Up to 20,000 characters. */
    body: text("body").notNull(),
    source: text("source", { enum: KNOWLEDGE_SOURCES }).notNull().default("manual"),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("knowledge_articles_org_updated_idx").on(t.organizationId, t.updatedAt),
    index("knowledge_articles_search_trgm_idx").using("gin", sql`(${t.title} || ' ' || ${t.body}) gin_trgm_ops`),
  ],
);

/** PostgreSQL's text search document (read and written by SQL only). */
const tsvector = customType<{ data: string }>({ dataType: () => "tsvector" });

/**
 * An article cut into passages of a few hundred characters (paragraphs, the title before each):
 * what retrieval ranks and the prompt quotes, so a long article costs only its relevant part.
 * Rewritten whole with its article.
 */
export const knowledgePassages = pgTable(
  "knowledge_passages",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    articleId: uuid("article_id")
      .notNull()
      .references(() => knowledgeArticles.id, { onDelete: "cascade" }),
    position: integer("position").notNull(),
    text: text("text").notNull(),
    /** Its words for text search ('simple': lower case, no stemming), stored so ranking reads no text. */
    tsv: tsvector("tsv")
      .notNull()
      .generatedAlwaysAs(sql`to_tsvector('simple', text)`),
  },
  (t) => [
    index("knowledge_passages_article_idx").on(t.articleId, t.position),
    // fastupdate off: a new passage goes into the index itself, not a pending list every search would
    // read through until a vacuum (PGlite has no autovacuum): knowledge changes rarely, is read often.
    index("knowledge_passages_tsv_idx").using("gin", t.tsv).with({ fastupdate: false }),
    index("knowledge_passages_org_idx").on(t.organizationId),
  ],
);

/**
 * Every word of an organisation's passages, once: a customer's word is matched against these by
 * trigram similarity (a typo, a Swahili prefix: mnafungua → tunafungua) and the words found are
 * searched for in the passages by text search. A few thousand short rows instead of every passage's
 * text (decision in docs/features/automations.md). Words of deleted articles stay: they find nothing.
 */
export const knowledgeWords = pgTable(
  "knowledge_words",
  {
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    word: text("word").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.word] }),
    index("knowledge_words_trgm_idx")
      .using("gin", sql`${t.word} gin_trgm_ops`)
      .with({ fastupdate: false }),
  ],
);

/** The assistant's use in one month (a calendar month in Africa/Nairobi, as billing's): tokens, cost and outcomes. */
export const assistantUsage = pgTable(
  "assistant_usage",
  {
    organizationId: uuid("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    /** The month's first day. */
    month: date("month").notNull(),
    promptTokens: bigint("prompt_tokens", { mode: "number" }).notNull().default(0),
    completionTokens: bigint("completion_tokens", { mode: "number" }).notNull().default(0),
    /**
     * KES in millionths of a cent, by the settings' prices at the time: a price a million tokens in
     * cents times the tokens is exact, so many small replies add up without rounding.
     */
    costMicrocents: bigint("cost_microcents", { mode: "number" }).notNull().default(0),
    replies: integer("replies").notNull().default(0),
    handovers: integer("handovers").notNull().default(0),
    /** When members were told the cap was reached (once a month). */
    capAlertedAt: timestamp("cap_alerted_at", { withTimezone: true }),
  },
  (t) => [uniqueIndex("assistant_usage_org_month_idx").on(t.organizationId, t.month)],
);
