import { sql } from "drizzle-orm";
import { db, queryRows } from "../db/client";
import { env } from "../config/env";

export interface RateLimitRule {
  /** Bucket name, e.g. `signin:ip`. */
  name: string;
  limit: number;
  windowSeconds: number;
  /** A product rule rather than an abuse limit: RATE_LIMIT_MULTIPLIER leaves it alone. */
  fixed?: boolean;
}

export interface RateLimitResult {
  allowed: boolean;
  hits: number;
  retryAfterSeconds: number;
}

/**
 * Counts one hit against `rule` for `subject` in a fixed window and says whether it is allowed.
 * One atomic upsert, so every server instance sharing the database sees the same count.
 */
export async function hitRateLimit(rule: RateLimitRule, subject: string): Promise<RateLimitResult> {
  const key = `${rule.name}:${subject.toLowerCase()}`;
  const window = `${rule.windowSeconds} seconds`;
  const rows = await queryRows<{ hits: number; window_start: Date | string }>(sql`
    insert into rate_limits (key, window_start, hits) values (${key}, now(), 1)
    on conflict (key) do update set
      hits = case when rate_limits.window_start <= now() - ${window}::interval then 1 else rate_limits.hits + 1 end,
      window_start = case when rate_limits.window_start <= now() - ${window}::interval then now() else rate_limits.window_start end
    returning hits, window_start`);
  const row = rows[0]!;
  const started = new Date(row.window_start).getTime();
  const retryAfterSeconds = Math.max(1, Math.ceil((started + rule.windowSeconds * 1000 - Date.now()) / 1000));
  const limit = rule.fixed ? rule.limit : rule.limit * env().RATE_LIMIT_MULTIPLIER;
  return { allowed: row.hits <= limit, hits: row.hits, retryAfterSeconds };
}

/** Checks every (rule, subject) pair; all are counted, the first refusal wins. */
export async function hitRateLimits(checks: Array<[RateLimitRule, string | null | undefined]>) {
  let refused: RateLimitResult | undefined;
  for (const [rule, subject] of checks) {
    if (!subject) continue;
    const result = await hitRateLimit(rule, subject);
    if (!result.allowed && (!refused || result.retryAfterSeconds > refused.retryAfterSeconds)) refused = result;
  }
  return refused ?? { allowed: true, hits: 0, retryAfterSeconds: 0 };
}

export async function resetRateLimit(rule: RateLimitRule, subject: string) {
  await db().execute(sql`delete from rate_limits where key = ${`${rule.name}:${subject.toLowerCase()}`}`);
}

/** Old windows are useless; the sweeper removes them. */
export async function deleteStaleRateLimits(olderThanSeconds = 86400) {
  await db().execute(sql`delete from rate_limits where window_start < now() - ${`${olderThanSeconds} seconds`}::interval`);
}

export const RATE_LIMITS = {
  signinIp: { name: "signin:ip", limit: 30, windowSeconds: 15 * 60 },
  signinAccount: { name: "signin:account", limit: 10, windowSeconds: 15 * 60 },
  signupIp: { name: "signup:ip", limit: 10, windowSeconds: 60 * 60 },
  codeIp: { name: "code:ip", limit: 30, windowSeconds: 15 * 60 },
  codeAccount: { name: "code:account", limit: 15, windowSeconds: 15 * 60 },
  resetIp: { name: "reset:ip", limit: 10, windowSeconds: 60 * 60 },
  resetAccount: { name: "reset:account", limit: 5, windowSeconds: 60 * 60 },
} satisfies Record<string, RateLimitRule>;

export function rateLimitMessage(retryAfterSeconds: number) {
  const minutes = Math.ceil(retryAfterSeconds / 60);
  return `Too many attempts. Please try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`;
}
