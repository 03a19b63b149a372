import { words, type MessageKey, type Said } from "../../infrastructure/words/said";
import { storedSentences, type StoredInput, type StoredSentences } from "../../infrastructure/words/stored";

/**
 * The inputs of the billing, campaign and template details (stored-details.ts's MONEY_AND_SENDING)
 * that are Jumbe's own words rather than data: a payment method, a billing type, a template's
 * category, a campaign's pause reason or outcome. Each is written as a message and read back from
 * the stored English as one, so the log says it in its reader's language too. Kept in a module of
 * their own: the lists of sentences refer to them when they are built.
 */

/** How a payment was made, as the payment notices say it (billing/payments.ts's METHOD_NOTICE). */
export const PAYMENT_METHODS = [
  "app_notice_method_mpesa",
  "app_notice_method_c2b",
  "app_notice_method_card",
  "app_notice_method_bank",
] as const satisfies readonly MessageKey[];

/** Why a Shopify event sent no message (integrations/shopify/process.ts keys its reasons `shopify_reason_<reason>`). */
export const SHOPIFY_REASONS = [
  "shopify_reason_no_mapping",
  "shopify_reason_turned_off",
  "shopify_reason_template_unavailable",
  "shopify_reason_no_phone",
  "shopify_reason_opted_out",
  "shopify_reason_not_opted_in",
  "shopify_reason_insufficient_balance",
  "shopify_reason_send_refused",
  "shopify_reason_checkout_completed",
  "shopify_reason_order_placed",
  "shopify_reason_checkout_updated",
  "shopify_reason_app_uninstalled",
  "shopify_reason_topic_not_used",
  "shopify_reason_not_confirmed",
  "shopify_reason_template_needs_header",
  "shopify_reason_template_needs_link",
  "shopify_reason_template_mismatch",
  "shopify_reason_whatsapp_not_ready",
  "shopify_reason_organization_closing",
  "shopify_reason_privacy_export_ready",
  "shopify_reason_privacy_nothing_held",
  "shopify_reason_privacy_customer_erased",
  "shopify_reason_privacy_shop_erased",
  "shopify_reason_privacy_shop_connected_again",
  "shopify_reason_products_synced",
  "shopify_reason_product_sku_kept",
  "shopify_reason_products_not_imported",
  "shopify_reason_currency_not_kes",
] as const satisfies readonly MessageKey[];

/** "prepaid", "postpaid" inside a sentence, as /billing says them (app/lib/billing-words.ts's billingTypeInline). */
export const BILLING_TYPES_INLINE = [
  "billing_type_prepaid_inline",
  "billing_type_postpaid_inline",
] as const satisfies readonly MessageKey[];

/** A billing type inside a stored sentence: Jumbe's word for it, or an unknown one as it is. */
export function billingTypeInWords(billingType: string): Said {
  if (billingType === "prepaid") return words("billing_type_prepaid_inline");
  if (billingType === "postpaid") return words("billing_type_postpaid_inline");
  return billingType;
}

/** Meta's template categories, stored as Meta's codes (MARKETING), said as the template pages name them. */
const CATEGORY_KEYS: Record<string, MessageKey> = {
  MARKETING: "app_activity_detail_category_marketing",
  UTILITY: "app_activity_detail_category_utility",
  AUTHENTICATION: "app_activity_detail_category_authentication",
};
export const TEMPLATE_CATEGORIES = [
  "app_activity_detail_category_unknown",
  "app_activity_detail_category_marketing",
  "app_activity_detail_category_utility",
  "app_activity_detail_category_authentication",
] as const satisfies readonly MessageKey[];

/** A template's category inside a stored sentence: "?" when Meta did not say it, a code Jumbe does not know as it is. */
export function categoryInWords(category: string | null): Said {
  if (category === null) return words("app_activity_detail_category_unknown");
  return Object.hasOwn(CATEGORY_KEYS, category) ? words(CATEGORY_KEYS[category]!) : category;
}

const data = "data";

/**
 * Why Jumbe paused a campaign or could not start it, as stored (English: the feeder, Meta's
 * webhooks and the guards work outside any reader's request): the pause reasons
 * (notifications/stored-words.ts reads the same for the campaign's page), the send checks that
 * stop a campaign's sending, and the campaign checks run again at its scheduled time.
 */
export const CAMPAIGN_REASONS: StoredSentences = storedSentences([
  // The first has an input: a sample of it is what stored-details.test.ts nests in its sentence.
  ["messaging_paused_template_paused", { name: data }],
  ["messaging_paused_wallet_empty"],
  ["messaging_paused_template_disabled", { name: data }],
  ["messaging_paused_recategorised_marketing", { name: data }],
  ["messaging_paused_recategorised", { name: data, category: data }],
  ["messaging_paused_low_quality", { number: data }],
  ["messaging_paused_closing", { date: data }],
  ["validation_send_no_number"],
  ["validation_send_not_our_number", { wanted: data }],
  ["validation_send_reconnect", { number: data }],
  ["validation_send_not_registered", { number: data }],
  ["validation_send_closing"],
  ["validation_send_template_not_found", { name: data, number: data }],
  ["validation_send_template_no_language", { name: data, language: data, languages: data }],
  ["validation_send_template_which_language", { name: data, languages: data }],
  ["validation_send_template_not_approved", { name: data, language: data, status: data }],
  [
    "validation_send_parameter_count",
    {
      name: data,
      parameters: storedSentences([
        ["validation_send_parameters_other", { count: "count" }],
        ["validation_send_parameters_one", { count: "count" }],
      ]),
      given: storedSentences([
        ["validation_send_given_other", { count: "count" }],
        ["validation_send_given_one", { count: "count" }],
      ]),
    },
  ],
  ["validation_send_header_text_needed", { name: data }],
  [
    "validation_send_header_file_needed",
    { name: data, format: ["validation_send_header_image", "validation_send_header_video", "validation_send_header_document"] },
  ],
  [
    "validation_send_header_file_missing",
    {
      name: data,
      kind: [
        "validation_send_kind_a_image",
        "validation_send_kind_a_video",
        "validation_send_kind_a_audio",
        "validation_send_kind_a_document",
        "validation_send_kind_a_sticker",
      ],
    },
  ],
  ["messaging_campaign_name_required"],
  ["messaging_campaign_template_required"],
  ["messaging_campaign_header_value_required"],
  ["messaging_campaign_audience_empty"],
  ["messaging_audience_no_segment"],
  ["messaging_audience_required"],
  ["messaging_header_link_invalid"],
  ["messaging_header_link_not_https"],
  ["messaging_header_file_not_needed", { template: data }],
  ["messaging_parameters_value_required", { name: data }],
  ["messaging_parameters_unknown_field", { name: data, field: data }],
  ["messaging_parameters_unmapped", { name: data }],
]);

/** The short words of a failure's reason (campaigns/outcome.ts's FailureKey). */
const FAILURE_REASONS = [
  "app_notice_failure_reconnect",
  "app_notice_failure_window",
  "app_notice_failure_reengagement",
  "app_notice_failure_too_fast",
  "app_notice_failure_own_number",
  "app_notice_failure_unreachable",
  "app_notice_failure_payment_method",
  "app_notice_failure_slowed",
  "app_notice_failure_marketing_limit",
  "app_notice_failure_marketing_off",
  "app_notice_failure_media",
  "app_notice_failure_too_many",
  "app_notice_failure_template",
  "app_notice_failure_not_registered",
  "app_notice_failure_limit_reached",
  "app_notice_failure_disconnected",
  "app_notice_failure_not_opted_in",
  "app_notice_failure_closing",
  "app_notice_failure_other",
] as const satisfies readonly MessageKey[];

// "1 held back by Meta's marketing limit, 1 not reachable on WhatsApp": one count and reason, or
// one followed by the rest (the reasons' words have no comma of their own).
const moreReasons: Record<string, StoredInput> = {};
export const FAILED_BY: StoredSentences = storedSentences([
  ["app_notice_outcome_failed_by", { count: "count", reason: FAILURE_REASONS }],
  ["app_activity_detail_list_more", moreReasons],
]);
moreReasons.first = storedSentences([["app_notice_outcome_failed_by", { count: "count", reason: FAILURE_REASONS }]]);
moreReasons.rest = FAILED_BY;

/**
 * What happened to a finished campaign, as campaigns/outcome.ts's outcomeWords writes it ("45 sent,
 * 2 failed (…), 3 left out"), read back as one sentence: its parts' commas are not told apart otherwise.
 */
export const CAMPAIGN_OUTCOMES: StoredSentences = storedSentences([
  ["app_activity_detail_outcome_failed_left_out", { sent: "count", failed: "count", reasons: FAILED_BY, left: "count" }],
  ["app_activity_detail_outcome_failed", { sent: "count", failed: "count", reasons: FAILED_BY }],
  ["app_activity_detail_outcome_left_out", { sent: "count", left: "count" }],
  ["app_activity_detail_outcome_sent", { sent: "count" }],
]);

/** Why an M-Pesa shortcode's test failed (payments/connection-test.ts), as Settings → Payments says it. */
export const SHORTCODE_FAILURES = [
  "settings_payments_reason_wrong_keys",
  "settings_payments_reason_wrong_passkey",
  "settings_payments_reason_wrong_shortcode",
  "settings_payments_reason_no_product",
  "settings_payments_reason_not_a_till",
  "settings_payments_reason_not_a_paybill",
  "settings_payments_reason_unreachable",
  "settings_payments_reason_unexpected",
] as const satisfies readonly MessageKey[];
