import type { LiveFigures } from "~/lib/campaign-live";
import { formatNumber } from "~/lib/dates";
import { Card } from "~/components/ui/card";
import { ProgressBar } from "~/components/ui/progress-bar";

const COUNTERS = [
  ["queued", "Queued"],
  ["sent", "Sent"],
  ["delivered", "Delivered"],
  ["read", "Read"],
  ["replied", "Replied"],
  ["failed", "Failed"],
] as const;

/** The progress bar and the counters, as they update live. */
export function CampaignFigures({ live, progress }: { live: LiveFigures; progress: { done: number; of: number } }) {
  return (
    <Card>
      <ProgressBar
        label={
          live.status === "scheduled" ? "Waiting for its time" : live.status === "awaiting_approval" ? "Waiting for approval" : "Progress"
        }
        value={progress.done}
        max={Math.max(progress.of, 1)}
        valueText={`${formatNumber(progress.done)} of ${formatNumber(progress.of)}`}
        tone={live.counts.failed > 0 && live.counts.failed >= progress.done / 2 ? "danger" : "brand"}
      />
      <dl className="mt-4 grid grid-cols-3 gap-3 sm:grid-cols-6" aria-label="Figures">
        {COUNTERS.map(([key, label]) => (
          <div key={key} className="rounded-lg bg-slate-50 px-3 py-2">
            <dt className="text-xs text-slate-500">{label}</dt>
            <dd className="text-lg font-bold text-slate-900 tabular-nums" data-testid={`count-${key}`}>
              {formatNumber(live.counts[key])}
            </dd>
          </div>
        ))}
      </dl>
    </Card>
  );
}
