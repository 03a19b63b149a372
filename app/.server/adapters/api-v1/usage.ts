import { sql } from "drizzle-orm";
import { db, rawQuery } from "../../infrastructure/db/client";
import { queryRows } from "../../infrastructure/db/query";
import { env } from "../../infrastructure/config/env";
import type { RateLimitRule } from "../../infrastructure/security/rate-limit";

/** 1000 requests a minute per key (spec section 2), counted in the database across instances. */
export const API_RATE_LIMIT: RateLimitRule = { name: "api:key", limit: 1000, windowSeconds: 60 };

export function effectiveApiRateLimit() {
  return API_RATE_LIMIT.limit * env().RATE_LIMIT_MULTIPLIER;
}

/** One call's outcome, added to its minute: what the Developers page's cards are made of. */
export async function recordApiCall(organizationId: string, succeeded: boolean, ms: number) {
  // The driver's own query: this runs on every API call.
  await rawQuery(
    `insert into api_usage_minutely (organization_id, minute, calls, succeeded, total_ms)
     values ($1, date_trunc('minute', now()), 1, $2, $3)
     on conflict (organization_id, minute) do update set
       calls = api_usage_minutely.calls + 1,
       succeeded = api_usage_minutely.succeeded + excluded.succeeded,
       total_ms = api_usage_minutely.total_ms + excluded.total_ms`,
    [organizationId, succeeded ? 1 : 0, Math.round(ms)],
  );
}

/** Calls, success rate and average response time over the last `days` days. */
export async function apiUsageStats(organizationId: string, days = 30) {
  const [row] = await queryRows<{ calls: number | string | null; succeeded: number | string | null; total_ms: number | string | null }>(
    db(),
    sql`
    select sum(calls) as calls, sum(succeeded) as succeeded, sum(total_ms) as total_ms from api_usage_minutely
    where organization_id = ${organizationId} and minute >= now() - make_interval(days => ${days})`,
  );
  const calls = Number(row?.calls ?? 0);
  const succeeded = Number(row?.succeeded ?? 0);
  return {
    calls,
    successRate: calls ? Math.round((succeeded / calls) * 1000) / 10 : null,
    averageMs: calls ? Math.round(Number(row?.total_ms ?? 0) / calls) : null,
    rateLimitPerMinute: effectiveApiRateLimit(),
  };
}
