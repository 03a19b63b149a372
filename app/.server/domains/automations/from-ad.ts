import { sql } from "drizzle-orm";
import { db } from "../../infrastructure/db/client";
import { queryRow, queryRows } from "../../infrastructure/db/query";
import { referralOf } from "../ads";

/**
 * "Came from an ad" (issue 77): a rule may answer only the messages that came from a Click-to-WhatsApp
 * ad, any ad or one by its id (the message Meta sent right after the customer tapped it carries the
 * ad's `referral`, decision 154). Such a rule may have no keywords: it answers every message from the
 * ad, so a customer from an ad is welcomed with the ad's own reply or flow.
 */

/** The stored value of a rule that answers a message from any ad. */
export const ANY_AD = "any";
/** How many ads the rule form offers (the latest customers came from). */
const SEEN_ADS_MAX = 100;

/** What a rule's conditions read of a customer's message: its number and the message as Meta sent it. */
export interface RuleMessage {
  phoneNumberId: string;
  payload: unknown;
}

/** The rules that may answer this message, in their order: those of its number, and of its ad when they ask for one. */
export function rulesForMessage<Rule extends { phoneNumberId: string | null; fromAd: string | null }>(
  rules: readonly Rule[],
  message: RuleMessage,
): Rule[] {
  let ad: string | null | undefined;
  // Read once, and only when a rule asks (most rules do not).
  const adOf = () => (ad === undefined ? (ad = referralOf(message.payload)?.sourceId ?? null) : ad);
  return rules.filter(
    (r) => (r.phoneNumberId === null || r.phoneNumberId === message.phoneNumberId) && (r.fromAd === null || answersAd(r.fromAd, adOf())),
  );
}

/** Whether a rule kept to `fromAd` ("any" or an ad's id; null: every message) answers a message from `ad` (null: from no ad). */
export function answersAd(fromAd: string | null, ad: string | null) {
  return fromAd === null || (ad !== null && (fromAd === ANY_AD || fromAd === ad));
}

/** A rule for an ad's customers with no keywords answers every message from the ad. */
export const everyMessageFromAd = (rule: { fromAd: string | null; keywords: readonly string[] }) =>
  rule.fromAd !== null && rule.keywords.length === 0;

export interface SeenAd {
  sourceId: string;
  headline: string | null;
}

/** The ads customers came from so far (the latest first), each with its latest headline: what the rule form offers. */
export async function seenAds(organizationId: string): Promise<SeenAd[]> {
  const rows = await queryRows<{ source_id: string; headline: string | null }>(
    db(),
    sql`
    select source_id, headline from (
      select distinct on (source_id) source_id, headline, clicked_at from ad_referrals
      where organization_id = ${organizationId} order by source_id, clicked_at desc) latest
    order by clicked_at desc, source_id limit ${SEEN_ADS_MAX}`,
  );
  return rows.map((r) => ({ sourceId: r.source_id, headline: r.headline }));
}

/** Whether a customer of the organisation has come from this ad (a rule may only name an ad it has seen). */
export async function seenAd(organizationId: string, sourceId: string) {
  const row = await queryRow<{ seen: boolean }>(
    db(),
    sql`select exists (select 1 from ad_referrals where organization_id = ${organizationId} and source_id = ${sourceId}) as seen`,
  );
  return row?.seen === true;
}
