import { href } from "react-router";
import { statusWords } from "~/lib/campaign-live";
import { BackLink } from "~/components/ui/back-link";
import { Badge } from "~/components/ui/badge";
import type { CampaignView } from "./campaign-page-types";

/** Its name and status (as it updates live), what it sends and from which number, and the way back. */
export function CampaignHeading({ campaign, status }: { campaign: CampaignView; status: string }) {
  return (
    <div>
      <BackLink to={campaign.kind === "broadcast" ? href("/messaging/broadcasts") : href("/messaging")}>
        {campaign.kind === "broadcast" ? "Broadcast History" : "Campaigns"}
      </BackLink>
      <h1 className="mt-2 flex flex-wrap items-center gap-3 text-2xl font-bold tracking-tight">
        {campaign.name}
        <span data-testid="campaign-status">
          <Badge status={campaign.approval?.declinedAt ? "declined" : status}>
            {statusWords(status, campaign.approval?.declinedAt ? "declined" : null)}
          </Badge>
        </span>
      </h1>
      <p className="text-slate-600">
        {campaign.kind === "broadcast" ? "Quick broadcast" : "Campaign"} of {campaign.template.name} ({campaign.template.language}) from{" "}
        {campaign.from ?? "a disconnected number"}
      </p>
    </div>
  );
}
