// Relative imports only: the database schema imports this file, and drizzle-kit reads it without the app's aliases.
import { m } from "../paraglide/messages";
import type { Locale } from "../paraglide/runtime";
import type { OrgRole } from "./roles";

/** The events a notification can be about (the bell, /notifications and, by the organisation's rules, e-mail). */
export const NOTIFICATION_EVENTS = [
  "template_decision",
  "campaign_finished",
  "campaign_paused",
  "approval_requested",
  "approval_decided",
  "low_balance",
  "payment_received",
  "payment_failed",
  "invoice_issued",
  "invoice_overdue",
  "quality_drop",
  "webhook_failing",
  "new_device_sign_in",
  "invitation",
  "role_changed",
  "assistant_cap",
  "privacy_request",
] as const;
export type NotificationEvent = (typeof NOTIFICATION_EVENTS)[number];

/** The roles a notification rule can e-mail, in the order the settings table shows them. */
export const RULE_ROLES = ["owner", "admin", "agent", "viewer"] as const satisfies readonly OrgRole[];

export interface EventSetting {
  event: NotificationEvent;
  /** Its name in the settings table (read when used: the request's language). */
  readonly label: string;
  /** What it is about, and who sees it in Jumbe (read when used). */
  readonly description: string;
  /** Roles that get it in the bell whatever the rule says (members named by the event get it too). */
  audience: readonly OrgRole[];
  /** Who is e-mailed while the organisation has not chosen (no rule row). */
  defaultEmail: readonly OrgRole[];
  /** Said beside it in the settings while it cannot happen yet. */
  note?: string;
}

type Words = (inputs?: Record<string, never>, options?: { locale?: Locale }) => string;

/** Each event's name and description in the product's words (functions: nothing is read at load). */
const EVENT_WORDS: Record<NotificationEvent, { label: Words; description: Words }> = {
  template_decision: {
    label: m.inbox_notifications_event_template_decision,
    description: m.inbox_notifications_event_template_decision_description,
  },
  campaign_finished: {
    label: m.inbox_notifications_event_campaign_finished,
    description: m.inbox_notifications_event_campaign_finished_description,
  },
  campaign_paused: {
    label: m.inbox_notifications_event_campaign_paused,
    description: m.inbox_notifications_event_campaign_paused_description,
  },
  approval_requested: {
    label: m.inbox_notifications_event_approval_requested,
    description: m.inbox_notifications_event_approval_requested_description,
  },
  approval_decided: {
    label: m.inbox_notifications_event_approval_decided,
    description: m.inbox_notifications_event_approval_decided_description,
  },
  low_balance: { label: m.inbox_notifications_event_low_balance, description: m.inbox_notifications_event_low_balance_description },
  payment_received: {
    label: m.inbox_notifications_event_payment_received,
    description: m.inbox_notifications_event_payment_received_description,
  },
  payment_failed: {
    label: m.inbox_notifications_event_payment_failed,
    description: m.inbox_notifications_event_payment_failed_description,
  },
  invoice_issued: {
    label: m.inbox_notifications_event_invoice_issued,
    description: m.inbox_notifications_event_invoice_issued_description,
  },
  invoice_overdue: {
    label: m.inbox_notifications_event_invoice_overdue,
    description: m.inbox_notifications_event_invoice_overdue_description,
  },
  quality_drop: { label: m.inbox_notifications_event_quality_drop, description: m.inbox_notifications_event_quality_drop_description },
  webhook_failing: {
    label: m.inbox_notifications_event_webhook_failing,
    description: m.inbox_notifications_event_webhook_failing_description,
  },
  new_device_sign_in: {
    label: m.inbox_notifications_event_new_device_sign_in,
    description: m.inbox_notifications_event_new_device_sign_in_description,
  },
  invitation: { label: m.inbox_notifications_event_invitation, description: m.inbox_notifications_event_invitation_description },
  role_changed: { label: m.inbox_notifications_event_role_changed, description: m.inbox_notifications_event_role_changed_description },
  assistant_cap: { label: m.automations_notice_event_cap, description: m.automations_notice_event_cap_description },
  privacy_request: { label: m.shopify_privacy_event_label, description: m.shopify_privacy_event_description },
};

/** An event's name: in the request's language, or in `locale` (English for what is stored, as the activity log). */
export function eventLabel(event: NotificationEvent, locale?: Locale): string {
  return EVENT_WORDS[event].label({}, locale ? { locale } : {});
}

const OWNERS_AND_ADMINS = ["owner", "admin"] as const;
const EVERYONE = RULE_ROLES;

/** One event's setting: its words read each time they are asked for. */
const setting = (event: NotificationEvent, audience: readonly OrgRole[], defaultEmail: readonly OrgRole[]): EventSetting => ({
  event,
  get label() {
    return EVENT_WORDS[event].label();
  },
  get description() {
    return EVENT_WORDS[event].description();
  },
  audience,
  defaultEmail,
});

/** Every event, in the order of the settings table: what it says, who sees it, whom it e-mails by default. */
export const EVENT_SETTINGS: readonly EventSetting[] = [
  setting("template_decision", OWNERS_AND_ADMINS, OWNERS_AND_ADMINS),
  setting("campaign_finished", OWNERS_AND_ADMINS, OWNERS_AND_ADMINS),
  setting("campaign_paused", OWNERS_AND_ADMINS, OWNERS_AND_ADMINS),
  setting("approval_requested", OWNERS_AND_ADMINS, OWNERS_AND_ADMINS),
  setting("approval_decided", [], EVERYONE),
  setting("low_balance", OWNERS_AND_ADMINS, OWNERS_AND_ADMINS),
  setting("payment_received", OWNERS_AND_ADMINS, OWNERS_AND_ADMINS),
  setting("payment_failed", OWNERS_AND_ADMINS, []),
  setting("invoice_issued", OWNERS_AND_ADMINS, OWNERS_AND_ADMINS),
  setting("invoice_overdue", OWNERS_AND_ADMINS, OWNERS_AND_ADMINS),
  setting("quality_drop", OWNERS_AND_ADMINS, OWNERS_AND_ADMINS),
  setting("webhook_failing", OWNERS_AND_ADMINS, OWNERS_AND_ADMINS),
  setting("new_device_sign_in", [], EVERYONE),
  setting("invitation", OWNERS_AND_ADMINS, OWNERS_AND_ADMINS),
  setting("role_changed", [], EVERYONE),
  setting("assistant_cap", OWNERS_AND_ADMINS, OWNERS_AND_ADMINS),
  // A customer's data request from a connected shop (decision 108): the owner answers it.
  setting("privacy_request", ["owner"], ["owner"]),
];

export const EVENT_SETTING = Object.fromEntries(EVENT_SETTINGS.map((s) => [s.event, s])) as Record<NotificationEvent, EventSetting>;

/** A link that stays inside Jumbe: one leading slash, no scheme, no other host. */
export function isInProductLink(link: string) {
  return /^\/(?![/\\])[^\s]*$/.test(link) && link.length <= 500;
}
