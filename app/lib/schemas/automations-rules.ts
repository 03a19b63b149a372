// The limits and words of the automations' forms, without zod: pages import them from here.
import { formatNumber } from "~/lib/dates";
import { m } from "~/paraglide/messages";

export const AUTOMATION_MATCH_TYPES = ["exact", "contains", "starts_with", "fuzzy", "regex"] as const;
export type AutomationMatchType = (typeof AUTOMATION_MATCH_TYPES)[number];

export const RULE_NAME_MAX = 80;
export const RULE_REPLY_MAX = 4096;
export const RULES_MAX = 500;
export const RULE_COOLDOWN_MAX_MINUTES = 7 * 24 * 60;
export const RULE_TAGS_MAX = 10;
export const RULE_TAG_MAX = 40;
export const AUTO_TEXT_MAX = 1024;

/** Each match type's name, in the request's language. */
export function matchTypeWords(type: AutomationMatchType): string {
  switch (type) {
    case "exact":
      return m.automations_match_exact();
    case "contains":
      return m.automations_match_contains();
    case "starts_with":
      return m.automations_match_starts_with();
    case "fuzzy":
      return m.automations_match_fuzzy();
    case "regex":
      return m.automations_match_regex();
  }
}

// Getters: each text is read in the language of the request that reports it.
export const AUTOMATION_MESSAGES = {
  get nameRequired() {
    return m.automations_error_name_required();
  },
  get nameTooLong() {
    return m.automations_error_name_too_long({ max: RULE_NAME_MAX });
  },
  get matchType() {
    return m.automations_error_match_type();
  },
  get keywordsNone() {
    return m.automations_error_keywords_none();
  },
  get keywordsTooMany() {
    return m.automations_error_keywords_too_many({ max: 50 });
  },
  keywordTooLong(keyword: string) {
    return m.automations_error_keyword_too_long({ keyword, max: 100 });
  },
  keywordNoWords(keyword: string) {
    return m.automations_error_keyword_no_words({ keyword });
  },
  keywordDuplicate(keyword: string) {
    return m.automations_error_keyword_duplicate({ keyword });
  },
  regexInvalid(keyword: string) {
    return m.automations_error_regex_invalid({ keyword });
  },
  regexUnsafe(keyword: string) {
    return m.automations_error_regex_unsafe({ keyword });
  },
  get threshold() {
    return m.automations_error_threshold();
  },
  get cooldown() {
    return m.automations_error_cooldown({ max: formatNumber(RULE_COOLDOWN_MAX_MINUTES) });
  },
  get replyTooLong() {
    return m.automations_error_reply_too_long({ max: formatNumber(RULE_REPLY_MAX) });
  },
  get noAction() {
    return m.automations_error_no_action();
  },
  get tags() {
    return m.automations_error_tags({ max: RULE_TAGS_MAX, length: RULE_TAG_MAX });
  },
  get number() {
    return m.automations_error_number();
  },
  get assignee() {
    return m.automations_error_assignee();
  },
  get limit() {
    return m.automations_error_limit({ max: formatNumber(RULES_MAX) });
  },
  get notFound() {
    return m.automations_error_not_found();
  },
  get textRequired() {
    return m.automations_error_text_required();
  },
  get textTooLong() {
    return m.automations_error_text_too_long({ max: formatNumber(AUTO_TEXT_MAX) });
  },
};
