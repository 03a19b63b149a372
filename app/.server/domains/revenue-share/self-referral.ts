import { sql } from "drizzle-orm";
import { db, type Executor } from "../../infrastructure/db/client";
import { queryRow, queryRows } from "../../infrastructure/db/query";
import { isUuid } from "../../infrastructure/db/keyset";
import { Refusal, type RefusalStatus } from "../../infrastructure/refusal";
import type { RequestMeta } from "../../infrastructure/http/request-meta";
import type { PlatformScope } from "../../infrastructure/db/scope";
import type { ReferralMatchField } from "../../infrastructure/db/schema/revenue-share";
import { recordAdminAction } from "../admin";
import type { CurrentUser } from "../auth";
import { normalizePhone } from "~/lib/phone";
import { m } from "~/paraglide/messages";

/**
 * Self-referral (issue 72, decision 104): a referral whose organisation shares a phone, an e-mail
 * domain or a KRA PIN with its partner (the partner's organisation, its members, its M-Pesa number)
 * is not attributed. It waits as a review for a platform administrator, who approves it (the
 * attribution starts then, never before: shares are never retroactive, decision 086) or rejects it
 * with a reason. Both are in the admin audit log; the partner sees only that a referral is under review.
 */

/**
 * Webmail anyone can sign up to: two people sharing one of these domains say nothing about being the
 * same business. The one list; a domain not here is taken as an organisation's own.
 */
export const PUBLIC_EMAIL_DOMAINS: ReadonlySet<string> = new Set([
  "gmail.com",
  "googlemail.com",
  "yahoo.com",
  "yahoo.co.uk",
  "yahoo.fr",
  "ymail.com",
  "rocketmail.com",
  "outlook.com",
  "hotmail.com",
  "hotmail.co.uk",
  "hotmail.fr",
  "live.com",
  "msn.com",
  "icloud.com",
  "me.com",
  "mac.com",
  "aol.com",
  "proton.me",
  "protonmail.com",
  "pm.me",
  "gmx.com",
  "gmx.net",
  "mail.com",
  "zoho.com",
  "zohomail.com",
  "yandex.com",
  "yandex.ru",
  "tutanota.com",
  "fastmail.com",
  "hey.com",
  "orange.fr",
  "laposte.net",
  "free.fr",
  "wanadoo.fr",
]);

/** An e-mail's domain, lower case; null for a public webmail domain or no domain at all. */
export function organisationDomain(email: string | null | undefined): string | null {
  const at = (email ?? "").trim().toLowerCase().lastIndexOf("@");
  if (at < 1) return null;
  const domain = (email ?? "")
    .trim()
    .toLowerCase()
    .slice(at + 1)
    .replace(/\.$/, "");
  if (!/^[a-z0-9.-]+\.[a-z]{2,}$/.test(domain) || PUBLIC_EMAIL_DOMAINS.has(domain)) return null;
  return domain;
}

/** A phone number as one value to compare: E.164 (+254712345678), Kenyan when it has no country code. */
function phoneOf(phone: string | null | undefined): string | null {
  if (!phone) return null;
  const digits = phone.replace(/\D/g, "");
  // M-Pesa numbers are stored as 2547XXXXXXXX, without the plus.
  return normalizePhone(/^254\d{9}$/.test(digits) ? `+${digits}` : phone, "KE");
}

/** Who one side of a referral is: the phones, e-mails and KRA PINs it is known by. */
export interface Identity {
  phones: (string | null)[];
  emails: (string | null)[];
  kraPins: (string | null)[];
}

export interface ReferralMatch {
  field: ReferralMatchField;
  value: string;
}

/** What the client shares with the partner, each field and value once (phones as E.164, domains, PINs upper-case). */
export function sharedIdentity(partner: Identity, client: Identity): ReferralMatch[] {
  const set = <T>(values: T[], key: (v: T) => string | null) => new Set(values.map(key).filter((v): v is string => !!v));
  const pin = (v: string | null) => (v ? v.trim().toUpperCase() || null : null);
  const pairs: [ReferralMatchField, Set<string>, Set<string>][] = [
    ["phone", set(partner.phones, phoneOf), set(client.phones, phoneOf)],
    ["email_domain", set(partner.emails, organisationDomain), set(client.emails, organisationDomain)],
    ["kra_pin", set(partner.kraPins, pin), set(client.kraPins, pin)],
  ];
  return pairs.flatMap(([field, theirs, ours]) => [...ours].filter((value) => theirs.has(value)).map((value) => ({ field, value })));
}

/** A partner's identity: its organisation's members and KRA PIN, and the partner's own M-Pesa number and PIN. */
async function partnerIdentity(executor: Executor, partnerId: string): Promise<Identity> {
  const row = await queryRow<{ phones: (string | null)[]; emails: string[]; pins: (string | null)[] }>(
    executor,
    sql`select array(select u.phone_number from users u where u.organization_id = p.organization_id) || array[p.mpesa_phone] as phones,
               array(select u.email from users u where u.organization_id = p.organization_id) as emails,
               array[p.kra_pin, o.kra_pin] as pins
        from partners p left join organizations o on o.id = p.organization_id where p.id = ${partnerId}`,
  );
  return { phones: row?.phones ?? [], emails: row?.emails ?? [], kraPins: row?.pins ?? [] };
}

/** An organisation's identity: its members' phones and e-mails, its KRA PIN. */
async function organisationIdentity(executor: Executor, organizationId: string): Promise<Identity> {
  const row = await queryRow<{ phones: (string | null)[]; emails: string[]; pins: (string | null)[] }>(
    executor,
    sql`select array(select u.phone_number from users u where u.organization_id = o.id) as phones,
               array(select u.email from users u where u.organization_id = o.id) as emails,
               array[o.kra_pin] as pins
        from organizations o where o.id = ${organizationId}`,
  );
  return { phones: row?.phones ?? [], emails: row?.emails ?? [], kraPins: row?.pins ?? [] };
}

/** What the client shares with the partner, read in `executor`'s transaction. */
export async function selfReferralMatches(executor: Executor, partnerId: string, organizationId: string) {
  return sharedIdentity(await partnerIdentity(executor, partnerId), await organisationIdentity(executor, organizationId));
}

/** Keeps a referral for review instead of attributing it; an open review for the organisation gains the new matches. */
export async function holdForReview(executor: Executor, partnerId: string, organizationId: string, matches: ReferralMatch[]) {
  await executor.execute(sql`
    insert into partner_referral_reviews (partner_id, organization_id, matches)
    values (${partnerId}, ${organizationId}, ${JSON.stringify(matches)}::jsonb)
    on conflict (organization_id) where status = 'pending'
    do update set matches = (select coalesce(jsonb_agg(distinct e), '[]'::jsonb)
                             from jsonb_array_elements(partner_referral_reviews.matches || excluded.matches) e)`);
}

/**
 * An organisation's KRA PIN was set (Organisation settings): if a partner's referral brought it and
 * the PIN is the partner's own (or its organisation's), the attribution ends now and the referral
 * waits for review as one flagged at sign-up does. Its payments before now stay counted; an
 * administrator's assignment is a decision already taken and is left alone. Answers whether it was flagged.
 */
export async function reviewReferralOnKraPin(executor: Executor, organizationId: string, kraPin: string | null) {
  if (!kraPin) return false;
  const current = await queryRow<{ id: string | number; partner_id: string }>(
    executor,
    sql`select a.id, a.partner_id from partner_attributions a join partners p on p.id = a.partner_id
        left join organizations po on po.id = p.organization_id
        where a.organization_id = ${organizationId} and a.ended_at is null and a.source = 'referral'
          and (upper(p.kra_pin) = upper(${kraPin}) or upper(po.kra_pin) = upper(${kraPin}))
        for update of a`,
  );
  if (!current) return false;
  await executor.execute(sql`update partner_attributions set ended_at = now() where id = ${current.id}`);
  await holdForReview(executor, current.partner_id, organizationId, [{ field: "kra_pin", value: kraPin.toUpperCase() }]);
  return true;
}

export interface ReferralReviewRow {
  id: string;
  partnerId: string;
  partnerName: string;
  organizationId: string;
  organizationName: string;
  /** The client's owner's e-mail, so the administrator knows whom they decide about. */
  ownerEmail: string | null;
  matches: ReferralMatch[];
  createdAt: string;
}

/** The referrals waiting for a platform administrator, oldest first (at most 100). */
export async function referralReviews(_scope: PlatformScope): Promise<ReferralReviewRow[]> {
  const rows = await queryRows<{
    id: string;
    partner_id: string;
    partner_name: string;
    organization_id: string;
    organization_name: string | null;
    owner_email: string | null;
    matches: ReferralMatch[] | string;
    created_at: string | Date;
  }>(
    db(),
    sql`select r.id, r.partner_id, p.name as partner_name, r.organization_id, o.name as organization_name,
               (select u.email from users u where u.organization_id = r.organization_id and u.org_role = 'owner' limit 1) as owner_email,
               r.matches, r.created_at
        from partner_referral_reviews r join partners p on p.id = r.partner_id left join organizations o on o.id = r.organization_id
        where r.status = 'pending' order by r.created_at, r.id limit 100`,
  );
  return rows.map((r) => ({
    id: r.id,
    partnerId: r.partner_id,
    partnerName: r.partner_name,
    organizationId: r.organization_id,
    organizationName: r.organization_name ?? "—",
    ownerEmail: r.owner_email,
    matches: typeof r.matches === "string" ? (JSON.parse(r.matches) as ReferralMatch[]) : r.matches,
    createdAt: new Date(r.created_at).toISOString(),
  }));
}

/** A partner's own referrals under review: when each signed up, nothing about who (decision 104). */
export async function ownReferralsUnderReview(partnerId: string) {
  const rows = await queryRows<{ id: string; created_at: string | Date }>(
    db(),
    sql`select id, created_at from partner_referral_reviews where partner_id = ${partnerId} and status = 'pending'
        order by created_at desc, id limit 50`,
  );
  return rows.map((r) => ({ id: r.id, since: new Date(r.created_at).toISOString() }));
}

const refuse = (status: RefusalStatus, message: string, field?: string, code?: string) =>
  new Refusal({ domain: "partner", status, message, field, ...(code ? { code } : {}) });

const REASON_MAX = 500;

/**
 * A platform administrator's decision on a referral under review, in one transaction with its audit
 * record. Approve: the organisation becomes the partner's client from now (refused if the partner is
 * not active or the organisation has become someone's client meanwhile). Reject: a reason is needed;
 * nothing is attributed. A decided review is not decided again (409).
 */
export async function decideReferralReview(
  admin: Pick<CurrentUser, "user">,
  meta: RequestMeta,
  reviewId: string,
  decision: "approve" | "reject",
  reason: string,
) {
  const why = reason.trim();
  if (decision === "reject" && !why) throw refuse(422, m.revenue_error_reason_required(), "reason");
  if (why.length > REASON_MAX) throw refuse(422, m.revenue_error_reason_long(), "reason");
  if (!isUuid(reviewId)) throw refuse(404, m.revenue_review_not_found());
  return db().transaction(async (tx) => {
    const review = await queryRow<{
      id: string;
      partner_id: string;
      organization_id: string;
      status: string;
      matches: unknown;
      partner_name: string;
      partner_status: string;
      organization_name: string | null;
    }>(
      tx,
      sql`select r.id, r.partner_id, r.organization_id, r.status, r.matches, p.name as partner_name, p.status as partner_status,
                 o.name as organization_name
          from partner_referral_reviews r join partners p on p.id = r.partner_id left join organizations o on o.id = r.organization_id
          where r.id = ${reviewId} for update of r`,
    );
    if (!review) throw refuse(404, m.revenue_review_not_found());
    if (review.status !== "pending") throw refuse(409, m.revenue_review_decided(), undefined, "decided");
    const client = review.organization_name ?? "—";
    if (decision === "approve") {
      if (review.partner_status !== "active") throw refuse(409, m.revenue_error_assign_not_active(), undefined, "status");
      const current = await queryRow(
        tx,
        sql`select 1 from partner_attributions where organization_id = ${review.organization_id} and ended_at is null for update`,
      );
      if (current) throw refuse(409, m.revenue_review_already_client(), undefined, "attributed");
      await tx.execute(sql`
        insert into partner_attributions (partner_id, organization_id, source, reason, created_by)
        values (${review.partner_id}, ${review.organization_id}, 'referral', ${why || null}, ${admin.user.id})`);
    }
    await tx.execute(sql`
      update partner_referral_reviews set status = ${decision === "approve" ? "approved" : "rejected"}, decided_by = ${admin.user.id},
             decided_at = now(), decision_reason = ${why || null}
      where id = ${reviewId}`);
    await recordAdminAction(tx, admin, meta, {
      action: decision === "approve" ? "partner.referral_approve" : "partner.referral_reject",
      organizationId: review.organization_id,
      targetType: "partner_referral_review",
      targetId: reviewId,
      reason: why || null,
      before: { status: "pending", partner: review.partner_name, client, matches: review.matches },
      after: { status: decision === "approve" ? "approved" : "rejected" },
    });
    return { partner: review.partner_name, client };
  });
}
