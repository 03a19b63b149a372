import { Activity, CheckCircle2, Gauge, Timer } from "~/components/ui/icons";
import { StatCard } from "~/components/ui/stat-card";
import { formatNumber } from "~/lib/dates";
import { m } from "~/paraglide/messages";

export interface ApiUsage {
  calls: number;
  successRate: number | null;
  averageMs: number | null;
  rateLimitPerMinute: number;
}

/** The API's last 30 days at a glance: calls, success rate, response time and the rate limit. */
export function ApiUsageCards({ usage }: { usage: ApiUsage }) {
  return (
    <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
      <StatCard
        label={m.developers_usage_calls()}
        value={formatNumber(usage.calls)}
        icon={Activity}
        hint={m.developers_usage_last_30_days()}
      />
      <StatCard
        label={m.developers_usage_success_rate()}
        value={usage.successRate === null ? "—" : `${usage.successRate}%`}
        icon={CheckCircle2}
        hint={m.developers_usage_last_30_days()}
      />
      <StatCard
        label={m.developers_usage_response()}
        value={usage.averageMs === null ? "—" : `${usage.averageMs}ms`}
        icon={Timer}
        hint={m.developers_usage_response_hint()}
      />
      <StatCard
        label={m.developers_usage_rate_limit()}
        value={`${formatNumber(usage.rateLimitPerMinute)}/min`}
        icon={Gauge}
        hint={m.developers_usage_rate_limit_hint()}
      />
    </div>
  );
}
