import { formatNumber, formatWhen } from "~/lib/dates";
import { formatKes } from "~/lib/invoice";
import { Card, CardHeader } from "~/components/ui/card";
import { SummaryList } from "~/components/ui/summary";
import { m } from "~/paraglide/messages";
import type { CampaignView } from "./campaign-page-types";
import type { CampaignProductShown } from "~/.server/domains/campaigns/products";
import { CampaignProducts } from "./campaign-products";

/** The audience, the template's values in words, the cost and the times, and who was left out. */
export function CampaignDetails({
  campaign,
  templateValues,
  leftOut,
  leftOutTotal,
  sms = null,
}: {
  campaign: CampaignView;
  templateValues: { headerFile: string | null; buttons: string[]; products: CampaignProductShown[] };
  /** Its SMS fallback's figures (decision 152), when it has one. */
  sms?: { afterMinutes: number; sent: number; pending: number; cancelled: number; skipped: number } | null;
  leftOut: { reason: string; words: string; count: number }[];
  leftOutTotal: number;
}) {
  return (
    <Card>
      <CardHeader title={m.messaging_campaign_details_title()} />
      <SummaryList
        className="mt-4"
        items={[
          { label: m.messaging_campaigns_col_audience(), value: campaign.audienceLabel },
          ...(templateValues.headerFile ? [{ label: m.messaging_campaign_details_header_file(), value: templateValues.headerFile }] : []),
          ...(templateValues.buttons.length
            ? [
                {
                  label: m.messaging_campaign_details_button_values(),
                  value: (
                    <ul>
                      {templateValues.buttons.map((words) => (
                        <li key={words}>{words}</li>
                      ))}
                    </ul>
                  ),
                },
              ]
            : []),
          {
            label: m.messaging_campaign_details_audience_size(),
            value: campaign.audienceSize === null ? m.messaging_campaign_details_counted_at_start() : formatNumber(campaign.audienceSize),
          },
          {
            label: m.messaging_estimated_cost(),
            value: campaign.estimatedCostKes === null ? "" : formatKes(Math.round(campaign.estimatedCostKes * 100)),
          },
          ...(sms
            ? [
                {
                  label: m.sms_fallback_page_label(),
                  value: (
                    <span data-testid="campaign-sms-fallback">
                      {m.sms_fallback_page_counts({
                        sent: formatNumber(sms.sent),
                        pending: formatNumber(sms.pending),
                        cancelled: formatNumber(sms.cancelled),
                        skipped: formatNumber(sms.skipped),
                      })}
                    </span>
                  ),
                },
              ]
            : []),
          {
            label: m.messaging_campaigns_col_scheduled_for(),
            value: campaign.scheduledFor ? formatWhen(campaign.scheduledFor) : m.messaging_campaign_details_not_scheduled(),
          },
          {
            label: m.messaging_campaign_details_started(),
            value: campaign.startedAt ? formatWhen(campaign.startedAt) : m.messaging_campaign_details_not_yet(),
          },
          {
            label: campaign.finishedAt ? m.messaging_campaigns_col_ended() : m.messaging_campaigns_col_created(),
            value: formatWhen(campaign.finishedAt ?? campaign.createdAt),
          },
        ]}
      />
      <CampaignProducts className="mt-4" products={templateValues.products} />
      {leftOutTotal ? (
        <div className="mt-4">
          <h3 className="text-sm font-semibold text-slate-900">
            {m.messaging_campaign_details_left_out({ count: formatNumber(leftOutTotal) })}
          </h3>
          <ul className="mt-1 list-disc pl-5 text-sm text-slate-700">
            {leftOut.map((r) => (
              <li key={r.reason}>
                {r.words}: {formatNumber(r.count)}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </Card>
  );
}
