import { m } from "~/paraglide/messages";
import { MEDIA_FORMATS, MEDIA_SAMPLES } from "~/lib/templates";
import { ARTICLE_BODY_MAX } from "~/lib/schemas/assistant";
import { formatLimit, MEDIA_TYPES, STATIC_STICKER_MAX_BYTES, type MediaKind } from "../messaging";

/**
 * The Developers pages' API reference in the page's language (issue 43): each endpoint's summary and
 * description and each error code's meaning and what to do, by operation id and by code. The OpenAPI
 * document (app/.server/adapters/api-v1) stays English, as the API does: paths, field names, codes and
 * examples are the same in every language. Something the document has and these words lack (an
 * endpoint added later) is shown as the document writes it; reference-words.test.ts holds the English
 * here to the document's, word for word.
 */

/** "image/jpeg or image/png": a sample's types, each a choice. */
const either = (types: readonly string[]) => types.reduce((first, second) => m.developers_ref_either({ first, second }));

/** "image/jpeg or image/png up to 5 MB, video/mp4 up to 16 MB, ...": the samples' types and sizes. */
function sampleLimits() {
  return MEDIA_FORMATS.map((format) => {
    const rule = MEDIA_SAMPLES[format];
    return m.developers_ref_types_up_to({ types: either(rule.types), size: `${rule.maxBytes / 1024 / 1024} MB` });
  }).join(", ");
}

const KIND_WORDS: Record<MediaKind, () => string> = {
  image: m.developers_ref_kind_image,
  video: m.developers_ref_kind_video,
  audio: m.developers_ref_kind_audio,
  document: m.developers_ref_kind_document,
  sticker: m.developers_ref_kind_sticker,
};

/** "image (image/jpeg, image/png) up to 5 MB; ...": WhatsApp's media types by kind, with their limits. */
function mediaLimits() {
  const groups = new Map<string, { kind: MediaKind; limit: string; types: string[] }>();
  for (const [type, rule] of Object.entries(MEDIA_TYPES)) {
    const limit =
      rule.kind === "sticker"
        ? m.developers_ref_animated_limit({ still: formatLimit(STATIC_STICKER_MAX_BYTES), animated: formatLimit(rule.maxBytes) })
        : formatLimit(rule.maxBytes);
    const key = `${rule.kind} ${limit}`;
    const group = groups.get(key) ?? { kind: rule.kind, limit, types: [] as string[] };
    group.types.push(type);
    groups.set(key, group);
  }
  return [...groups.values()]
    .map(({ kind, limit, types }) => m.developers_ref_kind_up_to({ kind: KIND_WORDS[kind](), types: types.join(", "), limit }))
    .join("; ");
}

const SUMMARIES: Record<string, () => string> = {
  getAccount: m.developers_ref_get_account_summary,
  getAnalytics: m.developers_ref_get_analytics_summary,
  listPhoneNumbers: m.developers_ref_list_phone_numbers_summary,
  listTemplates: m.developers_ref_list_templates_summary,
  createTemplate: m.developers_ref_create_template_summary,
  getTemplate: m.developers_ref_get_template_summary,
  deleteTemplate: m.developers_ref_delete_template_summary,
  uploadTemplateSample: m.developers_ref_upload_template_sample_summary,
  sendMessage: m.developers_ref_send_message_summary,
  listMessages: m.developers_ref_list_messages_summary,
  getMessage: m.developers_ref_get_message_summary,
  uploadMedia: m.developers_ref_upload_media_summary,
  getMedia: m.developers_ref_get_media_summary,
  deleteMedia: m.developers_ref_delete_media_summary,
  listContacts: m.developers_ref_list_contacts_summary,
  saveContact: m.developers_ref_save_contact_summary,
  getContact: m.developers_ref_get_contact_summary,
  updateContact: m.developers_ref_update_contact_summary,
  deleteContact: m.developers_ref_delete_contact_summary,
  recordConsent: m.developers_ref_record_consent_summary,
  createCampaign: m.developers_ref_create_campaign_summary,
  listCampaigns: m.developers_ref_list_campaigns_summary,
  getCampaign: m.developers_ref_get_campaign_summary,
  pauseCampaign: m.developers_ref_pause_campaign_summary,
  resumeCampaign: m.developers_ref_resume_campaign_summary,
  cancelCampaign: m.developers_ref_cancel_campaign_summary,
  listAutomationRules: m.developers_ref_list_automation_rules_summary,
  createAutomationRule: m.developers_ref_create_automation_rule_summary,
  getAutomationRule: m.developers_ref_get_automation_rule_summary,
  updateAutomationRule: m.developers_ref_update_automation_rule_summary,
  deleteAutomationRule: m.developers_ref_delete_automation_rule_summary,
  getAutomationSettings: m.developers_ref_get_automation_settings_summary,
  updateAutomationSettings: m.developers_ref_update_automation_settings_summary,
  getAssistantSettings: m.developers_ref_get_assistant_settings_summary,
  updateAssistantSettings: m.developers_ref_update_assistant_settings_summary,
  listKnowledgeArticles: m.developers_ref_list_knowledge_articles_summary,
  createKnowledgeArticle: m.developers_ref_create_knowledge_article_summary,
  getKnowledgeArticle: m.developers_ref_get_knowledge_article_summary,
  updateKnowledgeArticle: m.developers_ref_update_knowledge_article_summary,
  deleteKnowledgeArticle: m.developers_ref_delete_knowledge_article_summary,
  listFlows: m.developers_ref_list_flows_summary,
  createFlow: m.developers_ref_create_flow_summary,
  getFlow: m.developers_ref_get_flow_summary,
  updateFlow: m.developers_ref_update_flow_summary,
  deleteFlow: m.developers_ref_delete_flow_summary,
  publishFlow: m.developers_ref_publish_flow_summary,
  listHooks: m.developers_ref_list_hooks_summary,
  getPartner: m.developers_ref_get_partner_summary,
  subscribeHook: m.developers_ref_subscribe_hook_summary,
  unsubscribeHook: m.developers_ref_unsubscribe_hook_summary,
  createPaymentRequest: m.developers_ref_create_payment_request_summary,
  listPaymentRequests: m.developers_ref_list_payment_requests_summary,
  getPaymentRequest: m.developers_ref_get_payment_request_summary,
  cancelPaymentRequest: m.developers_ref_cancel_payment_request_summary,
  listOrders: m.developers_ref_list_orders_summary,
  getOrder: m.developers_ref_get_order_summary,
  sendSms: m.developers_ref_send_sms_summary,
  getSms: m.developers_ref_get_sms_summary,
};
const DESCRIPTIONS: Record<string, () => string> = {
  getAccount: m.developers_ref_get_account_description,
  getAnalytics: m.developers_ref_get_analytics_description,
  listPhoneNumbers: m.developers_ref_list_phone_numbers_description,
  listTemplates: m.developers_ref_list_templates_description,
  createTemplate: m.developers_ref_create_template_description,
  getTemplate: m.developers_ref_get_template_description,
  deleteTemplate: m.developers_ref_delete_template_description,
  uploadTemplateSample: () => m.developers_ref_upload_template_sample_description({ limits: sampleLimits() }),
  sendMessage: () => m.developers_ref_send_message_description({ path: "GET /api/v1/messages/{id}" }),
  listMessages: m.developers_ref_list_messages_description,
  getMessage: m.developers_ref_get_message_description,
  uploadMedia: () => m.developers_ref_upload_media_description({ limits: mediaLimits() }),
  getMedia: m.developers_ref_get_media_description,
  deleteMedia: m.developers_ref_delete_media_description,
  listContacts: m.developers_ref_list_contacts_description,
  saveContact: m.developers_ref_save_contact_description,
  getContact: m.developers_ref_get_contact_description,
  updateContact: m.developers_ref_update_contact_description,
  deleteContact: m.developers_ref_delete_contact_description,
  recordConsent: m.developers_ref_record_consent_description,
  createCampaign: () =>
    m.developers_ref_create_campaign_description({
      link: "{ link }",
      media: "{ mediaId }",
      variable: "{{1}}",
      by_field: "{ index, field, fallback }",
      by_value: "{ index, value }",
      example_body: "Dear {{1}}, our AGM is on {{2}}.",
    }),
  listCampaigns: m.developers_ref_list_campaigns_description,
  getCampaign: m.developers_ref_get_campaign_description,
  pauseCampaign: m.developers_ref_pause_campaign_description,
  resumeCampaign: m.developers_ref_resume_campaign_description,
  cancelCampaign: m.developers_ref_cancel_campaign_description,
  listAutomationRules: m.developers_ref_list_automation_rules_description,
  createAutomationRule: m.developers_ref_create_automation_rule_description,
  getAutomationRule: m.developers_ref_get_automation_rule_description,
  updateAutomationRule: m.developers_ref_update_automation_rule_description,
  deleteAutomationRule: m.developers_ref_delete_automation_rule_description,
  getAutomationSettings: m.developers_ref_get_automation_settings_description,
  updateAutomationSettings: m.developers_ref_update_automation_settings_description,
  getAssistantSettings: m.developers_ref_get_assistant_settings_description,
  updateAssistantSettings: m.developers_ref_update_assistant_settings_description,
  listKnowledgeArticles: m.developers_ref_list_knowledge_articles_description,
  createKnowledgeArticle: () => m.developers_ref_create_knowledge_article_description({ max: ARTICLE_BODY_MAX.toLocaleString("en") }),
  getKnowledgeArticle: m.developers_ref_get_knowledge_article_description,
  updateKnowledgeArticle: m.developers_ref_update_knowledge_article_description,
  deleteKnowledgeArticle: m.developers_ref_delete_knowledge_article_description,
  listFlows: m.developers_ref_list_flows_description,
  createFlow: m.developers_ref_create_flow_description,
  getFlow: m.developers_ref_get_flow_description,
  updateFlow: m.developers_ref_update_flow_description,
  deleteFlow: m.developers_ref_delete_flow_description,
  publishFlow: m.developers_ref_publish_flow_description,
  listHooks: m.developers_ref_list_hooks_description,
  getPartner: m.developers_ref_get_partner_description,
  subscribeHook: m.developers_ref_subscribe_hook_description,
  unsubscribeHook: m.developers_ref_unsubscribe_hook_description,
  createPaymentRequest: () =>
    m.developers_ref_create_payment_request_description({
      path: "GET /api/v1/payment-requests/{id}",
      cancel: "POST /api/v1/payment-requests/{id}/cancel",
    }),
  listPaymentRequests: m.developers_ref_list_payment_requests_description,
  getPaymentRequest: m.developers_ref_get_payment_request_description,
  cancelPaymentRequest: m.developers_ref_cancel_payment_request_description,
  listOrders: m.developers_ref_list_orders_description,
  getOrder: m.developers_ref_get_order_description,
  sendSms: () => m.developers_ref_send_sms_description({ path: "GET /api/v1/sms/{id}" }),
  getSms: m.developers_ref_get_sms_description,
};
const MEANINGS: Record<string, () => string> = {
  invalid_request: m.developers_error_invalid_request_meaning,
  invalid_api_key: m.developers_error_invalid_api_key_meaning,
  missing_api_key: m.developers_error_missing_api_key_meaning,
  insufficient_balance: m.developers_error_insufficient_balance_meaning,
  account_suspended: m.developers_error_account_suspended_meaning,
  permission_denied: m.developers_error_permission_denied_meaning,
  not_found: m.developers_error_not_found_meaning,
  method_not_allowed: m.developers_error_method_not_allowed_meaning,
  campaign_state: m.developers_error_campaign_state_meaning,
  duplicate_phone: m.developers_error_duplicate_phone_meaning,
  erased_contact: m.developers_error_erased_contact_meaning,
  idempotency_conflict: m.developers_error_idempotency_conflict_meaning,
  idempotency_in_progress: m.developers_error_idempotency_in_progress_meaning,
  no_whatsapp_account: m.developers_error_no_whatsapp_account_meaning,
  no_whatsapp_number: m.developers_error_no_whatsapp_number_meaning,
  number_not_registered: m.developers_error_number_not_registered_meaning,
  organization_closing: m.developers_error_organization_closing_meaning,
  template_exists: m.developers_error_template_exists_meaning,
  whatsapp_reconnect_needed: m.developers_error_whatsapp_reconnect_needed_meaning,
  media_too_large: m.developers_error_media_too_large_meaning,
  payload_too_large: m.developers_error_payload_too_large_meaning,
  unsupported_media_type: m.developers_error_unsupported_media_type_meaning,
  empty_audience: m.developers_error_empty_audience_meaning,
  invalid_attribute: m.developers_error_invalid_attribute_meaning,
  invalid_audience: m.developers_error_invalid_audience_meaning,
  invalid_campaign: m.developers_error_invalid_campaign_meaning,
  invalid_consent: m.developers_error_invalid_consent_meaning,
  invalid_name: m.developers_error_invalid_name_meaning,
  invalid_parameters: m.developers_error_invalid_parameters_meaning,
  invalid_phone_number: m.developers_error_invalid_phone_number_meaning,
  invalid_schedule: m.developers_error_invalid_schedule_meaning,
  invalid_tag: m.developers_error_invalid_tag_meaning,
  media_type_mismatch: m.developers_error_media_type_mismatch_meaning,
  not_opted_in: m.developers_error_not_opted_in_meaning,
  outside_service_window: m.developers_error_outside_service_window_meaning,
  parameter_mismatch: m.developers_error_parameter_mismatch_meaning,
  template_not_approved: m.developers_error_template_not_approved_meaning,
  template_not_found: m.developers_error_template_not_found_meaning,
  unknown_attribute: m.developers_error_unknown_attribute_meaning,
  rate_limited: m.developers_error_rate_limited_meaning,
  internal_error: m.developers_error_internal_error_meaning,
  storage_unavailable: m.developers_error_storage_unavailable_meaning,
  service_unavailable: m.developers_error_service_unavailable_meaning,
  meta_error: m.developers_error_meta_error_meaning,
  no_phone: m.developers_error_no_phone_meaning,
  unknown_shortcode: m.developers_error_unknown_shortcode_meaning,
  payment_request_closed: m.developers_error_payment_request_closed_meaning,
  prompt_on_phone: m.developers_error_prompt_on_phone_meaning,
  rule_limit: m.developers_error_rule_limit_meaning,
  knowledge_limit: m.developers_error_knowledge_limit_meaning,
  flow_limit: m.developers_error_flow_limit_meaning,
  invalid_automation: m.developers_error_invalid_automation_meaning,
  hook_exists: m.developers_error_hook_exists_meaning,
  hook_limit: m.developers_error_hook_limit_meaning,
  invalid_hook: m.developers_error_invalid_hook_meaning,
  sms_not_connected: m.developers_error_sms_not_connected_meaning,
  opted_out: m.developers_error_opted_out_meaning,
  quiet_hours: m.developers_error_quiet_hours_meaning,
};
const ACTIONS: Record<string, () => string> = {
  invalid_request: m.developers_error_invalid_request_action,
  invalid_api_key: m.developers_error_invalid_api_key_action,
  missing_api_key: m.developers_error_missing_api_key_action,
  insufficient_balance: m.developers_error_insufficient_balance_action,
  account_suspended: m.developers_error_account_suspended_action,
  permission_denied: m.developers_error_permission_denied_action,
  not_found: m.developers_error_not_found_action,
  method_not_allowed: m.developers_error_method_not_allowed_action,
  campaign_state: m.developers_error_campaign_state_action,
  duplicate_phone: m.developers_error_duplicate_phone_action,
  erased_contact: m.developers_error_erased_contact_action,
  idempotency_conflict: m.developers_error_idempotency_conflict_action,
  idempotency_in_progress: m.developers_error_idempotency_in_progress_action,
  no_whatsapp_account: m.developers_error_no_whatsapp_account_action,
  no_whatsapp_number: m.developers_error_no_whatsapp_number_action,
  number_not_registered: m.developers_error_number_not_registered_action,
  organization_closing: m.developers_error_organization_closing_action,
  template_exists: m.developers_error_template_exists_action,
  whatsapp_reconnect_needed: m.developers_error_whatsapp_reconnect_needed_action,
  media_too_large: m.developers_error_media_too_large_action,
  payload_too_large: m.developers_error_payload_too_large_action,
  unsupported_media_type: m.developers_error_unsupported_media_type_action,
  empty_audience: m.developers_error_empty_audience_action,
  invalid_attribute: m.developers_error_invalid_attribute_action,
  invalid_audience: m.developers_error_invalid_audience_action,
  invalid_campaign: m.developers_error_invalid_campaign_action,
  invalid_consent: m.developers_error_invalid_consent_action,
  invalid_name: m.developers_error_invalid_name_action,
  invalid_parameters: m.developers_error_invalid_parameters_action,
  invalid_phone_number: m.developers_error_invalid_phone_number_action,
  invalid_schedule: m.developers_error_invalid_schedule_action,
  invalid_tag: m.developers_error_invalid_tag_action,
  media_type_mismatch: m.developers_error_media_type_mismatch_action,
  not_opted_in: m.developers_error_not_opted_in_action,
  outside_service_window: m.developers_error_outside_service_window_action,
  parameter_mismatch: m.developers_error_parameter_mismatch_action,
  template_not_approved: m.developers_error_template_not_approved_action,
  template_not_found: m.developers_error_template_not_found_action,
  unknown_attribute: m.developers_error_unknown_attribute_action,
  rate_limited: m.developers_error_rate_limited_action,
  internal_error: m.developers_error_internal_error_action,
  storage_unavailable: m.developers_error_storage_unavailable_action,
  service_unavailable: m.developers_error_service_unavailable_action,
  meta_error: m.developers_error_meta_error_action,
  no_phone: m.developers_error_no_phone_action,
  unknown_shortcode: m.developers_error_unknown_shortcode_action,
  payment_request_closed: m.developers_error_payment_request_closed_action,
  prompt_on_phone: m.developers_error_prompt_on_phone_action,
  rule_limit: m.developers_error_rule_limit_action,
  knowledge_limit: m.developers_error_knowledge_limit_action,
  flow_limit: m.developers_error_flow_limit_action,
  invalid_automation: m.developers_error_invalid_automation_action,
  hook_exists: m.developers_error_hook_exists_action,
  hook_limit: m.developers_error_hook_limit_action,
  invalid_hook: m.developers_error_invalid_hook_action,
  sms_not_connected: m.developers_error_sms_not_connected_action,
  opted_out: m.developers_error_opted_out_action,
  quiet_hours: m.developers_error_quiet_hours_action,
};

/** An endpoint's summary in the page's language (the document's own words for one it does not know). */
export function endpointSummary(operationId: string, summary: string) {
  return Object.hasOwn(SUMMARIES, operationId) ? SUMMARIES[operationId]!() : summary;
}

/** An endpoint's description in the page's language. */
export function endpointDescription(operationId: string, description: string) {
  return Object.hasOwn(DESCRIPTIONS, operationId) ? DESCRIPTIONS[operationId]!() : description;
}

/** What an error code means, in the page's language. */
export function errorMeaning(code: string, meaning: string) {
  return Object.hasOwn(MEANINGS, code) ? MEANINGS[code]!() : meaning;
}

/** What to do about an error code, in the page's language. */
export function errorAction(code: string, action: string) {
  return Object.hasOwn(ACTIONS, code) ? ACTIONS[code]!() : action;
}

/** Which operations and codes have words here (the test holds them to the document). */
export const TRANSLATED = {
  operations: Object.keys(SUMMARIES),
  codes: Object.keys(MEANINGS),
};
