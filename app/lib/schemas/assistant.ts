// The AI assistant's limits and words (issue 44), without zod: pages import them from here.
import { m } from "~/paraglide/messages";

export const INSTRUCTIONS_MAX = 2000;
export const HANDOVER_TEXT_MAX = 1024;
export const MODEL_MAX = 100;
export const BASE_URL_MAX = 500;
export const API_KEY_MAX = 500;
export const MAX_TURNS_MIN = 1;
export const MAX_TURNS_MAX = 50;
export const MAX_TURNS_DEFAULT = 6;
/** KES cents; ten million shillings a month is more than anyone means. */
export const MONEY_MAX_CENTS = 1_000_000_000;
export const ARTICLE_TITLE_MAX = 200;
export const ARTICLE_BODY_MAX = 20_000;
export const ARTICLES_MAX = 2000;
/** A CSV of questions and answers, at most. */
export const FAQ_CSV_MAX_BYTES = 1024 * 1024;
export const FAQ_ROWS_MAX = 500;
export const FAQ_QUESTION_MAX = 500;
export const KNOWLEDGE_SOURCES = ["manual", "csv", "pdf"] as const;
export type KnowledgeSource = (typeof KNOWLEDGE_SOURCES)[number];

/** Why the assistant handed a conversation to a person, in the reader's language. */
export function handoverReasonWords(reason: string): string {
  switch (reason) {
    case "asked_for_person":
      return m.automations_assistant_reason_asked();
    case "assistant_tool":
      return m.automations_assistant_reason_tool();
    case "no_knowledge":
      return m.automations_assistant_reason_no_knowledge();
    case "turn_limit":
      return m.automations_assistant_reason_turns();
    case "over_cap":
      return m.automations_assistant_reason_cap();
    default:
      return m.automations_assistant_reason_error();
  }
}

/** The model's and the endpoint's codes a handover's detail may hold, in the reader's language. */
const DETAIL_WORDS: Record<string, () => string> = {
  no_answer: m.automations_assistant_detail_no_answer,
  customer_asked: m.automations_assistant_detail_customer_asked,
  other: m.automations_assistant_detail_other,
  rate_limited: m.automations_assistant_detail_rate_limited,
  empty: m.automations_assistant_detail_empty,
  quota: m.automations_assistant_detail_quota,
  auth: m.automations_assistant_detail_auth,
  server: m.automations_assistant_detail_server,
  timeout: m.automations_assistant_detail_timeout,
  network: m.automations_assistant_detail_network,
  filtered: m.automations_assistant_detail_filtered,
  malformed: m.automations_assistant_detail_malformed,
  refused: m.automations_assistant_detail_refused,
};

/**
 * A handover's detail in words (the assistant's "Try it"): the model's reason ("no_answer"), a
 * failure's code with its HTTP status and the endpoint's own words ("server (HTTP 500): …"), a tool
 * Jumbe does not offer ("tool lookup"), the refused address ("endpoint refused"). A code nobody
 * knows is quoted as the model gave it.
 */
export function handoverDetailWords(detail: string): string {
  if (detail === "endpoint refused") return m.automations_assistant_detail_endpoint();
  const tool = /^tool (.+)$/.exec(detail);
  if (tool) return m.automations_assistant_detail_tool({ name: tool[1]! });
  const coded = /^([a-z_]+)(?: \(HTTP (\d{3})\))?(?:: ([\s\S]*))?$/.exec(detail);
  const words = coded && Object.hasOwn(DETAIL_WORDS, coded[1]!) ? DETAIL_WORDS[coded[1]!] : undefined;
  if (!coded || !words) return m.automations_assistant_detail_unknown({ code: detail });
  return `${words()}${coded[2] ? ` (HTTP ${coded[2]})` : ""}${coded[3] ? `: ${coded[3]}` : ""}`;
}

export function knowledgeSourceWords(source: string): string {
  if (source === "csv") return m.automations_knowledge_source_csv();
  if (source === "pdf") return m.automations_knowledge_source_pdf();
  return m.automations_knowledge_source_manual();
}

// Getters: each text is read in the language of the request that reports it.
export const ASSISTANT_MESSAGES = {
  get instructionsTooLong() {
    return m.automations_assistant_error_instructions({ max: INSTRUCTIONS_MAX });
  },
  get handoverRequired() {
    return m.automations_assistant_error_handover_required();
  },
  get handoverTooLong() {
    return m.automations_assistant_error_handover_long({ max: HANDOVER_TEXT_MAX });
  },
  get modelRequired() {
    return m.automations_assistant_error_model();
  },
  get baseUrlRequired() {
    return m.automations_assistant_error_base_url_required();
  },
  get baseUrlInvalid() {
    return m.automations_assistant_error_base_url_invalid();
  },
  get baseUrlHttps() {
    return m.automations_assistant_error_base_url_https();
  },
  get baseUrlPrivate() {
    return m.automations_assistant_error_base_url_private();
  },
  get baseUrlUnresolved() {
    return m.automations_assistant_error_base_url_unresolved();
  },
  get keyForNewEndpoint() {
    return m.automations_assistant_error_key_new_endpoint();
  },
  get apiKeyTooLong() {
    return m.automations_assistant_error_key({ max: API_KEY_MAX });
  },
  get maxTurns() {
    return m.automations_assistant_error_turns({ min: MAX_TURNS_MIN, max: MAX_TURNS_MAX });
  },
  get money() {
    return m.automations_assistant_error_money();
  },
  get number() {
    return m.automations_assistant_error_number();
  },
  get sampleRequired() {
    return m.automations_assistant_error_sample();
  },
  get articleNotFound() {
    return m.automations_knowledge_error_not_found();
  },
  get titleRequired() {
    return m.automations_knowledge_error_title_required();
  },
  get titleTooLong() {
    return m.automations_knowledge_error_title_long({ max: ARTICLE_TITLE_MAX });
  },
  get bodyRequired() {
    return m.automations_knowledge_error_body_required();
  },
  get bodyTooLong() {
    return m.automations_knowledge_error_body_long({ max: ARTICLE_BODY_MAX });
  },
  get articlesFull() {
    return m.automations_knowledge_error_full({ max: ARTICLES_MAX });
  },
  get fileMissing() {
    return m.automations_knowledge_error_file_missing();
  },
  get fileType() {
    return m.automations_knowledge_error_file_type();
  },
  get csvTooLarge() {
    return m.automations_knowledge_error_csv_large({ max: "1 MB" });
  },
  get csvEmpty() {
    return m.automations_knowledge_error_csv_empty();
  },
  get csvTooMany() {
    return m.automations_knowledge_error_csv_rows({ max: FAQ_ROWS_MAX });
  },
  csvRow(line: number, problem: string) {
    return m.automations_knowledge_error_csv_row({ line, problem });
  },
  get csvColumns() {
    return m.automations_knowledge_error_csv_columns();
  },
  get questionTooLong() {
    return m.automations_knowledge_error_question_long({ max: FAQ_QUESTION_MAX });
  },
  get pdfTooLarge() {
    return m.automations_knowledge_error_pdf_large({ max: "5 MB" });
  },
  get pdfNotPdf() {
    return m.automations_knowledge_error_pdf_not_pdf();
  },
  get pdfEncrypted() {
    return m.automations_knowledge_error_pdf_encrypted();
  },
  get pdfNoText() {
    return m.automations_knowledge_error_pdf_no_text();
  },
  get pdfUnreadable() {
    return m.automations_knowledge_error_pdf_unreadable();
  },
  get pdfTooLong() {
    return m.automations_knowledge_error_pdf_long({ max: ARTICLE_BODY_MAX });
  },
};
