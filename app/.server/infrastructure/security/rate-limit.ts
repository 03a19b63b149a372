import { sql } from "drizzle-orm";
import { db, rawQuery } from "../db/client";
import { env } from "../config/env";
import { ipRateSubject } from "./ip-subject";
import { byCount } from "~/lib/intl";
import { m } from "~/paraglide/messages";

export interface RateLimitRule {
  /** Bucket name, e.g. `signin:ip`. */
  name: string;
  limit: number;
  windowSeconds: number;
  /** A product rule rather than an abuse limit: RATE_LIMIT_MULTIPLIER leaves it alone. */
  fixed?: boolean;
  /** The subject is a client IP: counted per IPv4 address or IPv6 /64 (ipRateSubject). */
  perIp?: boolean;
}

export interface RateLimitResult {
  allowed: boolean;
  hits: number;
  retryAfterSeconds: number;
  /** The window this hit landed in, exactly as the database holds it (for refundRateLimit). */
  windowStamp: string;
}

function bucketKey(rule: RateLimitRule, subject: string) {
  return `${rule.name}:${rule.perIp ? ipRateSubject(subject) : subject.toLowerCase()}`;
}

/**
 * The statement that counts one hit in a fixed window, atomically, so every server instance sharing
 * the database sees the same count: an upsert of the bucket `keyExpression` (SQL) for each row
 * `from` gives (none: once), with the window's length in the parameter `windowParam`. It returns
 * the count, the window's start, and that start as the database holds it (for refundRateLimit).
 */
export function countHitStatement(keyExpression: string, windowParam: string, from = "") {
  return `insert into rate_limits (key, window_start, hits) select ${keyExpression}, now(), 1 ${from}
     on conflict (key) do update set
       hits = case when rate_limits.window_start <= now() - ${windowParam}::interval then 1 else rate_limits.hits + 1 end,
       window_start = case when rate_limits.window_start <= now() - ${windowParam}::interval then now() else rate_limits.window_start end
     returning hits, window_start, window_start::text as window_stamp`;
}

export interface CountedHit {
  hits: number;
  window_start: Date | string;
  window_stamp: string;
}

/** The bucket names of `rule` start with this; the subject follows, lowercase (not for per-IP rules). */
export function bucketPrefix(rule: RateLimitRule) {
  if (rule.perIp) throw new Error(`${rule.name} counts per IP address: use hitRateLimit`);
  return `${rule.name}:`;
}

/** The window length of `rule`, as countHitStatement's interval parameter. */
export function windowOf(rule: RateLimitRule) {
  return `${rule.windowSeconds} seconds`;
}

/** The limit of `rule` as it applies: RATE_LIMIT_MULTIPLIER times its own, unless it is a fixed product rule. */
export function effectiveLimit(rule: RateLimitRule) {
  return rule.fixed ? rule.limit : rule.limit * env().RATE_LIMIT_MULTIPLIER;
}

/** Whether a counted hit is allowed under `rule`, and when its window ends. */
export function rateLimitResult(rule: RateLimitRule, row: CountedHit): RateLimitResult {
  const started = new Date(row.window_start).getTime();
  const retryAfterSeconds = Math.max(1, Math.ceil((started + rule.windowSeconds * 1000 - Date.now()) / 1000));
  return { allowed: row.hits <= effectiveLimit(rule), hits: row.hits, retryAfterSeconds, windowStamp: row.window_stamp };
}

/** Counts one hit against `rule` for `subject` and says whether it is allowed. */
export async function hitRateLimit(rule: RateLimitRule, subject: string): Promise<RateLimitResult> {
  // The driver's own query: every API call and sign-in attempt counts here.
  const rows = await rawQuery<CountedHit>(countHitStatement("$1", "$2"), [bucketKey(rule, subject), windowOf(rule)]);
  return rateLimitResult(rule, rows[0]!);
}

/**
 * Takes back a hit counted by hitRateLimit, in the same window only. Attempt limits count every
 * attempt up front (so concurrent attempts cannot all slip past the limit before any of them is
 * counted) and refund the ones that succeeded: only failures stay counted.
 */
export async function refundRateLimit(rule: RateLimitRule, subject: string, hit: Pick<RateLimitResult, "windowStamp">) {
  await db().execute(sql`
    update rate_limits set hits = greatest(hits - 1, 0)
    where key = ${bucketKey(rule, subject)} and window_start = ${hit.windowStamp}::timestamptz`);
}

/** Checks every (rule, subject) pair; all are counted, the first refusal wins. */
export async function hitRateLimits(checks: Array<[RateLimitRule, string | null | undefined]>) {
  let refused: RateLimitResult | undefined;
  for (const [rule, subject] of checks) {
    if (!subject) continue;
    const result = await hitRateLimit(rule, subject);
    if (!result.allowed && (!refused || result.retryAfterSeconds > refused.retryAfterSeconds)) refused = result;
  }
  return refused ?? { allowed: true, hits: 0, retryAfterSeconds: 0, windowStamp: "" };
}

/** The hits counted so far in the current window of `rule` for `subject` (0 when none, or the window is over); counts nothing. */
export async function peekRateLimit(rule: RateLimitRule, subject: string) {
  const rows = await rawQuery<{ hits: number }>(`select hits from rate_limits where key = $1 and window_start > now() - $2::interval`, [
    bucketKey(rule, subject),
    windowOf(rule),
  ]);
  return rows[0]?.hits ?? 0;
}

/**
 * The subject of a bucket counted per account and client address: `account` (an e-mail, or a
 * prefixed user id) with the address as a per-IP bucket counts it (IPv4, or IPv6 /64).
 */
export function accountIpSubject(account: string, ip: string) {
  return `${account}|${ipRateSubject(ip)}`;
}

export async function resetRateLimit(rule: RateLimitRule, subject: string) {
  await db().execute(sql`delete from rate_limits where key = ${bucketKey(rule, subject)}`);
}

/** Old windows are useless; the sweeper removes them. */
export async function deleteStaleRateLimits(olderThanSeconds = 86400) {
  await db().execute(sql`delete from rate_limits where window_start < now() - ${`${olderThanSeconds} seconds`}::interval`);
}

/**
 * Sign-in and password-change buckets count failures only (decision 013). Sign-in refuses per
 * client address, and per account and address, never per account alone (decision 044).
 */
export const RATE_LIMITS = {
  signinIp: { name: "signin:ip", limit: 30, windowSeconds: 15 * 60, perIp: true },
  /** Failed sign-ins to an account from one address (accountIpSubject), from browsers the account does not know. */
  signinAccountIp: { name: "signin:account-ip", limit: 10, windowSeconds: 15 * 60 },
  /**
   * Failed sign-ins to an account from every address together. It refuses nothing: above what one
   * address may fail (signinAccountIp), a new browser must also enter a code e-mailed to the account.
   */
  signinAccount: { name: "signin:account", limit: 10, windowSeconds: 15 * 60 },
  /** Failed sign-ins from one known device (a stolen device cookie buys no more guesses). */
  signinDevice: { name: "signin:device", limit: 10, windowSeconds: 15 * 60 },
  /** Sign-in codes e-mailed to one account: the guesses at them that someone holding the password can have. */
  signinCodeMail: { name: "signin-code:mail", limit: 10, windowSeconds: 60 * 60 },
  /** Wrong current passwords on the change-password form, per user. */
  passwordChange: { name: "password-change:user", limit: 10, windowSeconds: 15 * 60 },
  signupIp: { name: "signup:ip", limit: 10, windowSeconds: 60 * 60, perIp: true },
  codeIp: { name: "code:ip", limit: 30, windowSeconds: 15 * 60, perIp: true },
  codeAccount: { name: "code:account", limit: 15, windowSeconds: 15 * 60 },
  /** Sign-in codes (two-factor, e-mailed) for one account from one address (accountIpSubject). */
  codeAccountIp: { name: "code:account-ip", limit: 15, windowSeconds: 15 * 60 },
  /** Two-factor codes from one known device of the account, instead of the per-address buckets. */
  codeDevice: { name: "code:device", limit: 15, windowSeconds: 15 * 60 },
  /**
   * Wrong two-factor codes for an account from every address together. It refuses nothing: above
   * what one address may try (codeAccountIp), a new browser must also enter a code e-mailed to the account.
   */
  twoFactorAccount: { name: "2fa:account", limit: 15, windowSeconds: 15 * 60 },
  resetIp: { name: "reset:ip", limit: 10, windowSeconds: 60 * 60, perIp: true },
  resetAccount: { name: "reset:account", limit: 5, windowSeconds: 60 * 60 },
} satisfies Record<string, RateLimitRule>;

/** Why a request was limited, and for how long, in the request's language. */
export function rateLimitMessage(retryAfterSeconds: number) {
  const minutes = Math.ceil(retryAfterSeconds / 60);
  return byCount(
    minutes,
    () => m.validation_auth_rate_limited_one({ minutes }),
    () => m.validation_auth_rate_limited_other({ minutes }),
  );
}
