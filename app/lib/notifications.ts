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
] as const;
export type NotificationEvent = (typeof NOTIFICATION_EVENTS)[number];

/** The roles a notification rule can e-mail, in the order the settings table shows them. */
export const RULE_ROLES = ["owner", "admin", "agent", "viewer"] as const satisfies readonly OrgRole[];

export interface EventSetting {
  event: NotificationEvent;
  label: string;
  /** What it is about, and who sees it in Jumbe. */
  description: string;
  /** Roles that get it in the bell whatever the rule says (members named by the event get it too). */
  audience: readonly OrgRole[];
  /** Who is e-mailed while the organisation has not chosen (no rule row). */
  defaultEmail: readonly OrgRole[];
  /** Said beside it in the settings while it cannot happen yet. */
  note?: string;
}

const OWNERS_AND_ADMINS = ["owner", "admin"] as const;
const EVERYONE = RULE_ROLES;

/** Every event, in the order of the settings table: what it says, who sees it, whom it e-mails by default. */
export const EVENT_SETTINGS: readonly EventSetting[] = [
  {
    event: "template_decision",
    label: "Template decisions",
    description: "Meta approved, rejected, paused or disabled a message template. Owners and admins see it.",
    audience: OWNERS_AND_ADMINS,
    defaultEmail: OWNERS_AND_ADMINS,
  },
  {
    event: "campaign_finished",
    label: "Campaign finished",
    description: "A campaign or broadcast has sent to everyone. Its author, owners and admins see it.",
    audience: OWNERS_AND_ADMINS,
    defaultEmail: OWNERS_AND_ADMINS,
  },
  {
    event: "campaign_paused",
    label: "Campaign paused",
    description: "Jumbe paused a campaign (a template or the number's quality), or a member did. Its author, owners and admins see it.",
    audience: OWNERS_AND_ADMINS,
    defaultEmail: OWNERS_AND_ADMINS,
  },
  {
    event: "approval_requested",
    label: "Approval requested",
    description: "A campaign waits for approval. Owners and admins see it.",
    audience: OWNERS_AND_ADMINS,
    defaultEmail: OWNERS_AND_ADMINS,
  },
  {
    event: "approval_decided",
    label: "Approval decided",
    description: "A campaign you made was approved or declined. Its author sees it.",
    audience: [],
    defaultEmail: EVERYONE,
  },
  {
    event: "low_balance",
    label: "Low balance",
    description: "The wallet is running low. Owners and admins see it.",
    audience: OWNERS_AND_ADMINS,
    defaultEmail: OWNERS_AND_ADMINS,
  },
  {
    event: "payment_received",
    label: "Payments received",
    description: "A top-up or an invoice payment reached Jumbe (M-Pesa, card or bank). Owners and admins see it.",
    audience: OWNERS_AND_ADMINS,
    defaultEmail: OWNERS_AND_ADMINS,
  },
  {
    event: "payment_failed",
    label: "Payments that failed",
    description: "An M-Pesa prompt or a card payment did not go through, with the reason. The member who paid, owners and admins see it.",
    audience: OWNERS_AND_ADMINS,
    defaultEmail: [],
  },
  {
    event: "invoice_issued",
    label: "Invoices issued",
    description: "The monthly invoice of a postpaid plan is ready. Owners and admins see it.",
    audience: OWNERS_AND_ADMINS,
    defaultEmail: OWNERS_AND_ADMINS,
  },
  {
    event: "invoice_overdue",
    label: "Overdue invoices",
    description: "An invoice is past its due date (a reminder each week until it is paid). Owners and admins see it.",
    audience: OWNERS_AND_ADMINS,
    defaultEmail: OWNERS_AND_ADMINS,
  },
  {
    event: "quality_drop",
    label: "Number quality drop",
    description: "Meta flagged or downgraded a WhatsApp number's quality. Owners and admins see it.",
    audience: OWNERS_AND_ADMINS,
    defaultEmail: OWNERS_AND_ADMINS,
  },
  {
    event: "webhook_failing",
    label: "Failed webhooks out",
    description: "Your webhook endpoint has failed for an hour, or was disabled after three days. Owners and admins see it.",
    audience: OWNERS_AND_ADMINS,
    defaultEmail: OWNERS_AND_ADMINS,
  },
  {
    event: "new_device_sign_in",
    label: "New sign-in from a new device",
    description: "Someone signed in to your account from a browser it has not used before. The member themself sees it.",
    audience: [],
    defaultEmail: EVERYONE,
  },
  {
    event: "invitation",
    label: "Invitation accepted",
    description: "Someone accepted an invitation and joined the team. The inviter, owners and admins see it.",
    audience: OWNERS_AND_ADMINS,
    defaultEmail: OWNERS_AND_ADMINS,
  },
  {
    event: "role_changed",
    label: "Role changed",
    description: "An owner or admin changed your role. The member themself sees it.",
    audience: [],
    defaultEmail: EVERYONE,
  },
];

export const EVENT_SETTING = Object.fromEntries(EVENT_SETTINGS.map((s) => [s.event, s])) as Record<NotificationEvent, EventSetting>;

/** A link that stays inside Jumbe: one leading slash, no scheme, no other host. */
export function isInProductLink(link: string) {
  return /^\/(?![/\\])[^\s]*$/.test(link) && link.length <= 500;
}
