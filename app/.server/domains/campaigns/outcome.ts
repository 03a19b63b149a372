import { sql } from "drizzle-orm";
import { baseLocale } from "~/paraglide/runtime";
import { queryRows } from "../../infrastructure/db/query";
import type { Executor } from "../../infrastructure/db/client";
import { sayIn, words, type MessageKey, type Said } from "../../infrastructure/words/said";

type FailureKey = MessageKey & `app_notice_failure_${string}`;

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
  /** The failures by reason, as the message of their short words, most first. */
  failedBy: { words: FailureKey; count: number }[];
  /** People in the audience who were never sent it (not opted in, no valid number, cancelled...). */
  leftOut: number;
}

// Short words for a count beside them, as messages (said in each reader's language in the
// "finished" notification, in English in the activity log); failure-words.ts has the full sentence
// for one recipient.
const FAILED_BY_CODE: Record<number, FailureKey> = {
  190: "app_notice_failure_reconnect",
  470: "app_notice_failure_window",
  130429: "app_notice_failure_too_fast",
  131021: "app_notice_failure_own_number",
  131026: "app_notice_failure_unreachable",
  131042: "app_notice_failure_payment_method",
  // A campaign sends templates: Meta's "Re-engagement message" refused one (decision 114), not a free-form reply.
  131047: "app_notice_failure_reengagement",
  131048: "app_notice_failure_slowed",
  131049: "app_notice_failure_marketing_limit",
  131050: "app_notice_failure_marketing_off",
  131052: "app_notice_failure_media",
  131053: "app_notice_failure_media",
  131056: "app_notice_failure_too_many",
  132000: "app_notice_failure_template",
  132001: "app_notice_failure_template",
  132005: "app_notice_failure_template",
  132007: "app_notice_failure_template",
  132012: "app_notice_failure_template",
  132015: "app_notice_failure_template",
  132016: "app_notice_failure_template",
  132018: "app_notice_failure_template",
  133010: "app_notice_failure_not_registered",
};
const FAILED_BY_TITLE: Record<string, FailureKey> = {
  whatsapp_reconnect_needed: "app_notice_failure_reconnect",
  messaging_limit_reached: "app_notice_failure_limit_reached",
  number_not_connected: "app_notice_failure_disconnected",
  not_opted_in: "app_notice_failure_not_opted_in",
  organization_closing: "app_notice_failure_closing",
};

/** The message of a failure's short words, by Meta's code or Jumbe's own title. */
export function failedInShortWords(code: number | null, title: string | null): FailureKey {
  if (code !== null && FAILED_BY_CODE[code]) return FAILED_BY_CODE[code];
  if (title && FAILED_BY_TITLE[title]) return FAILED_BY_TITLE[title];
  return "app_notice_failure_other";
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
  const byWords = new Map<FailureKey, number>();
  for (const row of result) {
    const n = Number(row.n);
    if (row.kind === "sent") outcome.sent = n;
    else if (row.kind === "left_out") outcome.leftOut = n;
    else {
      outcome.failed += n;
      const key = failedInShortWords(row.error_code === null ? null : Number(row.error_code), row.error_title);
      byWords.set(key, (byWords.get(key) ?? 0) + n);
    }
  }
  // Ties in the order of their English words, whatever the language they are said in.
  const english = (key: FailureKey) => sayIn(baseLocale, words(key)) ?? key;
  outcome.failedBy = [...byWords]
    .map(([key, count]) => ({ words: key, count }))
    .sort((a, b) => b.count - a.count || english(a.words).localeCompare(english(b.words)));
  return outcome;
}

/**
 * "45 sent, 2 failed (1 not reachable on WhatsApp, 1 sent too fast), 3 left out" as messages: the
 * counts stay numbers, grouped for the language they are said in.
 */
export function outcomeWords(outcome: CampaignOutcome): Said {
  const parts: Said[] = [words("app_notice_outcome_sent", { count: outcome.sent })];
  if (outcome.failed) parts.push(words("app_notice_outcome_failed", { count: outcome.failed, reasons: failedByWords(outcome.failedBy) }));
  else parts.push(words("app_notice_outcome_none_failed"));
  if (outcome.leftOut) parts.push(words("app_notice_outcome_left_out", { count: outcome.leftOut }));
  return { list: parts };
}

/** "2 not reachable on WhatsApp, 1 held back by Meta's marketing limit": failures by reason, as messages. */
export function failedByWords(failedBy: CampaignOutcome["failedBy"]): Said {
  return { list: failedBy.map((f) => words("app_notice_outcome_failed_by", { count: f.count, reason: words(f.words) })) };
}

/** The outcome in English, as the activity log keeps it. */
export function outcomeInWords(outcome: CampaignOutcome): string {
  return sayIn(baseLocale, outcomeWords(outcome))!;
}
