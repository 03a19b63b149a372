import type { MessageKey } from "../../infrastructure/words/said";
import { storedSentences, type StoredSentence, type StoredSentences } from "../../infrastructure/words/stored";
import {
  BILLING_TYPES_INLINE,
  CAMPAIGN_OUTCOMES,
  CAMPAIGN_REASONS,
  FAILED_BY,
  PAYMENT_METHODS,
  SHOPIFY_REASONS,
  SHORTCODE_FAILURES,
  TEMPLATE_CATEGORIES,
} from "./stored-inputs";

/**
 * The activity details Jumbe writes from inputs (a name, a count, an amount, a role), as the
 * messages that write them: a writer stores `englishOf(words(key, inputs))`, and the log says the
 * details again in its reader's language (decision 074). The kinds of the inputs say how each is
 * read back from the English (infrastructure/words/stored.ts). Listed here, not beside each writer:
 * the activity domain reads them, and the writers' domains import it, not the other way round.
 * More particular sentences first: the first whose inputs all read back wins.
 */

/** Roles as the team pages name them. */
export const ROLES = ["validation_role_owner", "validation_role_admin", "validation_role_agent", "validation_role_viewer"] as const;

// Accounts, team, profile, developers, webhooks, organisation, contacts, WhatsApp, the public API.

/**
 * A list of items, each one of `item` (message keys, or sentences), at most `most` of them:
 * "a, b, c" (`{first}, {rest}`), or "a, b and c" when `and` (the last two joined as the reader's
 * language joins them). The writer gives the items as a `{ list }` or nests app_activity_detail_list_more
 * and app_activity_detail_list_and itself.
 */
function listOf(item: readonly MessageKey[] | StoredSentences, most: number, and = false): StoredSentences {
  const sentences: StoredSentence[] = [];
  if (most > 2 || (most === 2 && !and))
    sentences.push(["app_activity_detail_list_more", { first: item, rest: listOf(item, most - 1, and) }]);
  if (most >= 2 && and) sentences.push(["app_activity_detail_list_and", { first: item, last: item }]);
  sentences.push(...(Array.isArray(item) ? (item as readonly MessageKey[]).map((key) => [key] as const) : (item as StoredSentences).list));
  return storedSentences(sentences);
}

/** How long a sign-in's session lasts. */
const SESSIONS = ["app_activity_detail_browser_session", "app_activity_detail_remembered_30_days"] as const;
/** What a profile's save changed besides the e-mail. */
const PROFILE_UPDATES = [
  "app_activity_detail_profile_updated_name_and_phone",
  "app_activity_detail_profile_updated_name",
  "app_activity_detail_profile_updated_phone",
] as const;
/** The organisation's fields that changed: "name, county and industry". */
const ORGANISATION_FIELDS = listOf(
  [
    "app_activity_detail_field_name",
    "app_activity_detail_field_kra_pin",
    "app_activity_detail_field_postal_address",
    "app_activity_detail_field_county",
    "app_activity_detail_field_industry",
    "app_activity_detail_field_time_zone",
    "app_activity_detail_field_email_language",
  ],
  7,
  true,
);
/** The filter a contacts export used, each part of it (search, tag, opt-in, last seen). */
const EXPORT_FILTER = storedSentences([
  ["app_activity_detail_export_search", { q: "data" }],
  ["app_activity_detail_export_tag", { tag: "data" }],
  [
    "app_activity_detail_export_opt_in",
    { state: ["app_activity_detail_export_opted_in", "app_activity_detail_export_opted_out", "app_activity_detail_export_opt_in_unknown"] },
  ],
  ["app_activity_detail_export_seen_days", { days: "count" }],
  ["app_activity_detail_export_never_seen"],
  ["app_activity_detail_export_ad", { ad: "data" }],
  ["app_activity_detail_export_any_ad"],
]);
const HTTP_METHODS = [
  "app_activity_detail_http_get",
  "app_activity_detail_http_post",
  "app_activity_detail_http_put",
  "app_activity_detail_http_patch",
  "app_activity_detail_http_delete",
] as const;

const PEOPLE_AND_SETTINGS: StoredSentence[] = [
  // The activity log's own export: its range and filters (codes) kept as written.
  ["app_activity_detail_export_range_type_status", { start: "instant", end: "instant", type: "data", status: "data" }],
  ["app_activity_detail_export_range_type", { start: "instant", end: "instant", type: "data" }],
  ["app_activity_detail_export_range_status", { start: "instant", end: "instant", status: "data" }],
  ["app_activity_detail_export_range", { start: "instant", end: "instant" }],
  // Sign-in and e-mail verification.
  ["app_activity_detail_signed_in_email_code", { session: SESSIONS }],
  [
    "app_activity_detail_signed_in_two_factor",
    { session: SESSIONS, method: ["app_activity_detail_two_factor_app", "app_activity_detail_two_factor_recovery_code"] },
  ],
  ["validation_auth_code_invalid"],
  ["validation_auth_code_expired"],
  ["validation_auth_code_locked"],
  // The team: "joined as" before "as".
  ["app_activity_detail_member_role_changed", { email: "data", from: ROLES, to: ROLES }],
  ["app_activity_detail_member_joined", { email: "data", role: ROLES }],
  ["app_activity_detail_member_invited", { email: "data", role: ROLES }],
  ["app_activity_detail_member_removed", { email: "data", role: ROLES }],
  ["app_activity_detail_ownership_handed_over", { email: "data" }],
  ["settings_team_approval_off"],
  ["settings_team_approval_on_one", { count: "count" }],
  ["settings_team_approval_on_other", { count: "count" }],
  // The profile.
  ["app_activity_detail_profile_updated_email_change", { updated: PROFILE_UPDATES, email: "data" }],
  ["app_activity_detail_profile_email_change", { email: "data" }],
  ...PROFILE_UPDATES.map((key) => [key] as const),
  // Webhooks.
  ["app_activity_detail_webhook_redelivered", { event: "data", id: "data" }],
  ["app_activity_detail_webhook_secret_rotated", { prefix: "data", hours: "count" }],
  ["app_activity_detail_webhook_secret", { prefix: "data" }],
  ["app_activity_detail_webhook_disabled", { url: "data", days: "count" }],
  // The organisation.
  ["app_activity_detail_organisation_changed_renamed", { fields: ORGANISATION_FIELDS, name: "data" }],
  ["app_activity_detail_organisation_changed", { fields: ORGANISATION_FIELDS }],
  ["app_activity_detail_organisation_closing_paused", { day: "day", count: "count" }],
  ["app_activity_detail_organisation_closing_one_paused", { day: "day" }],
  ["app_activity_detail_organisation_closing", { day: "day" }],
  // Data retention (decision 165).
  ["retention_activity_detail_changed", { messages: "count", media: "count", logs: "count" }],
  ["retention_activity_detail_removed", { bodies: "count", media: "count", logs: "count" }],
  // Contacts.
  [
    "app_activity_detail_contact_field_added",
    {
      label: "data",
      key: "data",
      type: [
        "app_activity_detail_field_type_text",
        "app_activity_detail_field_type_number",
        "app_activity_detail_field_type_date",
        "app_activity_detail_field_type_boolean",
      ],
    },
  ],
  ["app_activity_detail_import_uploaded", { file: "data", count: "count" }],
  ...(["app_activity_detail_import_started_consent", "app_activity_detail_import_started"] as const).map(
    (key) =>
      [
        key,
        {
          file: "data",
          policy: [
            "app_activity_detail_duplicates_skip",
            "app_activity_detail_duplicates_update",
            "app_activity_detail_duplicates_merge_tags",
          ],
        },
      ] as const,
  ),
  ["app_activity_detail_import_failed", { file: "data", error: ["messaging_import_stopped_error"] }],
  ["app_activity_detail_import_finished", { file: "data", created: "count", updated: "count", skipped: "count", invalid: "count" }],
  ["app_activity_detail_contacts_merged", { other: "data", survivor: "data" }],
  ["app_activity_detail_contact_data_downloaded", { id: "data" }],
  ["app_activity_detail_contact_erased", { id: "data" }],
  // An erasure reaching the connected tools (issue 74): what was removed, or what the business must remove.
  ["app_activity_detail_erasure_hubspot_done", { hub: "data", id: "data", messages: "count" }],
  ["app_activity_detail_erasure_hubspot_by_hand", { hub: "data", id: "data" }],
  ["app_activity_detail_erasure_sheets_done", { rows: "count", spreadsheet: "data" }],
  ["app_activity_detail_erasure_sheets_by_hand", { spreadsheet: "data" }],
  ["app_activity_detail_contacts_tagged_one", { tags: "data" }],
  ["app_activity_detail_contacts_tagged", { tags: "data", count: "count" }],
  ["app_activity_detail_contacts_untagged_one", { tags: "data" }],
  ["app_activity_detail_contacts_untagged", { tags: "data", count: "count" }],
  // A contacts export's filter: its parts one after another (app_activity_detail_list_more listed here once).
  ["app_activity_detail_export_all"],
  ...listOf(EXPORT_FILTER, 4).list,
  // The public API: the method one of the API's, so that no other sentence with "answered" passes for it.
  ["app_activity_detail_api_call_refused", { method: HTTP_METHODS, path: "data", status: "data", refusal: "data" }],
  ["app_activity_detail_api_call_answered", { method: HTTP_METHODS, path: "data", status: "data" }],
  // WhatsApp: Meta's codes, reasons and ids as Meta gives them.
  ["app_activity_detail_number_quality_limit", { number: "data", event: "data", limit: "data" }],
  ["app_activity_detail_whatsapp_token_refused", { id: "data", reason: "data" }],
  ["app_activity_detail_meta_answered", { step: "data", summary: "data" }],
  ["app_activity_detail_signup_number_not_in_account", { number: "data", waba: "data" }],
  ["app_activity_detail_signup_no_numbers"],
  ["app_activity_detail_signup_account_taken"],
  ["app_activity_detail_signup_not_granted", { waba: "data" }],
  ["app_activity_detail_signup_number_taken", { number: "data" }],
  // Integrations: a sync's or an event's outcome (a reference, a phone, a spreadsheet's title as data).
  ["app_activity_detail_hubspot_synced_refused", { received: "count", sent: "count", refused: "count", logged: "count" }],
  ["app_activity_detail_hubspot_synced", { received: "count", sent: "count", logged: "count" }],
  ["app_activity_detail_sheets_exported", { rows: "count", spreadsheet: "data" }],
  ["shopify_activity_sent", { reference: "data", phone: "data" }],
  ["shopify_activity_skipped", { reference: "data", reason: SHOPIFY_REASONS }],
  // A Shopify order paid by M-Pesa (decision 142): marked paid in the shop, or not; the switch that asks.
  ["shopify_activity_order_marked_paid", { reference: "data", shop: "data" }],
  ["shopify_activity_order_not_marked", { reference: "data", shop: "data" }],
  ["shopify_activity_ask_payment_on", { shop: "data" }],
  ["shopify_activity_ask_payment_off", { shop: "data" }],
  // Shopify's privacy webhooks (decision 108): what was done for a customer's or a shop's request.
  ["shopify_privacy_activity_data_request", { shop: "data", reference: "data", contacts: "count", events: "count" }],
  ["shopify_privacy_activity_customer_redact", { shop: "data", reference: "data", contacts: "count", events: "count" }],
  ["shopify_privacy_activity_shop_redact", { shop: "data", events: "count" }],
  ["shopify_privacy_activity_shop_kept", { shop: "data" }],
];

/** An M-Pesa shortcode as the activity log names it: "Main till (till 5300451, store 174379, sandbox)". */
const SHORTCODE = storedSentences([
  ["app_activity_detail_shortcode_till", { label: "data", till: "data", store: "data", environment: "data" }],
  ["app_activity_detail_shortcode_paybill", { label: "data", number: "data", environment: "data" }],
]);
/** An SMS connection as the activity log names it (decision 148). */
const SMS_CONNECTION = storedSentences([
  ["sms_activity_detail_connection", { username: "data", sender: "data" }],
  ["sms_activity_detail_connection_default", { username: "data" }],
]);
/** Why a test of the SMS connection failed (sms/connection.ts). */
/** The automations an SMS fallback is set for (decision 159). */
const SMS_AUTOMATIONS = [
  "sms_auto_fallback_payment_request",
  "sms_auto_fallback_shopify_order_created",
  "sms_auto_fallback_shopify_order_fulfilled",
  "sms_auto_fallback_shopify_checkout_abandoned",
] as const;
const SMS_FAILURES = ["sms_reason_wrong_keys", "sms_reason_refused", "sms_reason_unreachable", "sms_reason_unexpected"] as const;
/** What a shortcode's edit changed: its name and which credentials. */
const SHORTCODE_FIELDS = listOf(
  [
    "app_activity_detail_field_name",
    "app_activity_detail_field_consumer_key",
    "app_activity_detail_field_consumer_secret",
    "app_activity_detail_field_passkey",
  ],
  4,
  true,
);

// Billing, campaigns, templates, the console's actions, sending.
const MONEY_AND_SENDING: StoredSentence[] = [
  // Billing: plans (the plan's name is data, its billing type Jumbe's word), the wallet's alerts, payments, invoices.
  ["app_activity_detail_plan_staying", { plan: "data", type: BILLING_TYPES_INLINE }],
  ["app_activity_detail_plan_from", { plan: "data", type: BILLING_TYPES_INLINE, day: "day" }],
  ["app_activity_detail_plan_now", { plan: "data", type: BILLING_TYPES_INLINE }],
  ["app_activity_detail_wallet_alerts_both", { low: "kes", amount: "kes", phone: "data", below: "kes" }],
  ["app_activity_detail_wallet_alerts_low", { low: "kes" }],
  ["app_activity_detail_wallet_alerts_prompt", { amount: "kes", phone: "data", below: "kes" }],
  ["app_activity_detail_wallet_alerts_none"],
  ["app_activity_detail_payment_received_receipt", { amount: "kes", method: PAYMENT_METHODS, receipt: "data" }],
  ["app_activity_detail_payment_received", { amount: "kes", method: PAYMENT_METHODS }],
  // Safaricom's or Paystack's reason, as they wrote it.
  ["app_activity_detail_payment_failed", { amount: "kes", method: PAYMENT_METHODS, reason: "data" }],
  ["app_activity_detail_bank_transfer_started", { amount: "kes", reference: "data" }],
  ["app_activity_detail_invoice_issued", { number: "data", month: "month", amount: "kes" }],
  // A change of billing type's money (decision 124): the documents' numbers are data.
  ["app_activity_detail_prepaid_to_account", { amount: "kes", documents: "data" }],
  ["app_activity_detail_account_to_prepaid", { amount: "kes", documents: "data" }],
  // Templates: Meta's reason is Meta's; a category is Meta's code, said as the template pages say it.
  ["app_activity_detail_templates_held_rejected", { name: "data", reason: "data" }],
  ["app_activity_detail_templates_held_flagged", { name: "data" }],
  ["app_activity_detail_templates_held_disabled", { name: "data" }],
  ["app_activity_detail_template_category_changed", { name: "data", from: TEMPLATE_CATEGORIES, to: TEMPLATE_CATEGORIES }],
  // Campaigns and broadcasts: confirmed, put to approval, paused or failed by Jumbe (its reason read back too), finished.
  ["app_activity_detail_campaign_to_one_on", { name: "data", template: "data", count: "count", at: "data" }],
  ["app_activity_detail_campaign_to_other_on", { name: "data", template: "data", count: "count", at: "data" }],
  ["app_activity_detail_campaign_to_one", { name: "data", template: "data", count: "count" }],
  ["app_activity_detail_campaign_to_other", { name: "data", template: "data", count: "count" }],
  ["app_activity_detail_awaiting_approval_one", { name: "data", count: "count", threshold: "count" }],
  ["app_activity_detail_awaiting_approval_other", { name: "data", count: "count", threshold: "count" }],
  ["app_activity_detail_campaign_finished", { name: "data", outcome: CAMPAIGN_OUTCOMES }],
  // Failures Meta reported after it finished (campaigns/late-failures.ts): those since the last line, and the outcome in all.
  ["app_activity_detail_campaign_failed_later", { name: "data", count: "count", reasons: FAILED_BY, outcome: CAMPAIGN_OUTCOMES }],
  ["app_activity_detail_campaign_suspended", { name: "data" }],
  ["app_activity_detail_campaign_reason", { name: "data", reason: CAMPAIGN_REASONS }],
  // The shop (decision 138): the catalog connected to the WhatsApp account, a CSV import's counts.
  ["app_activity_detail_shop_catalog_connected", { catalog: "data", waba: "data" }],
  ["app_activity_detail_products_imported", { created: "count", updated: "count", refused: "count" }],
  // Settings → Payments (decision 136): a shortcode named by its label and numbers (data), never a credential.
  ["app_activity_detail_shortcode_working", { shortcode: SHORTCODE }],
  ["app_activity_detail_shortcode_failing", { shortcode: SHORTCODE, reason: SHORTCODE_FAILURES }],
  ["app_activity_detail_shortcode_changed", { shortcode: SHORTCODE, fields: SHORTCODE_FIELDS }],
  ...SHORTCODE.list,
  ["app_activity_detail_c2b_matched", { receipt: "data", amount: "kes", reference: "data" }],
  // A payment request cancelled (requests/cancel.ts): its reference and amount, and where from.
  ["app_activity_detail_payreq_cancelled_inbox", { reference: "data", amount: "kes" }],
  ["app_activity_detail_payreq_cancelled_api", { reference: "data", amount: "kes" }],
  ["app_activity_detail_payreq_cancelled_api_key", { reference: "data", amount: "kes", prefix: "data" }],
  // Settings → SMS (decision 148): the username and sender (data), never the key; a failed test's reason in Jumbe's words.
  ["sms_activity_detail_failing", { connection: SMS_CONNECTION, reason: SMS_FAILURES }],
  ["sms_activity_detail_auto_fallback_on", { automation: SMS_AUTOMATIONS, minutes: "count" }],
  ["sms_activity_detail_auto_fallback_off", { automation: SMS_AUTOMATIONS }],
  ...SMS_CONNECTION.list,
];

export const STORED_DETAILS = storedSentences([...PEOPLE_AND_SETTINGS, ...MONEY_AND_SENDING]);
