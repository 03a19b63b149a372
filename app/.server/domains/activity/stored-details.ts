import { storedSentences, type StoredSentence } from "../../infrastructure/words/stored";
import { BILLING_TYPES_INLINE, CAMPAIGN_OUTCOMES, CAMPAIGN_REASONS, PAYMENT_METHODS, TEMPLATE_CATEGORIES } from "./stored-inputs";

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
const PEOPLE_AND_SETTINGS: StoredSentence[] = [];

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
  ["app_activity_detail_campaign_suspended", { name: "data" }],
  ["app_activity_detail_campaign_reason", { name: "data", reason: CAMPAIGN_REASONS }],
];

export const STORED_DETAILS = storedSentences([...PEOPLE_AND_SETTINGS, ...MONEY_AND_SENDING]);
