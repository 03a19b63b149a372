import { and, eq, gt, isNull, lt, sql } from "drizzle-orm";
import { db } from "../../infrastructure/db/client";
import { verificationCodes } from "../../infrastructure/db/schema";
import { constantTimeEqual, keyedHash, randomDigits } from "../../infrastructure/security/crypto";
import { m } from "~/paraglide/messages";
import type { Locale } from "~/paraglide/runtime";

export const CODE_LENGTH = 6;
export const CODE_TTL_MS = 10 * 60 * 1000;
export const CODE_MAX_ATTEMPTS = 5;

/** `signin`: a new browser's sign-in while the account sees many failures (decision 044). */
export type CodePurpose = "signup" | "reset" | "email_change" | "signin";

export type CodeCheck = { ok: true; targetEmail: string } | { ok: false; reason: "invalid" | "expired" | "locked" | "missing" };

/** Why a code was refused, in the request's language (or `locale`'s: the activity log keeps English). */
export function codeMessage(reason: Extract<CodeCheck, { ok: false }>["reason"], locale?: Locale) {
  const options = locale ? { locale } : undefined;
  if (reason === "expired") return m.validation_auth_code_expired({}, options);
  if (reason === "locked") return m.validation_auth_code_locked({}, options);
  return m.validation_auth_code_invalid({}, options);
}

/** The same as getters, each read in the language of the request that says it. */
export const CODE_MESSAGES = {
  get invalid() {
    return codeMessage("invalid");
  },
  get expired() {
    return codeMessage("expired");
  },
  get locked() {
    return codeMessage("locked");
  },
  get missing() {
    return codeMessage("missing");
  },
};

/** A fresh code for this user and purpose; it replaces any earlier one. Returns the plain code to send. */
export async function issueCode(userId: string, purpose: CodePurpose, targetEmail: string) {
  const code = randomDigits(CODE_LENGTH);
  const values = {
    codeHash: keyedHash(code, purpose),
    targetEmail,
    attempts: 0,
    sentAt: new Date(),
    expiresAt: new Date(Date.now() + CODE_TTL_MS),
    consumedAt: null,
  };
  await db()
    .insert(verificationCodes)
    .values({ userId, purpose, ...values })
    .onConflictDoUpdate({ target: [verificationCodes.userId, verificationCodes.purpose], set: values });
  return code;
}

/** Checks a code; a wrong one uses up one of the five tries, a right one is consumed. */
export async function consumeCode(userId: string, purpose: CodePurpose, code: string): Promise<CodeCheck> {
  const [row] = await db()
    .select()
    .from(verificationCodes)
    .where(and(eq(verificationCodes.userId, userId), eq(verificationCodes.purpose, purpose), isNull(verificationCodes.consumedAt)));
  if (!row) return { ok: false, reason: "missing" };
  if (row.attempts >= CODE_MAX_ATTEMPTS) return { ok: false, reason: "locked" };
  if (row.expiresAt.getTime() <= Date.now()) return { ok: false, reason: "expired" };

  if (!constantTimeEqual(keyedHash(code, purpose), row.codeHash)) {
    // Counted in one conditional statement: concurrent wrong codes stop at exactly five, and a
    // code that was replaced or used meanwhile is not charged.
    const [after] = await db()
      .update(verificationCodes)
      .set({ attempts: sql`${verificationCodes.attempts} + 1` })
      .where(stillOpen(row))
      .returning({ attempts: verificationCodes.attempts });
    if (!after) return { ok: false, reason: "locked" };
    return { ok: false, reason: after.attempts >= CODE_MAX_ATTEMPTS ? "locked" : "invalid" };
  }
  // The conditions make a code single-use even when two requests race, and refuse it once five
  // wrong codes have been counted, also when they landed after this request read the row.
  const [consumed] = await db()
    .update(verificationCodes)
    .set({ consumedAt: new Date() })
    .where(and(stillOpen(row), gt(verificationCodes.expiresAt, new Date())))
    .returning({ targetEmail: verificationCodes.targetEmail });
  return consumed ? { ok: true, targetEmail: consumed.targetEmail } : { ok: false, reason: "invalid" };
}

/**
 * The code this request read is still the one on file, unused and with tries left. Both writes of
 * consumeCode check it in the same statement, so concurrent requests cannot overrun five tries.
 */
function stillOpen(row: { id: string; codeHash: string }) {
  return and(
    eq(verificationCodes.id, row.id),
    eq(verificationCodes.codeHash, row.codeHash),
    isNull(verificationCodes.consumedAt),
    lt(verificationCodes.attempts, CODE_MAX_ATTEMPTS),
  );
}

export async function pendingCode(userId: string, purpose: CodePurpose) {
  const [row] = await db()
    .select({ targetEmail: verificationCodes.targetEmail, expiresAt: verificationCodes.expiresAt })
    .from(verificationCodes)
    .where(
      and(
        eq(verificationCodes.userId, userId),
        eq(verificationCodes.purpose, purpose),
        isNull(verificationCodes.consumedAt),
        gt(verificationCodes.expiresAt, new Date()),
      ),
    );
  return row ?? null;
}

export async function deleteStaleCodes() {
  await db()
    .delete(verificationCodes)
    .where(lt(verificationCodes.expiresAt, new Date(Date.now() - 24 * 60 * 60 * 1000)));
}
