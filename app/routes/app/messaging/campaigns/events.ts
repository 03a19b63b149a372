import { data } from "react-router";
import type { Route } from "./+types/events";
import { requireResourcePermission } from "~/.server/auth/guards";
import { ENDED_STATUSES, getCampaign, type CampaignView } from "~/.server/campaigns/queries";
import { CampaignRefusal } from "~/.server/campaigns/refusals";
import { log } from "~/.server/log";
import { liveStream } from "~/.server/http/live-streams";
import { liveFiguresOf } from "~/lib/campaign-live";

/**
 * GET /messaging/campaigns/:id/events: a campaign's live figures as server-sent events (`figures`,
 * JSON): read every second, sent when they or the status change, closed once the campaign has ended.
 * The campaign page's hook listens; without JavaScript the page refreshes itself instead.
 */
export async function loader(args: Route.LoaderArgs) {
  const { request, params } = args;
  const current = await requireResourcePermission(args, "campaigns:view", { from: `/messaging/campaigns/${params.id}` });
  const organizationId = current.organization.id;
  let first: CampaignView;
  try {
    first = await getCampaign(organizationId, params.id);
  } catch (error) {
    if (error instanceof CampaignRefusal && error.status === 404) throw data("Campaign not found.", { status: 404 });
    throw error;
  }
  return liveStream(request, (send, end) => {
    let last = "";
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const emit = (view: CampaignView) => {
      const figures = JSON.stringify(liveFiguresOf(view));
      if (figures !== last) {
        last = figures;
        send({ event: "figures", data: figures });
      }
      if (ENDED_STATUSES.includes(view.status)) end();
    };
    const tick = async () => {
      if (stopped) return;
      try {
        emit(await getCampaign(organizationId, params.id));
      } catch (error) {
        log().warn({ err: error }, "campaign events: reading the campaign failed");
      }
      if (!stopped) timer = setTimeout(tick, 1000);
    };
    emit(first);
    if (!stopped) timer = setTimeout(tick, 1000);
    return () => {
      stopped = true;
      if (timer) clearTimeout(timer);
    };
  });
}
