import { sql } from "drizzle-orm";
import { db, rawQuery } from "../../infrastructure/db/client";
import { queryRows } from "../../infrastructure/db/query";
import { env } from "../../infrastructure/config/env";
import type { RateLimitRule } from "../../infrastructure/security/rate-limit";
import { createGroupCommit } from "../../infrastructure/db/group-commit";

/** 1000 requests a minute per key (spec section 2), counted in the database across instances. */
export const API_RATE_LIMIT: RateLimitRule = { name: "api:key", limit: 1000, windowSeconds: 60 };

export function effectiveApiRateLimit() {
  return API_RATE_LIMIT.limit * env().RATE_LIMIT_MULTIPLIER;
}

interface ApiCall {
  organizationId: string;
  succeeded: boolean;
  ms: number;
}

/**
 * The calls' outcomes written by group commit (infrastructure/db/group-commit.ts): calls that end
 * while a write is in flight go together in the next one, one statement (one commit) adding each
 * organisation's calls to its minute, and a lone call is written at once. A call is answered only
 * after its outcome is committed, as before.
 */
const usageWrites = createGroupCommit<ApiCall>((calls) => writeApiCalls(calls), { maxBatch: 500, maxInFlight: 1 });

/** One call's outcome, added to its minute: what the Developers page's cards are made of. */
export function recordApiCall(organizationId: string, succeeded: boolean, ms: number) {
  return usageWrites.add({ organizationId, succeeded, ms: Math.round(ms) });
}

/** Calls summed per organisation, then one upsert for them all (the driver's own query: this runs on every API call). */
export async function writeApiCalls(calls: ApiCall[]) {
  const byOrganization = new Map<string, { calls: number; succeeded: number; totalMs: number }>();
  for (const call of calls) {
    const sum = byOrganization.get(call.organizationId) ?? { calls: 0, succeeded: 0, totalMs: 0 };
    sum.calls++;
    if (call.succeeded) sum.succeeded++;
    sum.totalMs += call.ms;
    byOrganization.set(call.organizationId, sum);
  }
  const sums = [...byOrganization.values()];
  await rawQuery(
    `insert into api_usage_minutely (organization_id, minute, calls, succeeded, total_ms)
     select c.organization_id, date_trunc('minute', now()), c.calls, c.succeeded, c.total_ms
     from unnest($1::uuid[], $2::int[], $3::int[], $4::bigint[]) as c(organization_id, calls, succeeded, total_ms)
     on conflict (organization_id, minute) do update set
       calls = api_usage_minutely.calls + excluded.calls,
       succeeded = api_usage_minutely.succeeded + excluded.succeeded,
       total_ms = api_usage_minutely.total_ms + excluded.total_ms`,
    [[...byOrganization.keys()], sums.map((s) => s.calls), sums.map((s) => s.succeeded), sums.map((s) => s.totalMs)],
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
