import { randomInt } from "node:crypto";
import { and, eq, isNull, sql } from "drizzle-orm";
import { recoveryCodes } from "../../../infrastructure/db/schema";
import { keyedHash } from "../../../infrastructure/security/crypto";
import type { Executor } from "../../../infrastructure/db/client";

export const RECOVERY_CODE_COUNT = 10;
// No 0/O, 1/l/I: the codes are read off paper.
const ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789";

/** One recovery code: ten characters (about 49 bits) shown as two groups of five, e.g. "k7m2p-x9qrt". */
function newRecoveryCode() {
  let code = "";
  for (let i = 0; i < 10; i++) code += ALPHABET[randomInt(0, ALPHABET.length)];
  return `${code.slice(0, 5)}-${code.slice(5)}`;
}

/** What a typed recovery code is compared as: lower case, without spaces or the dash. Null when it cannot be one. */
export function normalizeRecoveryCode(typed: string) {
  const clean = typed.toLowerCase().replace(/[\s-]/g, "");
  return /^[a-z0-9]{10}$/.test(clean) ? clean : null;
}

const hashOf = (normalized: string) => keyedHash(normalized, "recovery-code");

/** Replaces the user's recovery codes with ten new ones; returns them in plain text, to show once. */
export async function replaceRecoveryCodes(tx: Executor, userId: string) {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
  await tx.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId));
  await tx.insert(recoveryCodes).values(codes.map((code) => ({ userId, codeHash: hashOf(normalizeRecoveryCode(code)!) })));
  return codes;
}

/** Uses up one recovery code: true once for each code (a conditional update, so two requests cannot both use it). */
export async function useRecoveryCode(tx: Executor, userId: string, normalized: string) {
  const used = await tx
    .update(recoveryCodes)
    .set({ usedAt: new Date() })
    .where(and(eq(recoveryCodes.userId, userId), eq(recoveryCodes.codeHash, hashOf(normalized)), isNull(recoveryCodes.usedAt)))
    .returning({ id: recoveryCodes.id });
  return used.length > 0;
}

export async function unusedRecoveryCodes(tx: Executor, userId: string) {
  const [row] = await tx
    .select({ left: sql<number>`count(*)::int` })
    .from(recoveryCodes)
    .where(and(eq(recoveryCodes.userId, userId), isNull(recoveryCodes.usedAt)));
  return row?.left ?? 0;
}
