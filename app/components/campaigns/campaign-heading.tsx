import { href } from "react-router";
import { statusWords } from "~/lib/campaign-live";
import { BackLink } from "~/components/ui/back-link";
import { Badge } from "~/components/ui/badge";
import { m } from "~/paraglide/messages";
import type { CampaignView } from "./campaign-page-types";

/** Its name and status (as it updates live), what it sends and from which number, and the way back. */
export function CampaignHeading({ campaign, status }: { campaign: CampaignView; status: string }) {
  const declined = campaign.approval?.declinedAt ? ("declined" as const) : null;
  return (
    <div>
      <BackLink to={campaign.kind === "broadcast" ? href("/messaging/broadcasts") : href("/messaging")}>
        {campaign.kind === "broadcast" ? m.messaging_center_tab_broadcasts() : m.messaging_center_tab_campaigns()}
      </BackLink>
      <h1 className="mt-2 flex flex-wrap items-center gap-3 text-2xl font-bold tracking-tight wrap-anywhere">
        {campaign.name}
        <span data-testid="campaign-status">
          <Badge status={declined ?? status}>{statusWords(status, declined)}</Badge>
        </span>
      </h1>
      <p className="text-slate-600">
        {(campaign.kind === "broadcast" ? m.messaging_campaign_heading_broadcast : m.messaging_campaign_heading_campaign)({
          template: campaign.template.name,
          language: campaign.template.language,
          from: campaign.from ?? m.messaging_campaign_heading_disconnected(),
        })}
      </p>
    </div>
  );
}
