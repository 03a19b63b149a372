import type { Route } from "./+types/events";
import { requireDeclaredResource } from "~/.server/domains/auth/guards";
import { ENDED_STATUSES, listedFigures, type ListedFigures } from "~/.server/domains/campaigns/queries";
import { statusesMayMove } from "~/.server/domains/campaigns/progress";
import { log } from "~/.server/infrastructure/log";
import { liveStream } from "~/.server/infrastructure/http/live-streams";
import { followedAfterEnd } from "~/lib/campaign-live";
import type { PermissionHandle } from "~/lib/permissions";

export const handle: PermissionHandle = { permission: "campaigns:view", signInReturnsTo: "/messaging" };

/**
 * GET /messaging/events?ids=<id>,<id>: the Campaigns tab's live figures as server-sent events, for
 * the campaigns its page follows (`ids`, which the page draws: those sending, scheduled, paused or
 * ended within a day). Every second their status and figures are read (the freshness every reader
 * has, decision 049) and `figures` is sent when any changed; the page's script (app/assets/live.js)
 * then reads the list again and redraws its table. Once none can change any more (each ended, and
 * more than a day ago or with no status left to arrive) it says `end` and closes. Another tenant's
 * ids are ignored. Without JavaScript the list refreshes itself while one sends.
 */
export async function loader(args: Route.LoaderArgs) {
  const { request } = args;
  const current = await requireDeclaredResource(args);
  const organizationId = current.organization.id;
  const ids = (new URL(request.url).searchParams.get("ids") ?? "").split(",").filter(Boolean);
  return liveStream(request, (send, end) => {
    let last = "";
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    /** Each ended campaign's answer to "can a status still move?", asked again only when its figures change. */
    const moving = new Map<string, { figures: string; moving: boolean }>();
    const stillMoves = async (campaign: ListedFigures) => {
      if (!ENDED_STATUSES.includes(campaign.status)) return true;
      if (!followedAfterEnd(campaign.finishedAt)) return false;
      const figures = JSON.stringify(campaign.counts);
      const known = moving.get(campaign.id);
      if (known?.figures === figures) return known.moving;
      const answer = await statusesMayMove(campaign.id);
      moving.set(campaign.id, { figures, moving: answer });
      return answer;
    };
    const tick = async () => {
      if (stopped) return;
      try {
        const listed = await listedFigures(organizationId, ids);
        const figures = JSON.stringify(listed.map(({ id, status, counts }) => ({ id, status, counts })));
        if (figures !== last) {
          last = figures;
          send({ event: "figures", data: figures });
        }
        let followed = false;
        for (const campaign of listed) if (await stillMoves(campaign)) followed = true;
        if (!followed) {
          send({ event: "end", data: "{}" });
          end();
          return;
        }
      } catch (error) {
        log().warn({ err: error }, "campaigns list events: reading the figures failed");
      }
      if (!stopped) timer = setTimeout(() => void tick(), 1000);
    };
    void tick();
    return () => {
      stopped = true;
      if (timer) clearTimeout(timer);
    };
  });
}
