import { sql } from "drizzle-orm";
import { formatNumber as grouped } from "~/lib/dates";
import { queryRows } from "../../infrastructure/db/query";
import type { Executor } from "../../infrastructure/db/client";

/**
 * What happened to a campaign, in the words its "finished" notification and activity line use:
 * "45 sent, 2 failed (1 not reachable on WhatsApp, 1 held back by Meta's marketing limit), 3 left out".
 * Counted from the database when it finishes. A message Meta accepted can still fail later (the
 * status arrives after), so the texts say these are the figures at that moment; the page recounts.
 */
export interface CampaignOutcome {
  /** Accepted by Meta and not failed since. */
  sent: number;
  failed: number;
  /** The failures by reason, in short words, most first. */
  failedBy: { words: string; count: number }[];
  /** People in the audience who were never sent it (not opted in, no valid number, cancelled...). */
  leftOut: number;
}

// Short words for a count beside them; failure-words.ts has the full sentence for one recipient.
const FAILED_BY_CODE: Record<number, string> = {
  190: "WhatsApp account needs reconnecting",
  470: "outside the 24-hour window",
  130429: "sent too fast",
  131021: "sent to its own number",
  131026: "not reachable on WhatsApp",
  131042: "WhatsApp payment method needs attention",
  131047: "outside the 24-hour window",
  131048: "number slowed down after reports",
  131049: "held back by Meta's marketing limit",
  131050: "turned off marketing messages",
  131052: "media problem",
  131053: "media problem",
  131056: "too many messages to one person",
  132000: "template problem",
  132001: "template problem",
  132005: "template problem",
  132007: "template problem",
  132012: "template problem",
  132015: "template problem",
  132016: "template problem",
  132018: "template problem",
  133010: "sending number not registered",
};
const FAILED_BY_TITLE: Record<string, string> = {
  whatsapp_reconnect_needed: "WhatsApp account needs reconnecting",
  messaging_limit_reached: "messaging limit reached",
  number_not_connected: "number disconnected",
  not_opted_in: "not opted in",
  organization_closing: "organisation closing",
};

export function failedInShortWords(code: number | null, title: string | null): string {
  if (code !== null && FAILED_BY_CODE[code]) return FAILED_BY_CODE[code];
  if (title && FAILED_BY_TITLE[title]) return FAILED_BY_TITLE[title];
  return "other errors";
}

/** The campaign's outcome counted now (inside the caller's transaction when it passes one). */
export async function campaignOutcome(executor: Executor, campaignId: string): Promise<CampaignOutcome> {
  const result = await queryRows<{ kind: string; error_code: number | string | null; error_title: string | null; n: number | string }>(
    executor,
    sql`
    select 'failed' as kind, m.error_code, m.error_title, count(*)::int as n
      from messages m where m.campaign_id = ${campaignId} and m.status = 'failed' group by m.error_code, m.error_title
    union all
    select 'sent', null, null, count(*)::int from messages m
      where m.campaign_id = ${campaignId} and m.accepted_at is not null and m.status <> 'failed'
    union all
    select 'left_out', null, null, count(*)::int from campaign_recipients r where r.campaign_id = ${campaignId} and r.state = 'left_out'`,
  );
  const outcome: CampaignOutcome = { sent: 0, failed: 0, failedBy: [], leftOut: 0 };
  const byWords = new Map<string, number>();
  for (const row of result) {
    const n = Number(row.n);
    if (row.kind === "sent") outcome.sent = n;
    else if (row.kind === "left_out") outcome.leftOut = n;
    else {
      outcome.failed += n;
      const words = failedInShortWords(row.error_code === null ? null : Number(row.error_code), row.error_title);
      byWords.set(words, (byWords.get(words) ?? 0) + n);
    }
  }
  outcome.failedBy = [...byWords]
    .map(([words, count]) => ({ words, count }))
    .sort((a, b) => b.count - a.count || a.words.localeCompare(b.words));
  return outcome;
}

/** "45 sent, 2 failed (1 not reachable on WhatsApp, 1 sent too fast), 3 left out". */
export function outcomeInWords(outcome: CampaignOutcome): string {
  const parts = [`${grouped(outcome.sent)} sent`];
  if (outcome.failed)
    parts.push(`${grouped(outcome.failed)} failed (${outcome.failedBy.map((f) => `${grouped(f.count)} ${f.words}`).join(", ")})`);
  else parts.push("none failed");
  if (outcome.leftOut) parts.push(`${grouped(outcome.leftOut)} left out`);
  return parts.join(", ");
}
