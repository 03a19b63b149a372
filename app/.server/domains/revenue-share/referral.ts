import { sql } from "drizzle-orm";
import type { Executor } from "../../infrastructure/db/client";
import { queryRow } from "../../infrastructure/db/query";
import { holdForReview, selfReferralMatches } from "./self-referral";

/**
 * Referral attribution at sign-up (issue 46, decision 087): `/signup?ref=CODE` carries the partner's
 * code into the sign-up's post, and the organisation the sign-up creates is attributed to the active
 * partner with that code, in the same transaction. A code that names no active partner (unknown,
 * pending, suspended, malformed) is ignored: a sign-up never fails because of its link. A sign-up
 * that shares a phone, an e-mail domain or a KRA PIN with the partner is not attributed: it waits
 * for a platform administrator's review (decision 104, self-referral.ts).
 */

/** A referral code as a link carries it: letters and digits, compared upper-case; anything else is no code. */
export function referralCode(value: unknown): string | null {
  if (typeof value !== "string") return null;
  const code = value.trim().toUpperCase();
  return /^[A-Z0-9]{3,32}$/.test(code) ? code : null;
}

export type ReferralOutcome = "attributed" | "review" | "none";

/**
 * Attributes `organizationId` to the active partner whose code is `code` (any case), unless it is
 * already attributed (at most once: the partial unique index on current attributions), the partner
 * is the organisation itself, or the organisation looks like the partner's own (then it is held for
 * review, attributed to nobody). Answers what was done.
 */
export async function referOrganisation(executor: Executor, organizationId: string, code: unknown): Promise<ReferralOutcome> {
  const ref = referralCode(code);
  if (!ref) return "none";
  const partner = await queryRow<{ id: string }>(
    executor,
    sql`select p.id from partners p
        where upper(p.code) = ${ref} and p.status = 'active' and p.organization_id <> ${organizationId}::uuid
          and not exists (select 1 from partner_attributions a where a.organization_id = ${organizationId}::uuid)
          and not exists (select 1 from partner_referral_reviews r where r.organization_id = ${organizationId}::uuid)`,
  );
  if (!partner) return "none";
  const matches = await selfReferralMatches(executor, partner.id, organizationId);
  if (matches.length) {
    await holdForReview(executor, partner.id, organizationId, matches);
    return "review";
  }
  const inserted = await queryRow(
    executor,
    sql`insert into partner_attributions (partner_id, organization_id, source)
        values (${partner.id}, ${organizationId}::uuid, 'referral')
        on conflict do nothing returning id`,
  );
  return inserted ? "attributed" : "none";
}

/** Whether `organizationId` was attributed to the partner with `code` (referOrganisation's "attributed"). */
export async function attributeReferral(executor: Executor, organizationId: string, code: unknown): Promise<boolean> {
  return (await referOrganisation(executor, organizationId, code)) === "attributed";
}

/** What a sign-up with `code` does in its transaction once its organisation exists (auth's `withOrganisation`). */
export function referralAttribution(code: unknown) {
  return (executor: Executor, organizationId: string) => referOrganisation(executor, organizationId, code);
}
