import { m } from "~/paraglide/messages";
import { STORED_DETAILS } from "./stored-details";
import { EVENT_SETTINGS, eventLabel } from "~/lib/notifications";
import { ROLE_WORDS } from "~/lib/schemas/team";
import { ORG_ROLES, type NotificationEvent, type OrgRole } from "../../infrastructure/db/schema";
import { inLocale } from "../../infrastructure/http/display-zone";

/**
 * The activity log in the reader's language (issue 43). Domain code stores each record's action, and
 * often its details, as an English sentence: the log is also an audit record, and the API and the
 * CSV export give it as stored. Pages say those sentences in the request's language by looking the
 * stored English up here; a sentence not found (an older wording, a person's own words, an address,
 * a device) is shown as stored. Each message's English is the stored sentence itself, so adding a
 * sentence here changes nothing in English (words.test.ts holds every writer to this table).
 */

/** Every action a writer stores, in its exact English, and the message that says it. */
const ACTION_KEYS = {
  "Signed in": "app_activity_action_signed_in",
  "Sign-in failed": "app_activity_action_sign_in_failed",
  "Sign-in refused": "app_activity_action_sign_in_refused",
  "Signed out": "app_activity_action_signed_out",
  "Sign-in code e-mailed": "app_activity_action_sign_in_code_emailed",
  "Password change failed": "app_activity_action_password_change_failed",
  "Password changed": "app_activity_action_password_changed",
  "Password reset": "app_activity_action_password_reset",
  "Password reset requested": "app_activity_action_password_reset_requested",
  "Email verification failed": "app_activity_action_email_verification_failed",
  "Email verified": "app_activity_action_email_verified",
  "Session signed out": "app_activity_action_session_signed_out",
  "Other sessions signed out": "app_activity_action_other_sessions_signed_out",
  "Account created": "app_activity_action_account_created",
  "Two-factor sign-in turned on": "app_activity_action_two_factor_turned_on",
  "Two-factor sign-in turned off": "app_activity_action_two_factor_turned_off",
  "Recovery codes renewed": "app_activity_action_recovery_codes_renewed",
  "Two-factor sign-in required for everyone": "app_activity_action_two_factor_required",
  "Two-factor sign-in no longer required": "app_activity_action_two_factor_not_required",
  "Broadcast approval turned off": "app_activity_action_broadcast_approval_off",
  "Broadcast approval turned on": "app_activity_action_broadcast_approval_on",
  "Broadcast approval threshold changed": "app_activity_action_broadcast_approval_threshold_changed",
  "Member role changed": "app_activity_action_member_role_changed",
  "Member removed": "app_activity_action_member_removed",
  "Ownership handed over": "app_activity_action_ownership_handed_over",
  "Member invited": "app_activity_action_member_invited",
  "Invitation resent": "app_activity_action_invitation_resent",
  "Invitation withdrawn": "app_activity_action_invitation_withdrawn",
  "Invitation accepted": "app_activity_action_invitation_accepted",
  "API key created": "app_activity_action_api_key_created",
  "API key viewed": "app_activity_action_api_key_viewed",
  "API key regenerated": "app_activity_action_api_key_regenerated",
  "API call failed": "app_activity_action_api_call_failed",
  "Profile updated": "app_activity_action_profile_updated",
  "E-mail changed": "app_activity_action_email_changed",
  "Webhook configuration saved": "app_activity_action_webhook_configuration_saved",
  "Webhook test event sent": "app_activity_action_webhook_test_event_sent",
  "Webhook event redelivered": "app_activity_action_webhook_event_redelivered",
  "Webhook endpoint re-enabled": "app_activity_action_webhook_endpoint_reenabled",
  "Webhook signing secret viewed": "app_activity_action_webhook_secret_viewed",
  "Webhook signing secret rotated": "app_activity_action_webhook_secret_rotated",
  "Webhook endpoint disabled": "app_activity_action_webhook_endpoint_disabled",
  "Integration connected": "app_activity_action_integration_connected",
  "Integration connection failed": "app_activity_action_integration_connection_failed",
  "Shopify privacy request": "app_activity_action_shopify_privacy_request",
  "Integration disconnected": "app_activity_action_integration_disconnected",
  "Integration disconnected without revoking its access": "app_activity_action_integration_disconnected_unrevoked",
  "Integration synced": "app_activity_action_integration_synced",
  "Shopify payment setting changed": "app_activity_action_shopify_payment_setting_changed",
  "Integration sync failed": "app_activity_action_integration_sync_failed",
  "Integration token refresh failed": "app_activity_action_integration_token_refresh_failed",
  "Google Sheets export paused": "app_activity_action_sheets_export_paused",
  "Google Sheets import started": "app_activity_action_sheets_import_started",
  "Google Sheets spreadsheet chosen": "app_activity_action_sheets_spreadsheet_chosen",
  "Google Sheets export settings saved": "app_activity_action_sheets_export_settings_saved",
  "Google Sheets export queued": "app_activity_action_sheets_export_queued",
  "Google Sheets import sheet created": "app_activity_action_sheets_import_sheet_created",
  "HubSpot properties created": "app_activity_action_hubspot_properties_created",
  "HubSpot properties missing": "app_activity_action_hubspot_properties_missing",
  "Integration sync requested": "app_activity_action_integration_sync_requested",
  "REST hook subscribed": "app_activity_action_rest_hook_subscribed",
  "REST hook unsubscribed": "app_activity_action_rest_hook_unsubscribed",
  "REST hook removed by its target": "app_activity_action_rest_hook_removed_by_target",
  "REST hooks removed": "app_activity_action_rest_hooks_removed",
  "Organisation details updated": "app_activity_action_organisation_details_updated",
  "Data retention changed": "app_activity_action_retention_changed",
  "Retention removed old data": "app_activity_action_retention_removed",
  "M-Pesa shortcode added": "app_activity_action_mpesa_shortcode_added",
  "M-Pesa shortcode changed": "app_activity_action_mpesa_shortcode_changed",
  "M-Pesa shortcode made default": "app_activity_action_mpesa_shortcode_made_default",
  "M-Pesa shortcode removed": "app_activity_action_mpesa_shortcode_removed",
  "M-Pesa shortcode tested": "app_activity_action_mpesa_shortcode_tested",
  "M-Pesa payment matched": "app_activity_action_mpesa_payment_matched",
  "Payment request cancelled": "app_activity_action_payment_request_cancelled",
  "SMS connected": "app_activity_action_sms_connected",
  "SMS connection changed": "app_activity_action_sms_changed",
  "SMS connection tested": "app_activity_action_sms_tested",
  "SMS disconnected": "app_activity_action_sms_disconnected",
  "Conversions to Meta turned on": "app_activity_action_conversions_on",
  "Conversions to Meta turned off": "app_activity_action_conversions_off",
  "Tags that mean converted changed": "app_activity_action_lead_tags_changed",
  "SMS fallback changed": "app_activity_action_sms_fallback_changed",
  "Organisation closing": "app_activity_action_organisation_closing",
  "Organisation reopened": "app_activity_action_organisation_reopened",
  "Templates synced from Meta": "app_activity_action_templates_synced",
  "Template sample uploaded to Meta": "app_activity_action_template_sample_uploaded",
  "Template created": "app_activity_action_template_created",
  "Template held for review": "app_activity_action_template_held",
  "Template submitted to Meta": "app_activity_action_template_submitted",
  "Template submission failed": "app_activity_action_template_submission_failed",
  "Template resubmission failed": "app_activity_action_template_resubmission_failed",
  "Template resubmitted to Meta": "app_activity_action_template_resubmitted",
  "Template copied": "app_activity_action_template_copied",
  "Template deletion failed": "app_activity_action_template_deletion_failed",
  "Template deleted": "app_activity_action_template_deleted",
  "Template deleted at Meta": "app_activity_action_template_deleted_at_meta",
  "Template submissions held for review": "app_activity_action_template_submissions_held",
  "Meta approved a template": "app_activity_action_meta_approved_template",
  "Meta pending a template": "app_activity_action_meta_pending_template",
  "Meta rejected a template": "app_activity_action_meta_rejected_template",
  "Meta paused a template": "app_activity_action_meta_paused_template",
  "Meta disabled a template": "app_activity_action_meta_disabled_template",
  "Meta flagged a template": "app_activity_action_meta_flagged_template",
  "Meta reinstated a template": "app_activity_action_meta_reinstated_template",
  "Meta changed a template's category": "app_activity_action_meta_changed_template_category",
  "Template returned by Jumbe's review": "app_activity_action_template_returned_by_review",
  "Template approved": "app_activity_action_template_approved",
  "Notification settings changed": "app_activity_action_notification_settings_changed",
  "Segment saved": "app_activity_action_segment_saved",
  "Segment deleted": "app_activity_action_segment_deleted",
  "Contact field added": "app_activity_action_contact_field_added",
  "Contact field removed": "app_activity_action_contact_field_removed",
  "Contact import uploaded": "app_activity_action_contact_import_uploaded",
  "Contact import started": "app_activity_action_contact_import_started",
  "Contact import failed": "app_activity_action_contact_import_failed",
  "Contact import finished": "app_activity_action_contact_import_finished",
  "Contacts merged": "app_activity_action_contacts_merged",
  "Contacts tagged": "app_activity_action_contacts_tagged",
  "Contacts untagged": "app_activity_action_contacts_untagged",
  "Contacts deleted": "app_activity_action_contacts_deleted",
  "Contact data downloaded": "app_activity_action_contact_data_downloaded",
  "Contact erased": "app_activity_action_contact_erased",
  "Erasure sent to connected tools": "app_activity_action_erasure_sent",
  "Contacts exported": "app_activity_action_contacts_exported",
  "WhatsApp connection needs reconnecting": "app_activity_action_whatsapp_needs_reconnecting",
  "Plan change cancelled": "app_activity_action_plan_change_cancelled",
  "Plan change requested": "app_activity_action_plan_change_requested",
  "Wallet alerts saved": "app_activity_action_wallet_alerts_saved",
  "Invoice disputed": "app_activity_action_invoice_disputed",
  "Payment received": "app_activity_action_payment_received",
  "Payment failed": "app_activity_action_payment_failed",
  "Bank transfer started": "app_activity_action_bank_transfer_started",
  "Invoice issued": "app_activity_action_invoice_issued",
  "Plan changed": "app_activity_action_plan_changed",
  "Prepaid credit moved to money on account": "app_activity_action_prepaid_to_account",
  "Money on account made prepaid credit": "app_activity_action_account_to_prepaid",
  "Wallet topped up": "app_activity_action_wallet_topped_up",
  "WhatsApp account connected": "app_activity_action_whatsapp_connected",
  "WhatsApp connection failed": "app_activity_action_whatsapp_connection_failed",
  "WhatsApp disconnect failed": "app_activity_action_whatsapp_disconnect_failed",
  "WhatsApp account disconnected": "app_activity_action_whatsapp_disconnected",
  "WhatsApp reconnect failed": "app_activity_action_whatsapp_reconnect_failed",
  "WhatsApp account reconnected": "app_activity_action_whatsapp_reconnected",
  "WhatsApp account disconnected by Jumbe": "app_activity_action_whatsapp_disconnected_by_jumbe",
  "WhatsApp number quality update": "app_activity_action_whatsapp_number_quality_update",
  "Meta confirmed the WhatsApp connection": "app_activity_action_meta_confirmed_connection",
  "WhatsApp account update": "app_activity_action_whatsapp_account_update",
  "Saved answer added": "app_activity_action_saved_answer_added",
  "Product added": "app_activity_action_product_added",
  "Product changed": "app_activity_action_product_changed",
  "Product removed": "app_activity_action_product_removed",
  "Products imported": "app_activity_action_products_imported",
  "Shop catalog connected": "app_activity_action_shop_catalog_connected",
  "Automation rule added": "app_activity_action_automation_rule_added",
  "Automation rule changed": "app_activity_action_automation_rule_changed",
  "Automation rule turned on": "app_activity_action_automation_rule_on",
  "Automation rule turned off": "app_activity_action_automation_rule_off",
  "Automation rule deleted": "app_activity_action_automation_rule_deleted",
  "Automation rule moved": "app_activity_action_automation_rule_moved",
  "Flow added": "app_activity_action_flow_added",
  "Flow changed": "app_activity_action_flow_changed",
  "Flow published": "app_activity_action_flow_published",
  "Flow turned on": "app_activity_action_flow_on",
  "Flow turned off": "app_activity_action_flow_off",
  "Flow deleted": "app_activity_action_flow_deleted",
  "Welcome and away messages saved": "app_activity_action_automation_settings_saved",
  "Order payment automation turned on": "app_activity_action_order_payment_on",
  "Order payment automation turned off": "app_activity_action_order_payment_off",
  "Assistant settings saved": "app_activity_action_assistant_settings_saved",
  "Knowledge article added": "app_activity_action_knowledge_article_added",
  "Knowledge article changed": "app_activity_action_knowledge_article_changed",
  "Knowledge article deleted": "app_activity_action_knowledge_article_deleted",
  "Saved answer changed": "app_activity_action_saved_answer_changed",
  "Saved answer deleted": "app_activity_action_saved_answer_deleted",
  "Activity log exported": "app_activity_action_activity_log_exported",
  "Messages sent": "app_activity_action_messages_sent",
  "Demo data loaded": "app_activity_action_demo_data_loaded",
  "Campaign saved as draft": "app_activity_action_campaign_saved_as_draft",
  "Campaign scheduled": "app_activity_action_campaign_scheduled",
  "Campaign confirmed": "app_activity_action_campaign_confirmed",
  "Campaign started": "app_activity_action_campaign_started",
  "Campaign failed to start": "app_activity_action_campaign_failed_to_start",
  "Campaign completed": "app_activity_action_campaign_completed",
  "Campaign failures reported after it finished": "app_activity_action_campaign_failed_later",
  "Campaign awaiting approval": "app_activity_action_campaign_awaiting_approval",
  "Campaign approved": "app_activity_action_campaign_approved",
  "Campaign declined": "app_activity_action_campaign_declined",
  "Campaign paused": "app_activity_action_campaign_paused",
  "Campaign resumed": "app_activity_action_campaign_resumed",
  "Campaign cancelled": "app_activity_action_campaign_cancelled",
  "Broadcast saved as draft": "app_activity_action_broadcast_saved_as_draft",
  "Broadcast scheduled": "app_activity_action_broadcast_scheduled",
  "Broadcast confirmed": "app_activity_action_broadcast_confirmed",
  "Broadcast started": "app_activity_action_broadcast_started",
  "Broadcast failed to start": "app_activity_action_broadcast_failed_to_start",
  "Broadcast completed": "app_activity_action_broadcast_completed",
  "Broadcast failures reported after it finished": "app_activity_action_broadcast_failed_later",
  "Broadcast awaiting approval": "app_activity_action_broadcast_awaiting_approval",
  "Broadcast approved": "app_activity_action_broadcast_approved",
  "Broadcast declined": "app_activity_action_broadcast_declined",
  "Broadcast paused": "app_activity_action_broadcast_paused",
  "Broadcast resumed": "app_activity_action_broadcast_resumed",
  "Broadcast cancelled": "app_activity_action_broadcast_cancelled",
} as const satisfies Record<string, keyof typeof m>;

/** Details Jumbe writes as fixed sentences. */
const DETAIL_KEYS = {
  // Password changed: the same sentence as the action of that name.
  "Other sessions signed out": "app_activity_action_other_sessions_signed_out",
  "Wrong password": "app_activity_detail_wrong_password",
  "Account suspended": "app_activity_detail_account_suspended",
  "Browser session": "app_activity_detail_browser_session",
  "Remembered for 30 days": "app_activity_detail_remembered_30_days",
  "Wrong current password": "app_activity_detail_wrong_current_password",
  "Right password from a new browser while many sign-ins fail": "app_activity_detail_new_browser_while_failing",
  "Wrong e-mailed sign-in code": "app_activity_detail_wrong_emailed_code",
  "All sessions signed out": "app_activity_detail_all_sessions_signed_out",
  "Reset code e-mailed": "app_activity_detail_reset_code_emailed",
  "Wrong two-factor code": "app_activity_detail_wrong_two_factor_code",
  "Authenticator app confirmed; 10 recovery codes issued": "app_activity_detail_authenticator_confirmed",
  "Password and code confirmed": "app_activity_detail_password_and_code_confirmed",
  "The earlier codes no longer work": "app_activity_detail_earlier_codes_void",
  "Members without it set it up at their next page": "app_activity_detail_two_factor_set_up_next_page",
  "Each member chooses": "app_activity_detail_two_factor_each_chooses",
  "It will not be erased. Campaigns paused by the closing stay paused until someone resumes them.":
    "app_activity_detail_organisation_reopened",
  "5 repayment reminders sent": "app_activity_detail_demo_reminders_sent",
  "Sample contacts, templates and messages": "app_activity_detail_demo_sample_data",
} as const satisfies Record<string, keyof typeof m>;

/** A pattern's named parts: each pattern has those its message needs. */
type Parts = Readonly<
  Record<
    "email" | "count" | "prefix" | "old" | "id" | "name" | "event" | "numbers" | "imported" | "updated" | "removed" | "names" | "reason",
    string
  >
>;

/**
 * Details Jumbe writes to a fixed pattern around an identifier, an address or a name, which are
 * kept as they are. Anchored at both ends, so a longer sentence never passes for one of these.
 */
const DETAIL_PATTERNS: { pattern: RegExp; words: (parts: Parts) => string }[] = [
  { pattern: /^Sign-up for (?<email>\S+)$/, words: (parts) => m.app_activity_detail_sign_up_for(parts) },
  // Other sessions signed out: "1 session ended", "3 sessions ended".
  {
    pattern: /^(?<count>\d+) sessions? ended$/,
    words: (parts) => (parts.count === "1" ? m.app_activity_detail_one_session_ended(parts) : m.app_activity_detail_sessions_ended(parts)),
  },
  { pattern: /^Key (?<prefix>\S+)\.\.\.$/, words: (parts) => m.app_activity_detail_api_key(parts) },
  { pattern: /^New key (?<prefix>\S+)\.\.\.$/, words: (parts) => m.app_activity_detail_api_key_new(parts) },
  {
    pattern: /^Key (?<old>\S+)\.\.\. revoked; new key (?<prefix>\S+)\.\.\.$/,
    words: (parts) => m.app_activity_detail_api_key_replaced(parts),
  },
  { pattern: /^WhatsApp Business Account (?<id>\d+)$/, words: (parts) => m.app_activity_detail_whatsapp_business_account(parts) },
  // Meta's event's own name (PARTNER_ADDED) is Meta's, kept as it is.
  {
    pattern: /^WhatsApp Business Account (?<id>\d+): (?<event>[A-Z_]+)$/,
    words: (parts) => m.app_activity_detail_whatsapp_account_event(parts),
  },
  {
    pattern: /^WhatsApp Business Account (?<id>\d+) with (?<numbers>\+?[\d ]+(?:, \+?[\d ]+)*)$/,
    words: (parts) => m.app_activity_detail_whatsapp_account_with(parts),
  },
  {
    pattern: /^WhatsApp Business Account (?<id>\d+): (?<imported>\d+) imported, (?<updated>\d+) updated, (?<removed>\d+) removed$/,
    words: (parts) => m.app_activity_detail_whatsapp_account_synced(parts),
  },
  {
    pattern:
      /^WhatsApp Business Account (?<id>\d+): (?<imported>\d+) imported, (?<updated>\d+) updated, (?<removed>\d+) removed \(deleted at Meta: (?<names>[^)]+)\)$/,
    words: (parts) => m.app_activity_detail_whatsapp_account_synced_gone(parts),
  },
  // The administrator's reason is their own words.
  {
    pattern: /^WhatsApp Business Account (?<id>\d+)\. Reason: (?<reason>[\s\S]+)$/,
    words: (parts) => m.app_activity_detail_whatsapp_account_reason(parts),
  },
  { pattern: /^Delivery (?<id>[\w-]+)$/, words: (parts) => m.app_activity_detail_webhook_delivery(parts) },
  {
    pattern: /^(?<count>\d+) contacts? deleted\.$/,
    words: (parts) =>
      parts.count === "1" ? m.app_activity_detail_one_contact_deleted(parts) : m.app_activity_detail_contacts_deleted(parts),
  },
  // A campaign or broadcast: started by the feeder, or approved.
  { pattern: /^(?<name>.+), as scheduled\.$/, words: (parts) => m.app_activity_detail_started_as_scheduled(parts) },
  { pattern: /^(?<name>.+): sending now\.$/, words: (parts) => m.app_activity_detail_approved_sending_now(parts) },
  { pattern: /^(?<name>.+): scheduled for its time\.$/, words: (parts) => m.app_activity_detail_approved_scheduled(parts) },
  // The demo's approved template.
  { pattern: /^(?<name>[a-z0-9_]+) was approved$/, words: (parts) => m.app_activity_detail_template_was_approved(parts) },
];

type ActionKey = (typeof ACTION_KEYS)[keyof typeof ACTION_KEYS];
type DetailKey = (typeof DETAIL_KEYS)[keyof typeof DETAIL_KEYS];

// Maps, not the objects: a stored "constructor" or "toString" must not find Object's own.
const actions = new Map<string, ActionKey>(Object.entries(ACTION_KEYS));
const details = new Map<string, DetailKey>(Object.entries(DETAIL_KEYS));

/** Every action sentence that has its words, as stored. */
export const STORED_ACTIONS: readonly string[] = Object.keys(ACTION_KEYS);

/** The message key of a stored action or fixed detail (for the words' tests). */
export function activityKeyOf(stored: string): string | undefined {
  return actions.get(stored) ?? details.get(stored);
}

/** A stored action in the request's language; one the table does not know, as stored. */
export function actionInWords(action: string): string {
  const key = actions.get(action);
  return key ? m[key]() : action;
}

// The notification e-mail rules' changes: "Campaign finished: Owner, Admin to Owner, Agent; ...".
const RULE_CHANGE = /^(?<event>[^:;]+): (?<before>[^;]+?) to (?<after>[^;]+)$/;

/** The events' and roles' English names as a rule's change stores them, read once. */
function englishRuleWords() {
  return {
    events: new Map<string, NotificationEvent>(EVENT_SETTINGS.map((setting) => [eventLabel(setting.event, "en"), setting.event])),
    roles: new Map<string, OrgRole>(ORG_ROLES.map((role) => [inLocale("en", () => ROLE_WORDS[role]), role])),
    nobody: m.app_activity_detail_nobody({}, { locale: "en" }),
  };
}
let ruleWords: ReturnType<typeof englishRuleWords> | undefined;

/** A saved rule's change in the request's language, if every part of it is Jumbe's words. */
function ruleChangesInWords(text: string): string | undefined {
  // Most details are not a rule's change: they go before the English names are looked up.
  if (!RULE_CHANGE.test(text.split("; ", 1)[0]!)) return undefined;
  const { events, roles, nobody } = (ruleWords ??= englishRuleWords());
  const rolesInWords = (list: string) => {
    if (list === nobody) return m.app_activity_detail_nobody();
    const found = list.split(", ").map((name) => roles.get(name));
    return found.every(Boolean) ? found.map((role) => ROLE_WORDS[role!]).join(", ") : undefined;
  };
  const said: string[] = [];
  for (const part of text.split("; ")) {
    const match = RULE_CHANGE.exec(part)?.groups;
    const event = match ? events.get(match.event!) : undefined;
    const before = match ? rolesInWords(match.before!) : undefined;
    const after = match ? rolesInWords(match.after!) : undefined;
    if (!event || before === undefined || after === undefined) return undefined;
    said.push(m.app_activity_detail_email_rule({ event: eventLabel(event), before, after }));
  }
  return said.join("; ");
}

/** Stored details in the request's language, when Jumbe wrote them to a known sentence or pattern; else as stored. */
export function detailsInWords(text: string): string {
  const key = details.get(text);
  if (key) return m[key]();
  const rules = ruleChangesInWords(text);
  if (rules !== undefined) return rules;
  const stored = STORED_DETAILS.say(text);
  if (stored !== undefined) return stored;
  for (const { pattern, words } of DETAIL_PATTERNS) {
    const match = pattern.exec(text);
    if (match?.groups) return words(match.groups as Parts);
  }
  return text;
}

/** A record with its action and details said in the request's language; the other fields as they are. */
export function activityInWords<T extends { action: string; details: string | null }>(record: T): T {
  return { ...record, action: actionInWords(record.action), details: record.details ? detailsInWords(record.details) : record.details };
}
