import { sql } from "drizzle-orm";
import type { Executor } from "../../infrastructure/db/client";
import { countAffected } from "../../infrastructure/db/query";

/**
 * Referral attribution at sign-up (issue 46, decision 087): `/signup?ref=CODE` carries the partner's
 * code into the sign-up's post, and the organisation the sign-up creates is attributed to the active
 * partner with that code, in the same transaction. A code that names no active partner (unknown,
 * pending, suspended, malformed) is ignored: a sign-up never fails because of its link.
 */

/** A referral code as a link carries it: letters and digits, compared upper-case; anything else is no code. */
export function referralCode(value: unknown): string | null {
  if (typeof value !== "string") return null;
  const code = value.trim().toUpperCase();
  return /^[A-Z0-9]{3,32}$/.test(code) ? code : null;
}

/**
 * Attributes `organizationId` to the active partner whose code is `code` (any case), unless it is
 * already attributed (at most once: the partial unique index on current attributions) or the
 * partner is the organisation itself. Answers whether it was attributed.
 */
export async function attributeReferral(executor: Executor, organizationId: string, code: unknown): Promise<boolean> {
  const ref = referralCode(code);
  if (!ref) return false;
  const inserted = await countAffected(
    executor,
    sql`
    insert into partner_attributions (partner_id, organization_id, source)
    select p.id, ${organizationId}::uuid, 'referral' from partners p
    where upper(p.code) = ${ref} and p.status = 'active' and p.organization_id <> ${organizationId}::uuid
      and not exists (select 1 from partner_attributions a where a.organization_id = ${organizationId}::uuid)
    on conflict do nothing`,
  );
  return inserted > 0;
}

/** What a sign-up with `code` does in its transaction once its organisation exists (auth's `withOrganisation`). */
export function referralAttribution(code: unknown) {
  return (executor: Executor, organizationId: string) => attributeReferral(executor, organizationId, code);
}
