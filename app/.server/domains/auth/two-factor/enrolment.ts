import { and, eq, isNotNull, isNull, sql } from "drizzle-orm";
import { db, rawQuery } from "../../../infrastructure/db/client";
import { organizations, recoveryCodes, users } from "../../../infrastructure/db/schema";
import { recordActivity } from "../../activity";
import type { RequestMeta } from "../../../infrastructure/http/request-meta";
import { decryptSecret, encryptSecret } from "../../../infrastructure/security/crypto";
import { confirmOwnPassword } from "../own-password";
import type { CurrentUser } from "../guards";
import { can } from "../permissions";
import { TWO_FACTOR_MESSAGES } from "~/lib/two-factor-messages";
import { replaceRecoveryCodes } from "./recovery-codes";
import { checkSecondFactor } from "./second-factor";
import { matchingStep, newTotpSecret, otpauthUri } from "./totp";
import { qrSvg } from "./qr";
import { Refusal } from "../../../infrastructure/refusal";
import { m } from "~/paraglide/messages";

type Member = Pick<CurrentUser, "user" | "organization" | "role">;

/** A refusal the Security page shows at a field (or as the form's error when field is undefined). */
export const refuseTwoFactor = (status: 400 | 403 | 409 | 429, message: string, field?: "code" | "password") =>
  new Refusal({ domain: "two_factor", status, message, field });

export interface TwoFactorStatus {
  on: boolean;
  since: Date | null;
  recoveryCodesLeft: number;
  /** While setting up: the QR code (an SVG) and the same secret as text, for typing in. */
  setup: { qr: string; secret: string } | null;
}

/**
 * What the Security page shows about the member's two-factor sign-in, in one statement: their state,
 * recovery codes left and, for the owner (`countOrganisation`), how many members have it off.
 */
export async function twoFactorStatus(
  userId: string,
  email: string,
  countOrganisation?: string,
): Promise<TwoFactorStatus & { withoutTwoFactor: number }> {
  const [row] = await rawQuery<{ secret: string | null; since: Date | string | null; codes_left: number; without: number }>(
    `select u.totp_secret as secret, u.two_factor_enabled_at as since,
            (select count(*)::int from recovery_codes r where r.user_id = u.id and r.used_at is null) as codes_left,
            case when $2::uuid is null then 0
                 else (select count(*)::int from users m where m.organization_id = $2::uuid and m.two_factor_enabled_at is null) end as without
     from users u where u.id = $1`,
    [userId, countOrganisation ?? null],
  );
  const withoutTwoFactor = row?.without ?? 0;
  if (!row) return { on: false, since: null, recoveryCodesLeft: 0, setup: null, withoutTwoFactor };
  if (row.since) return { on: true, since: new Date(row.since), recoveryCodesLeft: row.codes_left, setup: null, withoutTwoFactor };
  if (!row.secret) return { on: false, since: null, recoveryCodesLeft: 0, setup: null, withoutTwoFactor };
  const secret = decryptSecret(row.secret);
  return {
    on: false,
    since: null,
    recoveryCodesLeft: 0,
    setup: { secret, qr: qrSvg(otpauthUri(secret, email), m.validation_auth_two_factor_qr_label()) },
    withoutTwoFactor,
  };
}

/** Step one: a new secret, kept (sealed) until a code from the app confirms it. Starting again replaces it. */
export async function startTwoFactorSetup(member: Member) {
  const started = await db()
    .update(users)
    .set({ totpSecret: encryptSecret(newTotpSecret()), totpLastStep: null })
    .where(and(eq(users.id, member.user.id), isNull(users.twoFactorEnabledAt)))
    .returning({ id: users.id });
  if (!started.length) throw refuseTwoFactor(409, TWO_FACTOR_MESSAGES.alreadyOn);
}

export async function cancelTwoFactorSetup(member: Member) {
  await db()
    .update(users)
    .set({ totpSecret: null })
    .where(and(eq(users.id, member.user.id), isNull(users.twoFactorEnabledAt)));
}

/**
 * Step two: the app's code proves it holds the secret; two-factor sign-in is on from here, with ten
 * new recovery codes, returned in plain text this once (only their keyed hashes are stored).
 */
export async function confirmTwoFactorSetup(member: Member, code: string, meta: RequestMeta) {
  const [row] = await db()
    .select({ secret: users.totpSecret, since: users.twoFactorEnabledAt })
    .from(users)
    .where(eq(users.id, member.user.id));
  if (row?.since) throw refuseTwoFactor(409, TWO_FACTOR_MESSAGES.alreadyOn);
  if (!row?.secret) throw refuseTwoFactor(409, TWO_FACTOR_MESSAGES.notStarted);
  const step = matchingStep(decryptSecret(row.secret), code.replace(/\s/g, ""));
  if (step === null) throw refuseTwoFactor(400, TWO_FACTOR_MESSAGES.wrongCode, "code");
  const codes = await db().transaction(async (tx) => {
    // The secret this request checked the code against, still not confirmed by another request.
    const on = await tx
      .update(users)
      .set({ twoFactorEnabledAt: new Date(), totpLastStep: step })
      .where(and(eq(users.id, member.user.id), eq(users.totpSecret, row.secret!), isNull(users.twoFactorEnabledAt)))
      .returning({ id: users.id });
    return on.length ? replaceRecoveryCodes(tx, member.user.id) : null;
  });
  if (!codes) throw refuseTwoFactor(409, TWO_FACTOR_MESSAGES.notStarted);
  await recordActivity({
    organizationId: member.organization.id,
    userId: member.user.id,
    type: "security",
    status: "success",
    action: "Two-factor sign-in turned on",
    details: "Authenticator app confirmed; 10 recovery codes issued",
    meta,
  });
  return codes;
}

/** Turning it off needs the password and a code (from the app or a recovery code), and the organisation not requiring it. */
export async function turnOffTwoFactor(member: Member, password: string, code: string, meta: RequestMeta) {
  if (member.organization.requireTwoFactor) throw refuseTwoFactor(403, TWO_FACTOR_MESSAGES.requiredByOrganisation);
  const checked = await confirmOwnPassword(member.user.id, password, TWO_FACTOR_MESSAGES.wrongPassword);
  if (!checked.ok) throw refuseTwoFactor(checked.status, checked.message, "password");
  if (!(await checkSecondFactor(member.user.id, code)).ok) throw refuseTwoFactor(400, TWO_FACTOR_MESSAGES.wrongCode, "code");
  await db().transaction(async (tx) => {
    await tx.update(users).set({ totpSecret: null, twoFactorEnabledAt: null, totpLastStep: null }).where(eq(users.id, member.user.id));
    await tx.delete(recoveryCodes).where(eq(recoveryCodes.userId, member.user.id));
  });
  await recordActivity({
    organizationId: member.organization.id,
    userId: member.user.id,
    type: "security",
    status: "warning",
    action: "Two-factor sign-in turned off",
    details: "Password and code confirmed",
    meta,
  });
}

/** Ten new recovery codes (the old ones stop working), after the password. */
export async function renewRecoveryCodes(member: Member, password: string, meta: RequestMeta) {
  const checked = await confirmOwnPassword(member.user.id, password, TWO_FACTOR_MESSAGES.wrongPassword);
  if (!checked.ok) throw refuseTwoFactor(checked.status, checked.message, "password");
  const codes = await db().transaction(async (tx) => {
    const [on] = await tx
      .select({ id: users.id })
      .from(users)
      .where(and(eq(users.id, member.user.id), isNotNull(users.twoFactorEnabledAt)))
      .for("update");
    return on ? replaceRecoveryCodes(tx, member.user.id) : null;
  });
  if (!codes) throw refuseTwoFactor(409, TWO_FACTOR_MESSAGES.notStarted);
  await recordActivity({
    organizationId: member.organization.id,
    userId: member.user.id,
    type: "security",
    status: "success",
    action: "Recovery codes renewed",
    details: "The earlier codes no longer work",
    meta,
  });
  return codes;
}

/** The owner's "require two-factor for everyone" (the owner must have it on first). */
export async function setTwoFactorRequired(member: Member, required: boolean, meta: RequestMeta) {
  if (!can(member.role, "security:enforce")) throw refuseTwoFactor(403, m.validation_auth_two_factor_owner_only());
  if (required && !member.user.twoFactorEnabledAt) throw refuseTwoFactor(409, TWO_FACTOR_MESSAGES.ownerFirst);
  await db()
    .update(organizations)
    .set({ requireTwoFactor: required, updatedAt: sql`now()` })
    .where(eq(organizations.id, member.organization.id));
  await recordActivity({
    organizationId: member.organization.id,
    userId: member.user.id,
    type: "security",
    status: "success",
    action: required ? "Two-factor sign-in required for everyone" : "Two-factor sign-in no longer required",
    details: required ? "Members without it set it up at their next page" : "Each member chooses",
    meta,
  });
}
