import {
  accountIpSubject,
  effectiveLimit,
  hitRateLimit,
  hitRateLimits,
  peekRateLimit,
  RATE_LIMITS,
  refundRateLimit,
  resetRateLimit,
  type RateLimitResult,
  type RateLimitRule,
} from "../../infrastructure/security/rate-limit";

/**
 * Who may try to sign in, and how often (decisions 013 and 044). Every limit that refuses is per
 * client address, per account and address, or per known device: a stranger's failures slow that
 * stranger, never the owner elsewhere. What the account sees from every address together refuses
 * nothing; above what one address may fail, a new browser must also prove the mailbox.
 */

export type AttemptGate = { allowed: false; retryAfterSeconds: number } | { allowed: true; refund: () => Promise<void> };

/**
 * Takes this password attempt's slots before the password is checked, so concurrent guesses cannot
 * overrun a limit; `refund` gives them back when the password was right (only failures count).
 * From a known device of the account: that device's bucket only, so neither the address's nor the
 * account's failures refuse it. From any other browser: the address's bucket (every account), then
 * the account-and-address bucket.
 */
export async function takePasswordAttempt(account: string, ip: string, device: string | null): Promise<AttemptGate> {
  const buckets: Array<[RateLimitRule, string]> = device
    ? [[RATE_LIMITS.signinDevice, device]]
    : [
        [RATE_LIMITS.signinIp, ip],
        [RATE_LIMITS.signinAccountIp, accountIpSubject(account, ip)],
      ];
  const taken: Array<[RateLimitRule, string, RateLimitResult]> = [];
  for (const [rule, subject] of buckets) {
    const hit = await hitRateLimit(rule, subject);
    // A refused attempt keeps the slots it took before (decision 004: hammering keeps you refused).
    if (!hit.allowed) return { allowed: false, retryAfterSeconds: hit.retryAfterSeconds };
    taken.push([rule, subject, hit]);
  }
  return {
    allowed: true,
    refund: async () => {
      for (const [rule, subject, hit] of taken) await refundRateLimit(rule, subject, hit);
    },
  };
}

/**
 * Takes a slot for one answer to a sign-in code step (`2fa`, or the e-mailed `signin-code`): from a
 * known device its own bucket, otherwise the address's and the account-and-address bucket. Every
 * answer counts, right or wrong, as the one-time codes' limits always have.
 */
export async function takeCodeAttempt(step: "2fa" | "signin-code", userId: string, ip: string, device: string | null) {
  return hitRateLimits(
    device
      ? [[RATE_LIMITS.codeDevice, device]]
      : [
          [RATE_LIMITS.codeIp, ip],
          [RATE_LIMITS.codeAccountIp, accountIpSubject(`${step}:${userId}`, ip)],
        ],
  );
}

/** A wrong password (or an unknown e-mail) from a browser the account does not know, counted for the account across addresses. */
export async function countPasswordFailure(account: string) {
  await hitRateLimit(RATE_LIMITS.signinAccount, account);
}

/** A wrong two-factor code from a browser the account does not know, counted for the account across addresses. */
export async function countTwoFactorFailure(userId: string) {
  await hitRateLimit(RATE_LIMITS.twoFactorAccount, userId);
}

/**
 * Whether the account sees more failures, across addresses, than any one address may make (of
 * passwords, or of two-factor codes): someone is guessing from several places. A browser it does not
 * know then needs a code e-mailed to the account besides the password. One address alone never gets
 * there, so one stranger cannot make the owner's sign-in elsewhere any harder.
 */
export async function accountUnderAttack(account: string, userId: string) {
  const passwords = await peekRateLimit(RATE_LIMITS.signinAccount, account);
  if (passwords > effectiveLimit(RATE_LIMITS.signinAccount)) return true;
  return (await peekRateLimit(RATE_LIMITS.twoFactorAccount, userId)) > effectiveLimit(RATE_LIMITS.twoFactorAccount);
}

/**
 * After a password reset (the code proved the mailbox): the account's failures are forgotten, and so
 * are the resetting address's own and the sign-in codes mailed, so the owner signs straight in.
 */
export async function forgetSignInFailures(account: string, userId: string, ip: string) {
  await resetRateLimit(RATE_LIMITS.signinAccount, account);
  await resetRateLimit(RATE_LIMITS.twoFactorAccount, userId);
  await resetRateLimit(RATE_LIMITS.signinAccountIp, accountIpSubject(account, ip));
  await resetRateLimit(RATE_LIMITS.signinCodeMail, userId);
}
