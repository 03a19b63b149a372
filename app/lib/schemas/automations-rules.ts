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
/** A reply's buttons: Meta's limits for reply buttons. */
export const RULE_BUTTONS_MAX = 3;
export const RULE_BUTTON_MAX = 20;
/** A reply's list: Meta's limits for a list message's rows and its button. */
export const RULE_LIST_ROWS_MAX = 10;
export const RULE_LIST_ROW_MAX = 24;
/** A template reply's variables: each at most this long. */
export const RULE_TEMPLATE_PARAMETER_MAX = 1024;
/** The assignment choice that hands the conversation to the least busy member. */
export const LEAST_BUSY = "least_busy";
/** The "then" choice that lets the AI assistant answer after the rule. */
export const THEN_ASSISTANT = "assistant";
/** The fuzzy match type's similarity: its bounds, the form's step and default. */
export const THRESHOLD_MIN = 0.5;
export const THRESHOLD_MAX = 1;
export const THRESHOLD_STEP = 0.05;
export const THRESHOLD_DEFAULT = 0.8;
/** The weekdays in the form's order, Monday first (0 is Sunday, as the hours are stored). */
export const FORM_WEEKDAYS = [1, 2, 3, 4, 5, 6, 0] as const;
export type FormWeekday = (typeof FORM_WEEKDAYS)[number];
/** The opening times the hours form offers a day: two. */
export const FORM_RANGES = [0, 1] as const;
export type FormRange = (typeof FORM_RANGES)[number];

/** The name of a day's opening time's field: `from-1-0` is Monday's first opening time. */
export const rangeField = (end: "from" | "to", day: FormWeekday, index: FormRange) => `${end}-${day}-${index}` as const;
export type RangeField = ReturnType<typeof rangeField>;

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
  get fromAd() {
    return m.automations_error_from_ad();
  },
  get buttons() {
    return m.automations_error_buttons({ max: RULE_BUTTONS_MAX, length: RULE_BUTTON_MAX });
  },
  get buttonsNeedReply() {
    return m.automations_error_buttons_need_reply();
  },
  get list() {
    return m.automations_error_list({ max: RULE_LIST_ROWS_MAX, length: RULE_LIST_ROW_MAX, button: RULE_BUTTON_MAX });
  },
  get listOrButtons() {
    return m.automations_error_list_or_buttons();
  },
  get template() {
    return m.automations_error_template();
  },
  templateParameters(count: number) {
    return m.automations_error_template_parameters({ count, length: formatNumber(RULE_TEMPLATE_PARAMETER_MAX) });
  },
  get templateWithReply() {
    return m.automations_error_template_with_reply();
  },
  get then() {
    return m.automations_error_then();
  },
  get webhookUrl() {
    return m.automations_error_webhook_url();
  },
  get webhookNoSecret() {
    return m.automations_error_webhook_no_secret();
  },
  get fieldKey() {
    return m.automations_error_field_key();
  },
  get fieldValue() {
    return m.automations_error_field_value();
  },
  get assignee() {
    return m.automations_error_assignee();
  },
  get flow() {
    return m.automations_error_flow();
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
  get time() {
    return m.automations_error_time();
  },
  get rangeIncomplete() {
    return m.automations_error_range_incomplete();
  },
  get holiday() {
    return m.automations_error_holiday();
  },
  get sampleRequired() {
    return m.automations_error_sample_required();
  },
  get sampleTooLong() {
    return m.automations_error_sample_too_long({ max: formatNumber(RULE_REPLY_MAX) });
  },
  get unknownAction() {
    return m.automations_error_unknown_action();
  },
  get confirmFirst() {
    return m.automations_error_confirm_first();
  },
};

/** A weekday's name, Monday to Sunday (0 is Sunday), in the request's language. */
export function weekdayWords(day: FormWeekday): string {
  switch (day) {
    case 1:
      return m.automations_day_monday();
    case 2:
      return m.automations_day_tuesday();
    case 3:
      return m.automations_day_wednesday();
    case 4:
      return m.automations_day_thursday();
    case 5:
      return m.automations_day_friday();
    case 6:
      return m.automations_day_saturday();
    case 0:
      return m.automations_day_sunday();
  }
}
