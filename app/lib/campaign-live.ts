import { m } from "~/paraglide/messages";

/** What a campaign's page updates live: its status, figures and notices (the events route sends them as JSON). */
export interface LiveFigures {
  status: string;
  counts: { queued: number; sent: number; delivered: number; read: number; replied: number; failed: number };
  pausedReason: string | null;
  notice: string | null;
}

export const liveFiguresOf = (view: LiveFigures): LiveFigures => ({
  status: view.status,
  counts: view.counts,
  pausedReason: view.pausedReason,
  notice: view.notice,
});

/** How far a campaign has got: those no longer waiting, of those it will reach. */
export function progressOf(counts: LiveFigures["counts"], recipients: number | null) {
  const of = recipients ?? counts.queued + counts.sent + counts.failed;
  const done = Math.max(of - counts.queued, 0);
  return { done: Math.min(done, of), of };
}

export const LIVE_STATUSES = ["sending", "scheduled"];

/**
 * How long after it ends a campaign's page keeps following its figures (decision 049): Meta's
 * delivered and read statuses keep arriving for hours after the last message left. Within it the
 * stream goes on while any message can still change status; after it a reload shows the figures.
 */
export const FOLLOW_AFTER_END_MS = 24 * 3600_000;

/** Whether a campaign that ended at `finishedAt` is still followed live (null: it has not ended). */
export const followedAfterEnd = (finishedAt: string | Date | null, now = Date.now()) =>
  !!finishedAt && now - new Date(finishedAt).getTime() < FOLLOW_AFTER_END_MS;

const ENDED = ["completed", "cancelled", "failed"];

/**
 * Whether a campaign's figures are followed live, on its page and in the lists: past its draft, and
 * not ended, or ended within FOLLOW_AFTER_END_MS (decision 049).
 */
export const followsLive = (campaign: { status: string; finishedAt: string | Date | null }, now = Date.now()) =>
  campaign.status !== "draft" && (!ENDED.includes(campaign.status) || followedAfterEnd(campaign.finishedAt, now));

/**
 * Whether a page without JavaScript refreshes itself for a campaign: while it sends or waits for
 * its time, and for a minute after it ends, when most of Meta's statuses for its last messages arrive.
 */
export const REFRESH_AFTER_END_MS = 60_000;
export const refreshesWithoutScript = (campaign: { status: string; finishedAt: string | Date | null }, now = Date.now()) =>
  LIVE_STATUSES.includes(campaign.status) ||
  (ENDED.includes(campaign.status) && !!campaign.finishedAt && now - new Date(campaign.finishedAt).getTime() < REFRESH_AFTER_END_MS);

// Functions, not words: each is said in the request's language when it is called.
const STATUS_WORDS: Record<string, () => string> = {
  draft: m.messaging_status_draft,
  awaiting_approval: m.messaging_status_awaiting_approval,
  scheduled: m.messaging_status_scheduled,
  sending: m.messaging_status_sending,
  paused: m.messaging_status_paused,
  completed: m.messaging_status_completed,
  cancelled: m.messaging_status_cancelled,
  failed: m.messaging_status_failed,
};

/** A campaign's status in words ("Awaiting approval"); a declined one shows as Declined rather than Cancelled. */
export function statusWords(status: string, declined?: "declined" | null) {
  if (declined && status === "cancelled") return m.messaging_status_declined();
  const words = STATUS_WORDS[status];
  return words ? words() : status.charAt(0).toUpperCase() + status.slice(1);
}

// The campaigns' statuses and a recipient's results: the domain (app/.server/domains/campaigns) and the
// pages' components read the same lists.
export const CAMPAIGN_STATUSES = [
  "draft",
  "awaiting_approval",
  "scheduled",
  "sending",
  "paused",
  "completed",
  "cancelled",
  "failed",
] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];
export const STATUS_CHOICES = CAMPAIGN_STATUSES;
export const ENDED_CHOICES = ["completed", "cancelled", "failed"] as const satisfies readonly CampaignStatus[];
export const RECIPIENT_RESULTS = ["waiting", "sent", "delivered", "read", "replied", "failed", "left_out"] as const;
export type RecipientResult = (typeof RECIPIENT_RESULTS)[number];
export const RESULT_CHOICES = RECIPIENT_RESULTS;
