import { db, rawQuery } from "../db/client";
import { refreshLeftOut } from "./lifecycle";
import type { CampaignCounts } from "../db/schema/campaigns";

/** How stale a sending campaign's stored figures may be before a reader counts again. */
export const COUNTS_MAX_AGE_MS = 1000;

/**
 * A campaign's figures counted from its messages and recipients: waiting to leave (pending or
 * queued), sent (accepted by Meta), delivered, read, replied (within 72 hours of delivery) and failed.
 */
export async function finalCounts(campaignId: string): Promise<CampaignCounts> {
  const [row] = await rawQuery<CampaignCounts>(
    `select (select count(*)::int from campaign_recipients where campaign_id = $1 and state = 'pending')
              + count(*) filter (where m.status = 'queued' and m.accepted_at is null)::int as queued,
            count(*) filter (where m.accepted_at is not null)::int as sent,
            count(*) filter (where m.delivered_at is not null or m.read_at is not null)::int as delivered,
            count(*) filter (where m.read_at is not null)::int as read,
            (select count(*)::int from campaign_recipients where campaign_id = $1 and replied_at is not null) as replied,
            count(*) filter (where m.status = 'failed')::int as failed
     from messages m where m.campaign_id = $1`,
    [campaignId],
  );
  return row!;
}

const NONE: CampaignCounts = { queued: 0, sent: 0, delivered: 0, read: 0, replied: 0, failed: 0 };

/**
 * The figures a page shows: the stored ones while younger than `maxAgeMs`, else counted again and
 * stored, by one reader at a time across every instance (the others read what it stored). A
 * campaign's own page asks for a second's freshness; lists of ended ones can take a minute's.
 */
export async function campaignCounts(
  campaign: {
    id: string;
    status: string;
    started_at?: string | Date | null;
    counts: CampaignCounts | null;
    counted_at: string | Date | null;
  },
  maxAgeMs = COUNTS_MAX_AGE_MS,
): Promise<CampaignCounts> {
  if (!campaign.started_at && (campaign.status === "draft" || campaign.status === "scheduled")) return campaign.counts ?? NONE;
  const age = campaign.counted_at ? Date.now() - new Date(campaign.counted_at).getTime() : Infinity;
  if (campaign.counts && age < maxAgeMs) return campaign.counts;
  const claimed = await rawQuery<{ id: string }>(
    `update campaigns set counted_at = now() where id = $1 and (counted_at is null or counted_at < now() - make_interval(secs => $2::float8 / 1000))
     returning id`,
    [campaign.id, maxAgeMs],
  );
  if (!claimed.length && campaign.counts) return campaign.counts;
  const counts = await finalCounts(campaign.id);
  await rawQuery(`update campaigns set counts = $2::jsonb where id = $1`, [campaign.id, JSON.stringify(counts)]);
  await refreshLeftOut(db(), campaign.id);
  return counts;
}
