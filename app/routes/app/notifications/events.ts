import { data } from "react-router";
import type { Route } from "./+types/events";
import { requireDeclaredResource } from "~/.server/domains/auth/guards";
import { bellOf } from "~/.server/domains/notifications/queries";
import { watchNotifications } from "~/.server/domains/notifications/live";
import { log } from "~/.server/infrastructure/log";
import { liveStream } from "~/.server/infrastructure/http/live-streams";
import type { PermissionHandle } from "~/lib/permissions";
import { m } from "~/paraglide/messages";
import { getLocale } from "~/paraglide/runtime";

export const handle: PermissionHandle = { permission: "notifications:view", signInReturnsTo: "/notifications" };

/** A comment-like event now and then, so proxies (nginx's 60 s read timeout) keep an idle stream open. */
const KEEPALIVE_MS = 25_000;

/**
 * GET /notifications/events: the signed-in member's bell as server-sent events (`bell`, JSON: the
 * unread count and the latest five). The first event is the bell as it is now, so a browser that
 * reconnects (after a restart, a lost connection) catches up with whatever it missed; then one each
 * time the member's notifications change on any instance (LISTEN/NOTIFY, decision 031). Its id is
 * the newest notification's.
 */
export async function loader(args: Route.LoaderArgs) {
  const { request } = args;
  const current = await requireDeclaredResource(args);
  // Only an EventSource: a page opened on it by mistake (or a crawler) is told so rather than held open.
  if (!(request.headers.get("accept") ?? "").includes("text/event-stream"))
    throw data(m.inbox_notifications_events_not_a_page(), { status: 406 });
  const reader = { userId: current.user.id, organizationId: current.organization.id };
  // Later reads run when a change is heard, outside this request: they say it in its language still.
  const locale = getLocale();
  const first = await bellOf(reader, locale);
  return liveStream(request, (send) => {
    let last = "";
    let stopped = false;
    let reading = false;
    let again = false;
    let unsubscribe: (() => Promise<void>) | undefined;
    const emit = (bell: Awaited<ReturnType<typeof bellOf>>) => {
      const data = JSON.stringify(bell);
      if (data === last) return;
      last = data;
      send({ event: "bell", data, id: bell.items[0]?.id });
    };
    // One read at a time; changes during a read make one more.
    const refresh = async () => {
      if (stopped) return;
      if (reading) {
        again = true;
        return;
      }
      reading = true;
      try {
        do {
          again = false;
          emit(await bellOf(reader, locale));
        } while (again && !stopped);
      } catch (error) {
        log().warn({ err: error }, "notification events: reading the bell failed");
      } finally {
        reading = false;
      }
    };
    const keepalive = setInterval(() => send({ event: "ping", data: "" }), KEEPALIVE_MS);
    emit(first);
    watchNotifications(reader.userId, () => void refresh())
      .then((unlisten) => {
        if (stopped) void unlisten();
        else unsubscribe = unlisten;
        // Whatever arrived between the first read and the LISTEN.
        void refresh();
      })
      .catch((error) => log().warn({ err: error }, "notification events: LISTEN failed"));
    return () => {
      stopped = true;
      clearInterval(keepalive);
      void unsubscribe?.();
    };
  });
}
