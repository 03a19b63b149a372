import { Activity, CheckCircle2, Gauge, Timer } from "~/components/ui/icons";
import { StatCard } from "~/components/ui/stat-card";
import { formatNumber } from "~/lib/dates";

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
      <StatCard label="API Calls" value={formatNumber(usage.calls)} icon={Activity} hint="Last 30 days" />
      <StatCard
        label="Success Rate"
        value={usage.successRate === null ? "—" : `${usage.successRate}%`}
        icon={CheckCircle2}
        hint="Last 30 days"
      />
      <StatCard
        label="Avg Response"
        value={usage.averageMs === null ? "—" : `${usage.averageMs}ms`}
        icon={Timer}
        hint="Measured at the server"
      />
      <StatCard label="Rate Limit" value={`${formatNumber(usage.rateLimitPerMinute)}/min`} icon={Gauge} hint="Per API key" />
    </div>
  );
}
