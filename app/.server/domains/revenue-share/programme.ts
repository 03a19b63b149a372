import { randomInt } from "node:crypto";
import { PARTNER_FIELD_NAMES, type PartnerFields } from "~/lib/partner-fields";
import { sql } from "drizzle-orm";
import * as z from "zod/mini";
import { db, type Executor } from "../../infrastructure/db/client";
import { queryRow, queryRows } from "../../infrastructure/db/query";
import { isUuid } from "../../infrastructure/db/keyset";
import { isUniqueViolation } from "../../infrastructure/db/errors";
import { Refusal, type RefusalStatus } from "../../infrastructure/refusal";
import type { RequestMeta } from "../../infrastructure/http/request-meta";
import { PARTNER_CATEGORIES } from "../../infrastructure/db/schema/revenue-share";
import { recordAdminAction } from "../admin";
import type { CurrentUser } from "../auth";
import { approvePayout, markSettlementPaidByBank, startPayout } from "./payouts";
import { can, type Role } from "~/lib/permissions";
import { normalizeKenyanMobile } from "~/lib/phone";
import { m } from "~/paraglide/messages";

/**
 * The partner programme's changes (issue 46, decision 088): enrolment by a platform administrator,
 * an organisation's application and its approval or rejection, suspension, edits (a share change is
 * a dated row of partner_share_changes, never retroactive) and who brought which client. Every
 * administrator's change writes the admin audit log in its own transaction; bad input is refused at
 * its field (a Refusal), nothing changed.
 */

/** The spec's sampled shares, offered first; any other from 0 to 50% needs a reason. */
export const SHARE_PRESETS = [12, 15, 18, 20] as const;
export const SHARE_MAX_PERCENT = 50;
/** An application's share until an administrator sets another. */
export const APPLICATION_SHARE_PERCENT = 15;
export const REASON_MAX = 500;
export const KRA_PIN = /^[A-Z]\d{9}[A-Z]$/;
export const REFERRAL_CODE = /^[A-Z0-9]{4,16}$/;

type Admin = Pick<CurrentUser, "user">;

const refuse = (status: RefusalStatus, message: string, field?: string, code?: string) =>
  new Refusal({ domain: "partner", status, message, field, ...(code ? { code } : {}) });

export { PARTNER_FIELD_NAMES, type PartnerFields };

const text = (max: number, required: () => string, tooLong: () => string) =>
  z.string().check(z.trim(), z.minLength(1, { error: required, abort: true }), z.maxLength(max, { error: tooLong }));

const PartnerSchema = z.object({
  name: text(
    120,
    () => m.revenue_error_name_required(),
    () => m.revenue_error_name_long(),
  ),
  category: z.enum(PARTNER_CATEGORIES, { error: () => m.revenue_error_category() }),
  payoutMethod: z.enum(["mpesa", "bank"], { error: () => m.revenue_error_payout_method() }),
  kraPin: z.string().check(
    z.overwrite((value) => value.trim().toUpperCase()),
    z.minLength(1, { error: () => m.revenue_error_kra_required(), abort: true }),
    z.regex(KRA_PIN, { error: () => m.revenue_error_kra_format() }),
  ),
});

export interface PartnerDetails {
  name: string;
  category: string;
  shareBps: number;
  reason: string;
  payoutMethod: "mpesa" | "bank";
  mpesaPhone: string | null;
  bankDetails: { bank: string; branch: string; accountName: string; accountNumber: string } | null;
  kraPin: string;
  resident: boolean;
  code: string | null;
}

/** The share posted: a preset ("15") or "other" with a percent from 0 to 50 (two decimals at most), in basis points. */
export function shareOf(share: string, other: string): { bps: number; preset: boolean } {
  if (SHARE_PRESETS.some((preset) => String(preset) === share)) return { bps: Number(share) * 100, preset: true };
  const typed = (share === "other" ? other : share).trim().replace(/%$/, "");
  if (!/^\d{1,2}(\.\d{1,2})?$/.test(typed)) throw refuse(422, m.revenue_error_share(), "shareOther");
  const bps = Math.round(Number(typed) * 100);
  if (bps > SHARE_MAX_PERCENT * 100) throw refuse(422, m.revenue_error_share(), "shareOther");
  return { bps, preset: SHARE_PRESETS.some((preset) => preset * 100 === bps) };
}

/** The posted partner fields checked, or the first problem refused at its field. */
export function checkPartnerFields(input: PartnerFields): PartnerDetails {
  const parsed = PartnerSchema.safeParse({
    name: input.name,
    category: input.category,
    payoutMethod: input.payoutMethod,
    kraPin: input.kraPin,
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw refuse(422, issue.message, String(issue.path[0] ?? "name"));
  }
  const share = shareOf(input.share, input.shareOther);
  const reason = input.reason.trim();
  if (reason.length > REASON_MAX) throw refuse(422, m.revenue_error_reason_long(), "reason");
  if (!share.preset && !reason) throw refuse(422, m.revenue_error_share_reason(), "reason");
  let mpesaPhone: string | null = null;
  let bankDetails: PartnerDetails["bankDetails"] = null;
  if (parsed.data.payoutMethod === "mpesa") {
    const e164 = normalizeKenyanMobile(input.mpesaPhone);
    if (!e164) throw refuse(422, m.revenue_error_mpesa(), "mpesaPhone");
    mpesaPhone = e164.slice(1);
  } else {
    const bank = { bank: input.bank.trim(), branch: input.bankBranch.trim(), accountName: input.accountName.trim() };
    const accountNumber = input.accountNumber.replace(/[\s-]/g, "");
    if (!bank.bank || bank.bank.length > 80) throw refuse(422, m.revenue_error_bank(), "bank");
    if (!bank.branch || bank.branch.length > 80) throw refuse(422, m.revenue_error_branch(), "bankBranch");
    if (!bank.accountName || bank.accountName.length > 120) throw refuse(422, m.revenue_error_account_name(), "accountName");
    if (!/^\d{6,20}$/.test(accountNumber)) throw refuse(422, m.revenue_error_account_number(), "accountNumber");
    bankDetails = { ...bank, accountNumber };
  }
  const code = input.code.trim().toUpperCase();
  if (code && !REFERRAL_CODE.test(code)) throw refuse(422, m.revenue_error_code(), "code");
  return {
    name: parsed.data.name,
    category: parsed.data.category,
    shareBps: share.bps,
    reason,
    payoutMethod: parsed.data.payoutMethod,
    mpesaPhone,
    bankDetails,
    kraPin: parsed.data.kraPin,
    resident: input.resident === "on" || input.resident === "true",
    code: code || null,
  };
}

/** A referral code from the partner's name: its letters and four digits (JUMBEAGENCY → SAVANNA4821). */
function referralCode(name: string) {
  const letters = name
    .normalize("NFKD")
    .toUpperCase()
    .replace(/[^A-Z0-9]/g, "")
    .slice(0, 8);
  return `${letters.length >= 2 ? letters : "JP"}${randomInt(1000, 10000)}`;
}

/** The organisation an administrator names: its id, its business ID, or a member's e-mail. */
async function organisationNamed(executor: Executor, reference: string) {
  const ref = reference.trim();
  if (!ref) throw refuse(422, m.revenue_error_organisation_required(), "organization");
  const found = await queryRow<{ id: string; name: string }>(
    executor,
    sql`select o.id, o.name from organizations o
        where ${isUuid(ref) ? sql`o.id = ${ref}` : sql`false`}
           or lower(o.business_id) = lower(${ref})
           or o.id = (select u.organization_id from users u where lower(u.email) = lower(${ref}) limit 1)
        limit 1`,
  );
  if (!found) throw refuse(422, m.revenue_error_organisation_unknown(), "organization");
  return found;
}

interface PartnerRow {
  id: string;
  organization_id: string;
  code: string;
  name: string;
  category: string;
  status: "pending" | "active" | "suspended";
  share_bps: number;
  payout_method: "mpesa" | "bank";
  mpesa_phone: string | null;
  bank_details: PartnerDetails["bankDetails"];
  kra_pin: string;
  resident: boolean;
}

async function lockedPartner(executor: Executor, partnerId: string) {
  if (!isUuid(partnerId)) throw refuse(404, m.revenue_partner_not_found());
  const row = await queryRow<PartnerRow>(
    executor,
    sql`select id, organization_id, code, name, category, status, share_bps, payout_method, mpesa_phone, bank_details, kra_pin, resident
        from partners where id = ${partnerId} for update`,
  );
  if (!row) throw refuse(404, m.revenue_partner_not_found());
  return row;
}

/** What the audit log keeps of a partner (no bank account number in full). */
function audited(p: Pick<PartnerRow, "name" | "category" | "status" | "share_bps" | "payout_method" | "kra_pin" | "resident">) {
  return {
    name: p.name,
    category: p.category,
    status: p.status,
    share: `${p.share_bps / 100}%`,
    payoutMethod: p.payout_method,
    kraPin: p.kra_pin,
    resident: p.resident,
  };
}

/** The insert of a new partner, its first share dated now; a taken code or organisation is refused (409). */
async function insertPartner(
  tx: Executor,
  organizationId: string,
  details: PartnerDetails,
  status: "pending" | "active",
  by: string,
  reason: string,
) {
  // One organisation's applications and enrolments one at a time: two at the same moment would both
  // find no partner and the second would fail on partners_organization_key instead of being refused.
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`partner-organization:${organizationId}`}, 0))`);
  const existing = await queryRow<{ id: string }>(tx, sql`select id from partners where organization_id = ${organizationId}`);
  if (existing) throw refuse(409, m.revenue_error_already_partner(), "organization", "already_partner");
  let code = details.code;
  if (code) {
    const taken = await queryRow<{ id: string }>(tx, sql`select id from partners where code = ${code}`);
    if (taken) throw refuse(409, m.revenue_error_code_taken(), "code", "code_taken");
  } else {
    for (let tries = 0; tries < 20 && !code; tries++) {
      const candidate = referralCode(details.name);
      if (!(await queryRow(tx, sql`select 1 from partners where code = ${candidate}`))) code = candidate;
    }
    if (!code) throw refuse(409, m.revenue_error_code_taken(), "code", "code_taken");
  }
  const [row] = await queryRows<{ id: string; code: string }>(
    tx,
    sql`insert into partners (organization_id, code, name, category, status, share_bps, payout_method, mpesa_phone, bank_details, kra_pin,
                              resident, applied_by, approved_at, approved_by)
        values (${organizationId}, ${code}, ${details.name}, ${details.category}, ${status}, ${details.shareBps}, ${details.payoutMethod},
                ${details.mpesaPhone}, ${details.bankDetails ? JSON.stringify(details.bankDetails) : null}::jsonb, ${details.kraPin},
                ${details.resident}, ${status === "pending" ? by : null}, ${status === "active" ? sql`now()` : null},
                ${status === "active" ? by : null})
        returning id, code`,
  );
  await tx.execute(sql`
    insert into partner_share_changes (partner_id, share_bps, reason, changed_by) values (${row!.id}, ${details.shareBps}, ${reason}, ${by})`);
  // Its status from now: a payment earns only while it is active (partner_status_changes, decision 102).
  await tx.execute(sql`insert into partner_status_changes (partner_id, status) values (${row!.id}, ${status})`);
  return row!;
}

/** Two new partners given the same referral code at the same moment: the second is refused, as a taken code is. */
function codeRace(error: unknown): never {
  if (isUniqueViolation(error)) throw refuse(409, m.revenue_error_code_taken(), "code", "code_taken");
  throw error;
}

/** A platform administrator enrols an organisation as an active partner. */
export async function enrolPartner(admin: Admin, meta: RequestMeta, input: PartnerFields & { organization: string }) {
  const details = checkPartnerFields(input);
  return db()
    .transaction(async (tx) => {
      const organisation = await organisationNamed(tx, input.organization);
      const partner = await insertPartner(tx, organisation.id, details, "active", admin.user.id, details.reason || "enrolment");
      await recordAdminAction(tx, admin, meta, {
        action: "partner.enrol",
        organizationId: organisation.id,
        targetType: "partner",
        targetId: partner.id,
        reason: details.reason || null,
        after: {
          ...audited({
            ...details,
            status: "active",
            share_bps: details.shareBps,
            payout_method: details.payoutMethod,
            kra_pin: details.kraPin,
          }),
          code: partner.code,
        },
      });
      return { id: partner.id, code: partner.code, name: details.name };
    })
    .catch(codeRace);
}

/** An organisation's owner or admin applies: a pending partner at the programme's standard share until approved. */
export async function applyAsPartner(
  actor: { organizationId: string; userId: string; role: Role },
  input: Omit<PartnerFields, "share" | "shareOther" | "reason" | "code">,
) {
  if (!can(actor.role, "billing:manage") || can(actor.role, "platform:console")) throw refuse(403, m.revenue_error_apply_forbidden());
  const details = checkPartnerFields({ ...input, share: String(APPLICATION_SHARE_PERCENT), shareOther: "", reason: "", code: "" });
  return db()
    .transaction(async (tx) => {
      const partner = await insertPartner(tx, actor.organizationId, details, "pending", actor.userId, "application");
      return { id: partner.id, code: partner.code };
    })
    .catch(codeRace);
}

const STATUS_CHANGES = {
  approve: { from: "pending", to: "active", action: "partner.approve" },
  suspend: { from: "active", to: "suspended", action: "partner.suspend" },
  reactivate: { from: "suspended", to: "active", action: "partner.reactivate" },
} as const;

/**
 * Approve an application, suspend an active partner (its clients' payments stop accruing; its
 * history and unpaid settlements stay) or reactivate a suspended one. Suspending needs a reason.
 */
export async function changePartnerStatus(
  admin: Admin,
  meta: RequestMeta,
  partnerId: string,
  change: keyof typeof STATUS_CHANGES,
  reason: string,
) {
  const step = STATUS_CHANGES[change];
  const why = reason.trim();
  if (change === "suspend" && !why) throw refuse(422, m.revenue_error_reason_required(), "reason");
  if (why.length > REASON_MAX) throw refuse(422, m.revenue_error_reason_long(), "reason");
  return db().transaction(async (tx) => {
    const partner = await lockedPartner(tx, partnerId);
    if (partner.status !== step.from) throw refuse(409, m.revenue_error_status({ status: partner.status }), undefined, "status");
    await tx.execute(sql`
      update partners set status = ${step.to}, updated_at = now()
        ${change === "approve" ? sql`, approved_at = now(), approved_by = ${admin.user.id}` : sql``}
      where id = ${partnerId}`);
    await tx.execute(sql`insert into partner_status_changes (partner_id, status) values (${partnerId}, ${step.to})`);
    await recordAdminAction(tx, admin, meta, {
      action: step.action,
      organizationId: partner.organization_id,
      targetType: "partner",
      targetId: partnerId,
      reason: why || null,
      before: { status: partner.status },
      after: { status: step.to },
    });
    return { name: partner.name };
  });
}

/** Reject an application: the pending partner is removed (the audit log keeps what it was, and why). */
export async function rejectApplication(admin: Admin, meta: RequestMeta, partnerId: string, reason: string) {
  const why = reason.trim();
  if (!why) throw refuse(422, m.revenue_error_reason_required(), "reason");
  if (why.length > REASON_MAX) throw refuse(422, m.revenue_error_reason_long(), "reason");
  return db().transaction(async (tx) => {
    const partner = await lockedPartner(tx, partnerId);
    if (partner.status !== "pending") throw refuse(409, m.revenue_error_status({ status: partner.status }), undefined, "status");
    await tx.execute(sql`delete from partner_share_changes where partner_id = ${partnerId}`);
    await tx.execute(sql`delete from partners where id = ${partnerId}`);
    await recordAdminAction(tx, admin, meta, {
      action: "partner.reject",
      organizationId: partner.organization_id,
      targetType: "partner",
      targetId: partnerId,
      reason: why,
      before: audited(partner),
    });
    return { name: partner.name };
  });
}

/**
 * Edit a partner. A new share takes effect now (a dated row of partner_share_changes with its
 * reason): payments already made keep the share they were recorded with.
 */
export async function editPartner(admin: Admin, meta: RequestMeta, partnerId: string, input: PartnerFields) {
  const details = checkPartnerFields(input);
  return db().transaction(async (tx) => {
    const partner = await lockedPartner(tx, partnerId);
    const shareChanged = partner.share_bps !== details.shareBps;
    if (shareChanged && !details.reason) throw refuse(422, m.revenue_error_share_reason(), "reason");
    if (details.code && details.code !== partner.code) {
      const taken = await queryRow(tx, sql`select 1 from partners where code = ${details.code} and id <> ${partnerId}`);
      if (taken) throw refuse(409, m.revenue_error_code_taken(), "code", "code_taken");
    }
    await tx.execute(sql`
      update partners set name = ${details.name}, category = ${details.category}, share_bps = ${details.shareBps},
             payout_method = ${details.payoutMethod}, mpesa_phone = ${details.mpesaPhone},
             bank_details = ${details.bankDetails ? JSON.stringify(details.bankDetails) : null}::jsonb, kra_pin = ${details.kraPin},
             resident = ${details.resident}, code = ${details.code ?? partner.code}, updated_at = now()
      where id = ${partnerId}`);
    if (shareChanged)
      await tx.execute(sql`
        insert into partner_share_changes (partner_id, share_bps, reason, changed_by)
        values (${partnerId}, ${details.shareBps}, ${details.reason}, ${admin.user.id})`);
    const after = { ...partner, ...details, share_bps: details.shareBps, payout_method: details.payoutMethod, kra_pin: details.kraPin };
    await recordAdminAction(tx, admin, meta, {
      action: shareChanged ? "partner.share_change" : "partner.edit",
      organizationId: partner.organization_id,
      targetType: "partner",
      targetId: partnerId,
      reason: details.reason || null,
      before: { ...audited(partner), code: partner.code },
      after: { ...audited(after), code: details.code ?? partner.code },
    });
    return { name: details.name, shareChanged };
  });
}

/**
 * Make an organisation a partner's client from now, with a reason. An organisation belongs to one
 * partner at a time: one that is another partner's client now moves in the same transaction (its
 * attribution there ends, a new one starts here; its past transactions stay the other's), audited
 * as a move. Refused, nothing changed: a partner that is not active, its own organisation, a client
 * it has already. The history of who brought whom stays in partner_attributions.
 */
export async function assignClient(admin: Admin, meta: RequestMeta, partnerId: string, organization: string, reason: string) {
  const why = reason.trim();
  if (!why) throw refuse(422, m.revenue_error_reason_required(), "reason");
  if (why.length > REASON_MAX) throw refuse(422, m.revenue_error_reason_long(), "reason");
  return db().transaction(async (tx) => {
    const partner = await lockedPartner(tx, partnerId);
    if (partner.status !== "active") throw refuse(409, m.revenue_error_assign_not_active(), "organization", "status");
    const client = await organisationNamed(tx, organization);
    if (client.id === partner.organization_id) throw refuse(422, m.revenue_error_own_client(), "organization");
    const current = await queryRow<{ id: number | string; partner_id: string; name: string }>(
      tx,
      sql`select a.id, a.partner_id, p.name from partner_attributions a join partners p on p.id = a.partner_id
          where a.organization_id = ${client.id} and a.ended_at is null for update of a`,
    );
    if (current?.partner_id === partnerId) throw refuse(409, m.revenue_error_already_client(), "organization", "attributed");
    if (current) await tx.execute(sql`update partner_attributions set ended_at = now() where id = ${current.id}`);
    await tx.execute(sql`
      insert into partner_attributions (partner_id, organization_id, source, reason, created_by)
      values (${partnerId}, ${client.id}, 'admin', ${why}, ${admin.user.id})`);
    await recordAdminAction(tx, admin, meta, {
      action: current ? "partner.move_client" : "partner.assign_client",
      organizationId: client.id,
      targetType: "partner",
      targetId: partnerId,
      reason: why,
      ...(current ? { before: { partner: current.name, partnerId: current.partner_id, client: client.name } } : {}),
      after: { partner: partner.name, client: client.name },
    });
    return { client: client.name, partner: partner.name, from: current?.name ?? null };
  });
}

/** End an organisation's attribution to a partner from now (its past transactions stay the partner's). */
export async function unassignClient(admin: Admin, meta: RequestMeta, partnerId: string, organizationId: string, reason: string) {
  const why = reason.trim();
  if (!why) throw refuse(422, m.revenue_error_reason_required(), "reason");
  if (why.length > REASON_MAX) throw refuse(422, m.revenue_error_reason_long(), "reason");
  if (!isUuid(organizationId)) throw refuse(404, m.revenue_client_not_found());
  return db().transaction(async (tx) => {
    const partner = await lockedPartner(tx, partnerId);
    const [ended] = await queryRows<{ name: string }>(
      tx,
      sql`update partner_attributions a set ended_at = now() from organizations o
          where a.partner_id = ${partnerId} and a.organization_id = ${organizationId} and a.ended_at is null and o.id = a.organization_id
          returning o.name`,
    );
    if (!ended) throw refuse(404, m.revenue_client_not_found());
    await recordAdminAction(tx, admin, meta, {
      action: "partner.unassign_client",
      organizationId,
      targetType: "partner",
      targetId: partnerId,
      reason: why,
      before: { partner: partner.name, client: ended.name },
    });
    return { client: ended.name, partner: partner.name };
  });
}

async function settlementFor(settlementId: string) {
  if (!isUuid(settlementId)) throw refuse(404, m.revenue_settlement_not_found());
  const row = await queryRow<{ id: string; partner_id: string; organization_id: string; payout_method: string; net_cents: string }>(
    db(),
    sql`select s.id, s.partner_id, p.organization_id, s.payout_method, s.net_cents::text
        from partner_settlements s join partners p on p.id = s.partner_id where s.id = ${settlementId}`,
  );
  if (!row) throw refuse(404, m.revenue_settlement_not_found());
  return row;
}

/**
 * Process a settlement: by M-Pesa, a payout attempt (above the approval threshold it waits for a
 * second administrator); by bank, marked paid with the bank's reference. A failed one may be
 * processed again. The step-up is the route's; the audit record is written in the payout's own
 * transaction, so the settlement never changes without it.
 */
export async function processSettlement(
  admin: Admin,
  meta: RequestMeta,
  settlementId: string,
  input: { reference: string },
  options: { approvalThresholdCents?: number } = {},
) {
  const settlement = await settlementFor(settlementId);
  const audit = (tx: Executor, after: Record<string, string>) =>
    recordAdminAction(tx, admin, meta, {
      action: after.reference === undefined ? "settlement.payout" : "settlement.mark_paid",
      organizationId: settlement.organization_id,
      targetType: "partner_settlement",
      targetId: settlementId,
      after,
    });
  // A payout's refusal is the programme's own Refusal already (payouts.ts): it reaches the route as thrown.
  if (settlement.payout_method === "bank") {
    await markSettlementPaidByBank({ userId: admin.user.id }, settlementId, input.reference, (tx, done) =>
      audit(tx, { status: "paid", reference: done.reference }),
    );
    return { method: "bank" as const, waiting: false };
  }
  const payout = await startPayout({ userId: admin.user.id }, settlementId, {
    ...options,
    audit: (tx, done) => audit(tx, { status: done.status }),
  });
  return { method: "mpesa" as const, waiting: payout.status === "awaiting_approval" };
}

/** The second administrator approves a waiting M-Pesa payout (never the one who asked), audited in the same transaction. */
export async function approveSettlementPayout(admin: Admin, meta: RequestMeta, settlementId: string) {
  const settlement = await settlementFor(settlementId);
  const waiting = await queryRow<{ id: string }>(
    db(),
    sql`select id from partner_payouts where settlement_id = ${settlementId} and status = 'awaiting_approval'`,
  );
  if (!waiting) throw refuse(409, m.admin_payout_not_waiting(), undefined, "not_waiting");
  await approvePayout({ userId: admin.user.id }, waiting.id, (tx) =>
    recordAdminAction(tx, admin, meta, {
      action: "settlement.payout_approve",
      organizationId: settlement.organization_id,
      targetType: "partner_settlement",
      targetId: settlementId,
      after: { payout: waiting.id, status: "requested" },
    }),
  );
}
