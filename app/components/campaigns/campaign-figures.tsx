import type { LiveFigures } from "~/lib/campaign-live";
import { formatNumber } from "~/lib/dates";
import { Card } from "~/components/ui/card";
import { ProgressBar } from "~/components/ui/progress-bar";
import { m } from "~/paraglide/messages";

// Functions, not words: each is said in the request's language when the figures are drawn.
const COUNTERS = [
  ["queued", m.messaging_count_queued],
  ["sent", m.messaging_count_sent],
  ["delivered", m.messaging_count_delivered],
  ["read", m.messaging_count_read],
  ["replied", m.messaging_count_replied],
  ["failed", m.messaging_count_failed],
] as const;

/** The progress bar and the counters, as they update live. */
export function CampaignFigures({ live, progress }: { live: LiveFigures; progress: { done: number; of: number } }) {
  return (
    <Card>
      <ProgressBar
        label={
          live.status === "scheduled"
            ? m.messaging_campaign_progress_waiting_time()
            : live.status === "awaiting_approval"
              ? m.messaging_campaign_progress_waiting_approval()
              : m.messaging_campaign_progress()
        }
        value={progress.done}
        max={Math.max(progress.of, 1)}
        valueText={m.messaging_campaign_progress_value({ done: formatNumber(progress.done), of: formatNumber(progress.of) })}
        tone={live.counts.failed > 0 && live.counts.failed >= progress.done / 2 ? "danger" : "brand"}
      />
      <dl className="mt-4 grid grid-cols-3 gap-3 sm:grid-cols-6" aria-label={m.messaging_campaign_figures_label()}>
        {COUNTERS.map(([key, label]) => (
          <div key={key} className="rounded-lg bg-slate-50 px-3 py-2">
            <dt className="text-xs text-slate-500">{label()}</dt>
            <dd className="text-lg font-bold text-slate-900 tabular-nums" data-testid={`count-${key}`}>
              {formatNumber(live.counts[key])}
            </dd>
          </div>
        ))}
      </dl>
    </Card>
  );
}
