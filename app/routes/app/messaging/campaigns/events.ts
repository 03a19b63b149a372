import type { Route } from "./+types/events";
import { requireDeclaredResource } from "~/.server/domains/auth/guards";
import { ENDED_STATUSES, getCampaign, type CampaignView } from "~/.server/domains/campaigns/queries";
import { statusesMayMove } from "~/.server/domains/campaigns/progress";
import { log } from "~/.server/infrastructure/log";
import { liveStream } from "~/.server/infrastructure/http/live-streams";
import { followedAfterEnd, liveFiguresOf } from "~/lib/campaign-live";
import { refusalOf, throwIfNotFound } from "~/.server/infrastructure/http/refusal-reply";
import type { PermissionHandle } from "~/lib/permissions";
import { m } from "~/paraglide/messages";

export const handle: PermissionHandle = { permission: "campaigns:view", signInReturnsTo: "/messaging/campaigns/:id" };

/**
 * GET /messaging/campaigns/:id/events: a campaign's live figures as server-sent events (`figures`,
 * JSON): read every second, sent when they or the status change. After the campaign ends it goes on
 * while a message's status can still move and for a day at most (decision 049), then says `end` and
 * closes (the page's hook does not reconnect after `end`). Without JavaScript the page refreshes
 * itself while it sends, and a reload shows the same figures.
 */
export async function loader(args: Route.LoaderArgs) {
  const { request, params } = args;
  const current = await requireDeclaredResource(args);
  const organizationId = current.organization.id;
  let first: CampaignView;
  try {
    first = await getCampaign(organizationId, params.id);
  } catch (error) {
    throwIfNotFound(refusalOf(error), m.messaging_campaign_not_found());
    throw error;
  }
  return liveStream(request, (send, end) => {
    let last = "";
    let stopped = false;
    let moving: boolean | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    /** Sends the figures when they changed; answers whether they can still change. */
    const emit = async (view: CampaignView) => {
      const figures = JSON.stringify(liveFiguresOf(view));
      const changed = figures !== last;
      if (changed) {
        last = figures;
        send({ event: "figures", data: figures });
      }
      if (!ENDED_STATUSES.includes(view.status)) return true;
      if (!followedAfterEnd(view.finishedAt)) return false;
      // Asked again only when the figures moved: until then what could move still can.
      if (changed || moving === undefined) moving = await statusesMayMove(view.id);
      return moving;
    };
    const tick = async (view?: CampaignView) => {
      if (stopped) return;
      try {
        if (!(await emit(view ?? (await getCampaign(organizationId, params.id))))) {
          send({ event: "end", data: "{}" });
          end();
          return;
        }
      } catch (error) {
        log().warn({ err: error }, "campaign events: reading the campaign failed");
      }
      if (!stopped) timer = setTimeout(() => void tick(), 1000);
    };
    void tick(first);
    return () => {
      stopped = true;
      if (timer) clearTimeout(timer);
    };
  });
}
