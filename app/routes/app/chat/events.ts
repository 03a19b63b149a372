import { data } from "react-router";
import type { Route } from "./+types/events";
import { requireDeclaredResource } from "~/.server/domains/auth/guards";
import { openInboxStream } from "~/.server/domains/inbox/stream";
import { liveStream } from "~/.server/infrastructure/http/live-streams";
import type { PermissionHandle } from "~/lib/permissions";
import { m } from "~/paraglide/messages";

export const handle: PermissionHandle = { permission: "inbox:view", signInReturnsTo: "/chat" };

/**
 * GET /chat/events: the inbox as server-sent events (decision 034). `inbox` events carry a change
 * (JSON InboxLiveEvent, its id the change log's), `presence` who else is on the conversation named
 * by `conversation`, `reset` that the browser was away too long to catch up (reload), `ping` keeps
 * proxies from closing an idle stream. A browser reconnecting sends Last-Event-ID and gets what it
 * missed; a page's first connection sends `after`, the newest change it was rendered with.
 */
export async function loader(args: Route.LoaderArgs) {
  const { request } = args;
  const current = await requireDeclaredResource(args);
  if (!(request.headers.get("accept") ?? "").includes("text/event-stream")) throw data(m.inbox_events_not_a_page(), { status: 406 });
  const url = new URL(request.url);
  const lastEventId = request.headers.get("last-event-id") ?? url.searchParams.get("after") ?? "";
  const after = /^\d{1,18}$/.test(lastEventId) ? Number(lastEventId) : null;
  const stream = await openInboxStream({
    organizationId: current.organization.id,
    userId: current.user.id,
    conversationId: url.searchParams.get("conversation"),
    after,
  });
  return liveStream(request, (send) => stream.start(send));
}
