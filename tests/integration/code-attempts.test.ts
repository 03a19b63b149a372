import { describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import { db } from "~/.server/infrastructure/db/client";
import { verificationCodes } from "~/.server/infrastructure/db/schema";
import { consumeCode, issueCode } from "~/.server/domains/auth/codes";
import { createVerifiedUser } from "../support/accounts";

async function attemptsOf(userId: string) {
  const [row] = await db()
    .select()
    .from(verificationCodes)
    .where(and(eq(verificationCodes.userId, userId), eq(verificationCodes.purpose, "reset")));
  return row!.attempts;
}

describe("one-time code attempts", () => {
  it("counts 14 concurrent wrong codes to exactly five, and refuses the right code after them", async () => {
    const { user } = await createVerifiedUser();
    const code = await issueCode(user.id, "reset", user.email);
    const wrong = code === "000000" ? "111111" : "000000";
    const results = await Promise.all(Array.from({ length: 14 }, () => consumeCode(user.id, "reset", wrong)));
    expect(results.every((r) => !r.ok)).toBe(true);
    expect(results.filter((r) => !r.ok && r.reason === "invalid")).toHaveLength(4);
    expect(await attemptsOf(user.id)).toBe(5);
    expect(await consumeCode(user.id, "reset", code)).toEqual({ ok: false, reason: "locked" });
    expect(await attemptsOf(user.id)).toBe(5);
  });

  it("never accepts the right code once five wrong ones landed, even when they race it", async () => {
    const { user } = await createVerifiedUser();
    for (let round = 0; round < 5; round++) {
      const code = await issueCode(user.id, "reset", user.email);
      const wrong = code === "000000" ? "111111" : "000000";
      const results = await Promise.all([
        ...Array.from({ length: 5 }, () => consumeCode(user.id, "reset", wrong)),
        consumeCode(user.id, "reset", code),
        ...Array.from({ length: 5 }, () => consumeCode(user.id, "reset", wrong)),
      ]);
      const [row] = await db()
        .select()
        .from(verificationCodes)
        .where(and(eq(verificationCodes.userId, user.id), eq(verificationCodes.purpose, "reset")));
      expect(row!.attempts).toBeLessThanOrEqual(5);
      // Accepted only while fewer than five wrong codes had been counted, and none counted after.
      if (results[5]!.ok) expect(row!.consumedAt).not.toBeNull();
      if (row!.consumedAt) expect(row!.attempts).toBeLessThan(5);
      else expect(row!.attempts).toBe(5);
    }
  });
});
