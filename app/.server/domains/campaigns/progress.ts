import { sql } from "drizzle-orm";
import { rawQuery, type Executor } from "../../infrastructure/db/client";
import type { CampaignCounts, LeftOutReason } from "../../infrastructure/db/schema/campaigns";

/** How stale a campaign's figures may be before they are counted again: a second at least. */
export const COUNTS_MAX_AGE_MS = 1000;
/** The feeder counts a sending campaign again at most this far apart (refreshSendingFigures). */
const FEEDER_MAX_AGE_MS = 5000;
/** Messages a second of counting pays for: each 20,000 in a campaign adds a second to its interval. */
const MESSAGES_PER_COUNTING_SECOND = 20_000;
/**
 * How long past the feeder's interval a reader waits before counting a sending campaign itself (the
 * feeder is then late or not running): counting a campaign of 100,000 takes 100 ms or more, which a
 * page should not wait for while a feeder keeps the figures fresh.
 */
const READER_GRACE_MS = 2000;

/**
 * How often the feeder counts a sending campaign's figures again: each second up to 20,000 messages,
 * then a second more for each 20,000 (every 5 s from 80,000). Counting reads every message of the
 * campaign: at 100,000, once a second took 185 ms of the database's time a second (15% of it while
 * the campaign sent, decision 027); the figures of a campaign that large move by thousands a second
 * and still look live.
 */
export function feederMaxAgeMs(counts: CampaignCounts | null | undefined): number {
  const messages = counts ? counts.queued + counts.sent + counts.failed : 0;
  return Math.min(FEEDER_MAX_AGE_MS, Math.max(COUNTS_MAX_AGE_MS, Math.ceil(messages / MESSAGES_PER_COUNTING_SECOND) * 1000));
}

/**
 * An ended campaign's figures are counted again as soon as a status or reply of one of its messages
 * arrives (figuresMoved), and otherwise at most once a minute, in case something moved them that
 * does not say so.
 */
const ENDED_MAX_AGE_MS = 60_000;
const ENDED = ["completed", "cancelled", "failed"];

/**
 * How stale a reader may find a campaign's figures: a sending one's are the feeder's to keep fresh
 * (its interval and a grace); an ended one's are counted again when a status arrives (or after a
 * minute); any other's (paused, scheduled) after a second. Every reader (the campaign's page, its
 * live stream, the Campaigns tab, Broadcast History) asks the same, so they show the same figures
 * at any moment (decision 049).
 */
export const readerMaxAgeMs = (campaign: { status: string; counts: CampaignCounts | null }) =>
  campaign.status === "sending"
    ? feederMaxAgeMs(campaign.counts) + READER_GRACE_MS
    : ENDED.includes(campaign.status)
      ? ENDED_MAX_AGE_MS
      : COUNTS_MAX_AGE_MS;

/**
 * A status (delivered, read, failed) or a reply moved these campaigns' figures: the stored ones are
 * out of date, and the next reader counts them again (counted_at null is "never counted"). In the
 * writer's transaction, so a count that starts after it commits sees the status; a count running
 * meanwhile holds the row, and this waits for it and then marks it again.
 *
 * A sending campaign is left alone: its figures are the feeder's, counted every second or more
 * (a mark on each of its thousands of statuses would have every reader count it). Marking only a
 * row counted since its last mark keeps it to one write per count, whatever the number of statuses.
 */
export async function figuresMoved(tx: Executor, campaignIds: (string | null | undefined)[]) {
  const ids = [...new Set(campaignIds.filter((id): id is string => !!id))];
  if (!ids.length) return;
  await tx.execute(sql`
    update campaigns set counted_at = null
    where id = any(${sql.param(ids)}::uuid[]) and status <> 'sending' and counted_at is not null`);
}

/**
 * Whether any of a campaign's messages can still change status: sent or delivered and not read (a
 * read or failed message has reached its end). A campaign's page follows its figures after it ends
 * while this holds (decision 049).
 */
export async function statusesMayMove(campaignId: string): Promise<boolean> {
  const [row] = await rawQuery<{ moving: boolean }>(
    `select exists (select 1 from messages where campaign_id = $1 and status <> 'failed' and read_at is null) as moving`,
    [campaignId],
  );
  return !!row?.moving;
}

/**
 * After this long past its end a campaign's figures are final: replies count within 72 hours of
 * delivery and late read receipts stop well before; it is counted once more after it and never again.
 */
const FINAL_AFTER = "7 days";

/**
 * The figures of the campaign whose id is `$id`, as one jsonb: waiting to leave (pending or queued),
 * sent (accepted by Meta), delivered, read, replied (within 72 hours of delivery) and failed.
 */
const countsOf = (id: string) => `(
  select jsonb_build_object(
    'queued', (select count(*)::int from campaign_recipients where campaign_id = ${id} and state = 'pending')
                + count(*) filter (where m.accepted_at is null and m.failed_at is null)::int,
    'sent', count(*) filter (where m.accepted_at is not null)::int,
    'delivered', count(*) filter (where m.delivered_at is not null or m.read_at is not null)::int,
    'read', count(*) filter (where m.read_at is not null)::int,
    'replied', (select count(*)::int from campaign_recipients where campaign_id = ${id} and replied_at is not null),
    'failed', count(*) filter (where m.status = 'failed')::int)
  from messages m where m.campaign_id = ${id})`;

/** Who was left out, by reason, counted from the recipient rows (duplicates never became rows). */
export const leftOutOf = (id: string) => `coalesce(
  (select jsonb_object_agg(x.reason, x.n) from (
     select reason, count(*)::int as n from campaign_recipients where campaign_id = ${id} and state = 'left_out' group by reason) x),
  '{}'::jsonb)`;

/** A campaign's figures counted now from its messages and recipients. */
export async function finalCounts(campaignId: string): Promise<CampaignCounts> {
  const [row] = await rawQuery<{ counts: CampaignCounts }>(`select ${countsOf("$1")} as counts`, [campaignId]);
  return row!.counts;
}

interface Counted {
  id: string;
  status: string;
  started_at?: string | Date | null;
  finished_at?: string | Date | null;
  counts: CampaignCounts | null;
  counted_at: string | Date | null;
  left_out?: Partial<Record<LeftOutReason, number>> | null;
}
export interface Figures {
  counts: CampaignCounts;
  leftOut: Partial<Record<LeftOutReason, number>>;
}

const NONE: CampaignCounts = { queued: 0, sent: 0, delivered: 0, read: 0, replied: 0, failed: 0 };
const notStarted = (c: Counted) => !c.started_at && ["draft", "scheduled", "awaiting_approval"].includes(c.status);
const FINAL_AFTER_MS = 7 * 24 * 3600_000;
/** Counted once after its figures became final: never counted again. */
const final = (c: Counted) =>
  !!c.finished_at && !!c.counted_at && new Date(c.counted_at).getTime() >= new Date(c.finished_at).getTime() + FINAL_AFTER_MS;

/**
 * The figures pages show, for a page of campaigns in one statement: each campaign's stored figures
 * while younger than its `maxAgeMs`, else counted again and stored. Across every instance one reader
 * at a time counts a campaign (the row is locked, the others skip it and show what is stored). A
 * campaign's own page asks for a second's freshness; lists of ended ones can take a minute's.
 */
export async function campaignFigures(campaigns: { row: Counted; maxAgeMs: number }[]): Promise<Map<string, Figures>> {
  const figures = new Map<string, Figures>();
  const stale: { id: string; maxAgeMs: number }[] = [];
  for (const { row, maxAgeMs } of campaigns) {
    figures.set(row.id, { counts: row.counts ?? NONE, leftOut: row.left_out ?? {} });
    if (notStarted(row) || final(row)) continue;
    const age = row.counted_at ? Date.now() - new Date(row.counted_at).getTime() : Infinity;
    if (!row.counts || age >= maxAgeMs) stale.push({ id: row.id, maxAgeMs });
  }
  if (!stale.length) return figures;
  const counted = await rawQuery<{ id: string; counts: CampaignCounts; left_out: Partial<Record<LeftOutReason, number>> }>(
    `update campaigns c
        set counts = x.counts, counted_at = now(),
            left_out = x.left_out || jsonb_strip_nulls(jsonb_build_object('duplicate', c.left_out -> 'duplicate'))
       from (select s.id from campaigns s join unnest($1::uuid[], $2::float8[]) as w(id, max_age_ms) on w.id = s.id
              where (s.counts is null or s.counted_at is null or s.counted_at < now() - make_interval(secs => w.max_age_ms / 1000))
                and (s.finished_at is null or s.counted_at is null or s.counted_at < s.finished_at + interval '${FINAL_AFTER}')
              for update of s skip locked) d
       cross join lateral (select ${countsOf("d.id")} as counts, ${leftOutOf("d.id")} as left_out) x
      where c.id = d.id
      returning c.id, c.counts, c.left_out`,
    [stale.map((s) => s.id), stale.map((s) => s.maxAgeMs)],
  );
  for (const row of counted) figures.set(row.id, { counts: row.counts, leftOut: row.left_out ?? {} });
  return figures;
}

/** One campaign's figures (see campaignFigures). */
export async function campaignCounts(campaign: Counted, maxAgeMs = COUNTS_MAX_AGE_MS): Promise<CampaignCounts> {
  return (await campaignFigures([{ row: campaign, maxAgeMs }])).get(campaign.id)!.counts;
}

/**
 * Counts every sending campaign's figures again once they are older than its interval
 * (feederMaxAgeMs; the campaign feeder calls it each round), so that readers find them fresh.
 * Across instances one counts each campaign.
 */
export async function refreshSendingFigures() {
  const rows = await rawQuery<Counted>(
    `select id, status, started_at, finished_at, counts, counted_at, left_out from campaigns
     where status = 'sending' and (counted_at is null or counted_at < now() - make_interval(secs => $1::float8 / 1000))
     limit 100`,
    [COUNTS_MAX_AGE_MS],
  );
  if (rows.length) await campaignFigures(rows.map((row) => ({ row, maxAgeMs: feederMaxAgeMs(row.counts) })));
}
