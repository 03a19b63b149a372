import { m } from "~/paraglide/messages";
import { formatNumber } from "~/lib/dates";

/** The admin console's WhatsApp tab: statuses, labels and the rows its pages show (shared by server and page). */

export const ACCOUNT_STATUSES = ["connected", "disconnected", "token_refused", "reconnect_requested"] as const;
export type AccountStatus = (typeof ACCOUNT_STATUSES)[number];

/** Each status in words, read in the request's language. */
export const ACCOUNT_STATUS_LABELS: Readonly<Record<AccountStatus, string>> = {
  get connected() {
    return m.admin_whatsapp_status_connected();
  },
  get disconnected() {
    return m.admin_whatsapp_status_disconnected();
  },
  get token_refused() {
    return m.admin_whatsapp_status_token_refused();
  },
  get reconnect_requested() {
    return m.admin_whatsapp_status_reconnect_requested();
  },
};

export interface AdminNumber {
  phoneNumberId: string;
  display: string;
  verifiedName: string | null;
  /** Meta's colour: GREEN, YELLOW, RED, UNKNOWN. */
  quality: string | null;
  /** Meta's messaging limit tier: TIER_250, TIER_1K, TIER_10K, TIER_100K, TIER_UNLIMITED. */
  messagingLimit: string | null;
  status: string | null;
  live: boolean;
}

export interface AdminAccountRow {
  id: string;
  organizationId: string;
  business: string;
  name: string | null;
  wabaId: string;
  status: AccountStatus;
  subscribed: boolean;
  connectedAt: string;
  disconnectedAt: string | null;
  tokenRefusal: string | null;
  reconnectReason: string | null;
  numbers: AdminNumber[];
  messagesThisMonth: number;
  lastWebhookAt: string | null;
  apiVersion: string;
}

/** Meta's quality colour in the spec's words: high, medium, low. */
export function qualityWords(rating: string | null | undefined) {
  switch ((rating ?? "").toUpperCase()) {
    case "GREEN":
      return m.admin_whatsapp_quality_high();
    case "YELLOW":
      return m.admin_whatsapp_quality_medium();
    case "RED":
      return m.admin_whatsapp_quality_low();
    default:
      return m.admin_whatsapp_unknown();
  }
}

/** Meta's tiers: their number and how many customers a day each reaches. */
const TIERS: Record<string, { tier: number; perDay: number }> = {
  TIER_50: { tier: 0, perDay: 50 },
  TIER_250: { tier: 0, perDay: 250 },
  TIER_1K: { tier: 1, perDay: 1000 },
  TIER_2K: { tier: 1, perDay: 2000 },
  TIER_10K: { tier: 2, perDay: 10_000 },
  TIER_100K: { tier: 3, perDay: 100_000 },
};

/** A messaging limit tier in words: "Tier 1: 1,000 a day" (customers reached in 24 hours). */
export function tierWords(limit: string | null | undefined) {
  if (!limit) return m.admin_whatsapp_unknown();
  const code = limit.toUpperCase();
  if (code === "TIER_UNLIMITED") return m.admin_whatsapp_tier_unlimited();
  const tier = Object.hasOwn(TIERS, code) ? TIERS[code] : undefined;
  return tier ? m.admin_whatsapp_tier({ tier: String(tier.tier), count: formatNumber(tier.perDay) }) : limit;
}

/** The webhook column: subscribed or not, and whether anything arrived in the last 7 days. */
export function webhookWords(subscribed: boolean, lastWebhookAt: string | null, now = Date.now()) {
  if (!subscribed) return { tone: "danger" as const, label: m.admin_whatsapp_webhook_not_subscribed() };
  if (!lastWebhookAt) return { tone: "warning" as const, label: m.admin_whatsapp_webhook_none_received() };
  const recent = now - new Date(lastWebhookAt).getTime() < 7 * 24 * 3600 * 1000;
  return recent
    ? { tone: "success" as const, label: m.admin_whatsapp_webhook_active() }
    : { tone: "warning" as const, label: m.admin_whatsapp_webhook_quiet() };
}
