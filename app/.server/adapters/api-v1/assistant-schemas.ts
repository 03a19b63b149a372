import { z } from "zod";
import {
  API_KEY_MAX,
  ARTICLE_BODY_MAX,
  ARTICLE_TITLE_MAX,
  ARTICLES_MAX,
  HANDOVER_TEXT_MAX,
  INSTRUCTIONS_MAX,
  KNOWLEDGE_SOURCES,
  MAX_TURNS_MAX,
  MAX_TURNS_MIN,
} from "~/lib/schemas/assistant";

/**
 * The assistant's and knowledge base's endpoints' shapes (issue 44); the OpenAPI document is
 * generated from them. Bodies check types and shapes; what a value must be (an endpoint's address,
 * a text's length, a number of the organisation) is the domain's check, answered 422
 * invalid_automation with the field. The key is write-only: no answer carries it.
 */

const cents = z.int().min(0).describe("KES cents.");

export const AssistantSettingsUpdate = z
  .object({
    enabled: z.boolean().optional().describe("Whether the assistant answers (on the numbers in phoneNumberIds)."),
    phoneNumberIds: z
      .array(z.string())
      .optional()
      .describe("The WhatsApp numbers (Meta's phone number ids) it answers on; replaces the list; empty: none."),
    instructions: z.string().optional().describe(`Tone and what not to discuss, up to ${INSTRUCTIONS_MAX} characters.`),
    baseUrl: z
      .string()
      .optional()
      .describe(
        "An OpenAI-compatible endpoint's base URL, ending in /v1: https and a public address (a model on Jumbe's own machine outside production).",
      ),
    model: z.string().optional().describe("The model's name at that endpoint; it must support tool calls."),
    apiKey: z
      .string()
      .nullable()
      .optional()
      .describe(
        `The endpoint's key (up to ${API_KEY_MAX} characters), stored encrypted and never answered back; null forgets it; absent keeps it while baseUrl stays on the same origin (scheme, host and port). A saved key is only sent to the origin it was saved for: a baseUrl on another origin without apiKey (or null) is refused (422 at apiKey) and changes nothing.`,
      ),
    handoverText: z
      .string()
      .optional()
      .describe(`What the customer is told when a person takes over, up to ${HANDOVER_TEXT_MAX} characters; required while enabled.`),
    maxTurns: z
      .int()
      .optional()
      .describe(`Assistant replies in a conversation before a person takes over, ${MAX_TURNS_MIN} to ${MAX_TURNS_MAX}.`),
    monthlyCapCents: cents
      .optional()
      .describe("This month's cost at which it stops calling the model and hands every conversation over, KES cents; 0: no cap."),
    inputPriceCents: cents.optional().describe("The endpoint's price per million prompt tokens, KES cents."),
    outputPriceCents: cents.optional().describe("The endpoint's price per million completion tokens, KES cents."),
  })
  .strict()
  .refine((body) => Object.keys(body).length > 0, "give at least one field to change")
  .meta({ id: "AssistantSettingsUpdate" });

export const AssistantSettings = z
  .object({
    enabled: z.boolean(),
    phoneNumberIds: z.array(z.string()),
    instructions: z.string(),
    baseUrl: z.string(),
    model: z.string(),
    apiKeySaved: z.boolean().describe("Whether a key is saved (never the key)."),
    apiKeyLast4: z.string().describe("The saved key's last four characters; empty without one."),
    handoverText: z.string(),
    maxTurns: z.int(),
    monthlyCapCents: z.int(),
    inputPriceCents: z.int(),
    outputPriceCents: z.int(),
    usage: z
      .object({
        month: z.string().describe("The month's first day, YYYY-MM-DD (a calendar month in Africa/Nairobi time)."),
        replies: z.int(),
        handovers: z.int(),
        promptTokens: z.int(),
        completionTokens: z.int(),
        costCents: z.int().describe("KES cents, rounded up."),
      })
      .describe("This month's use."),
  })
  .meta({ id: "AssistantSettings" });

export const KnowledgeIdParams = z.object({ id: z.string().describe("The article's id (a UUID) from the list or from adding it.") });

export const KnowledgeQuery = z
  .object({ q: z.string().max(200).optional().describe("Only articles whose title or text contains these characters.") })
  .strict();

export const KnowledgeArticleCreate = z
  .object({
    title: z.string().describe(`Up to ${ARTICLE_TITLE_MAX} characters.`),
    body: z
      .string()
      .describe(
        `What the assistant may answer from, up to ${ARTICLE_BODY_MAX.toLocaleString("en")} characters; blank lines separate paragraphs.`,
      ),
  })
  .strict()
  .meta({ id: "KnowledgeArticleCreate" });

export const KnowledgeArticleUpdate = z
  .object({ title: z.string().optional(), body: z.string().optional() })
  .strict()
  .refine((body) => Object.keys(body).length > 0, "give at least one field to change")
  .meta({ id: "KnowledgeArticleUpdate" });

export const KnowledgeArticle = z
  .object({
    id: z.string(),
    title: z.string(),
    body: z.string(),
    source: z.enum(KNOWLEDGE_SOURCES).describe("manual (written), csv or pdf (uploaded on the Knowledge page)."),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: "KnowledgeArticle" });

export const KnowledgeArticleList = z
  .object({ data: z.array(KnowledgeArticle).describe(`Newest change first, at most ${ARTICLES_MAX}.`) })
  .meta({ id: "KnowledgeArticleList" });

// The fields a business changes most; turning it on takes its numbers, base URL, model and key too.
export const ASSISTANT_SETTINGS_EXAMPLE: z.input<typeof AssistantSettingsUpdate> = {
  instructions: "Answer warmly and briefly. Never discuss loans or politics.",
  handoverText: "Asante! A person from our team will reply here shortly.",
  maxTurns: 6,
  monthlyCapCents: 500_000,
  inputPriceCents: 2_000,
  outputPriceCents: 8_000,
};

export const KNOWLEDGE_CREATE_EXAMPLE: z.input<typeof KnowledgeArticleCreate> = {
  title: "Paying by M-Pesa",
  body: "Pay through M-Pesa Paybill 522533; the account number is your phone number. We confirm every payment by SMS.",
};

export const KNOWLEDGE_UPDATE_EXAMPLE: z.input<typeof KnowledgeArticleUpdate> = {
  body: "Pay through M-Pesa Paybill 522533 or Till 881234; the account number is your phone number.",
};
