/** The admin console's WhatsApp tab: statuses, labels and the rows its pages show (shared by server and page). */

export const ACCOUNT_STATUSES = ["connected", "disconnected", "token_refused", "reconnect_requested"] as const;
export type AccountStatus = (typeof ACCOUNT_STATUSES)[number];

export const ACCOUNT_STATUS_LABELS: Record<AccountStatus, string> = {
  connected: "Connected",
  disconnected: "Disconnected",
  token_refused: "Token refused",
  reconnect_requested: "Reconnect requested",
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
      return "High";
    case "YELLOW":
      return "Medium";
    case "RED":
      return "Low";
    default:
      return "Unknown";
  }
}

const TIERS: Record<string, string> = {
  TIER_50: "Tier 0: 50 a day",
  TIER_250: "Tier 0: 250 a day",
  TIER_1K: "Tier 1: 1,000 a day",
  TIER_2K: "Tier 1: 2,000 a day",
  TIER_10K: "Tier 2: 10,000 a day",
  TIER_100K: "Tier 3: 100,000 a day",
  TIER_UNLIMITED: "Unlimited",
};

/** A messaging limit tier in words: "Tier 1: 1,000 a day" (customers reached in 24 hours). */
export function tierWords(limit: string | null | undefined) {
  if (!limit) return "Unknown";
  return TIERS[limit.toUpperCase()] ?? limit;
}

/** The webhook column: subscribed or not, and whether anything arrived in the last 7 days. */
export function webhookWords(subscribed: boolean, lastWebhookAt: string | null, now = Date.now()) {
  if (!subscribed) return { tone: "danger" as const, label: "Not subscribed" };
  if (!lastWebhookAt) return { tone: "warning" as const, label: "Subscribed, none received" };
  const recent = now - new Date(lastWebhookAt).getTime() < 7 * 24 * 3600 * 1000;
  return recent ? { tone: "success" as const, label: "Active" } : { tone: "warning" as const, label: "Subscribed, quiet 7 days" };
}
