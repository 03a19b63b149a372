import { and, eq, isNull, lt, or, sql } from "drizzle-orm";
import { db } from "../../../infrastructure/db/client";
import { users } from "../../../infrastructure/db/schema";
import { decryptSecret } from "../../../infrastructure/security/crypto";
import { matchingStep } from "./totp";
import { normalizeRecoveryCode, unusedRecoveryCodes, useRecoveryCode } from "./recovery-codes";

export type SecondFactor = { ok: true; method: "app" | "recovery"; recoveryCodesLeft?: number } | { ok: false };

/**
 * Checks the second factor of a user who has two-factor sign-in on: a 6-digit code from their app
 * (from the step before, now or after, each step good once) or one of their recovery codes (each good once).
 * Both are settled by one conditional update, so two requests racing with the same code cannot both pass.
 */
export async function checkSecondFactor(userId: string, typed: string, now = Date.now()): Promise<SecondFactor> {
  const code = typed.replace(/\s/g, "");
  if (/^\d{6}$/.test(code)) {
    const [row] = await db()
      .select({ secret: users.totpSecret, enabledAt: users.twoFactorEnabledAt })
      .from(users)
      .where(eq(users.id, userId));
    if (!row?.secret || !row.enabledAt) return { ok: false };
    const step = matchingStep(decryptSecret(row.secret), code, now);
    if (step === null) return { ok: false };
    const taken = await db()
      .update(users)
      .set({ totpLastStep: step })
      .where(and(eq(users.id, userId), or(isNull(users.totpLastStep), lt(users.totpLastStep, step))))
      .returning({ id: users.id });
    return taken.length ? { ok: true, method: "app" } : { ok: false };
  }
  const recovery = normalizeRecoveryCode(code);
  if (!recovery) return { ok: false };
  return db().transaction(async (tx) => {
    const [on] = await tx
      .select({ on: sql<boolean>`${users.twoFactorEnabledAt} is not null` })
      .from(users)
      .where(eq(users.id, userId));
    if (!on?.on || !(await useRecoveryCode(tx, userId, recovery))) return { ok: false as const };
    return { ok: true as const, method: "recovery" as const, recoveryCodesLeft: await unusedRecoveryCodes(tx, userId) };
  });
}
