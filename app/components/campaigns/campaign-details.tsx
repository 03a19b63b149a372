import { formatNumber, formatWhen } from "~/lib/dates";
import { formatKes } from "~/lib/invoice";
import { Card, CardHeader } from "~/components/ui/card";
import { SummaryList } from "~/components/ui/summary";
import type { CampaignView } from "./campaign-page-types";

/** The audience, the template's values in words, the cost and the times, and who was left out. */
export function CampaignDetails({
  campaign,
  templateValues,
  leftOut,
  leftOutTotal,
}: {
  campaign: CampaignView;
  templateValues: { headerFile: string | null; buttons: string[] };
  leftOut: { reason: string; words: string; count: number }[];
  leftOutTotal: number;
}) {
  return (
    <Card>
      <CardHeader title="Details" />
      <SummaryList
        className="mt-4"
        items={[
          { label: "Audience", value: campaign.audienceLabel },
          ...(templateValues.headerFile ? [{ label: "Header file", value: templateValues.headerFile }] : []),
          ...(templateValues.buttons.length
            ? [
                {
                  label: "Button values",
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
            label: "Audience size",
            value: campaign.audienceSize === null ? "Counted when it starts" : formatNumber(campaign.audienceSize),
          },
          {
            label: "Estimated cost",
            value: campaign.estimatedCostKes === null ? "" : formatKes(Math.round(campaign.estimatedCostKes * 100)),
          },
          { label: "Scheduled for", value: campaign.scheduledFor ? formatWhen(campaign.scheduledFor) : "Not scheduled" },
          { label: "Started", value: campaign.startedAt ? formatWhen(campaign.startedAt) : "Not yet" },
          { label: campaign.finishedAt ? "Ended" : "Created", value: formatWhen(campaign.finishedAt ?? campaign.createdAt) },
        ]}
      />
      {leftOutTotal ? (
        <div className="mt-4">
          <h3 className="text-sm font-semibold text-slate-900">Left out: {formatNumber(leftOutTotal)}</h3>
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
