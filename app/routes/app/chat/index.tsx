import type { ShouldRevalidateFunctionArgs } from "react-router";
import type { Route } from "./+types/index";
import { requireUserWithPermission } from "~/.server/domains/auth/guards";
import { inboxListData, listPlace } from "~/.server/domains/inbox/page";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { InboxScreen } from "~/components/inbox/inbox-screen";
import { placeHref } from "~/components/inbox/conversation-list";
import { useInboxLive } from "~/components/inbox/use-inbox-live";
import { MessageCircle } from "~/components/ui/icons";
import type { ThreadItem } from "~/lib/inbox";
import type { PermissionHandle } from "~/lib/permissions";

export const handle: PermissionHandle = { permission: "inbox:view" };

// The list alone has no thread: one empty array for every render (a new `[]` each time would make
// useInboxLive's effect set its state on every render, a loop that starves React's navigations).
const NO_ITEMS: ThreadItem[] = [];

export const meta: Route.MetaFunction = () => [{ title: "Chat | Jumbe" }];

/** /chat: the organisation's conversations (spec: Chat), newest activity first, searchable and filtered. */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireUserWithPermission(args, "inbox:view");
  const list = await inboxListData(current.organization.id, current.user.id, listPlace(args.url));
  return { ...list, viewerId: current.user.id };
}

/**
 * Beside a conversation the list is this loader's answer in a fetcher (useDeferredList). What the
 * thread posts while it is open changes no row the live stream does not bring: a typing signal, a
 * read mark, a reply or note sent live. Anything else (assigning, resolving) reads it again.
 */
export function shouldRevalidate({ formData, actionResult, defaultShouldRevalidate }: ShouldRevalidateFunctionArgs) {
  const intent = formData?.get("intent");
  if (intent === "typing" || intent === "read") return false;
  if (formData?.get("live") === "1" && (actionResult as { sent?: boolean } | undefined)?.sent) return false;
  return defaultShouldRevalidate;
}

export default function Chat({ loaderData }: Route.ComponentProps) {
  const { place, numbers, next, now, eventId, viewerId } = loaderData;
  const live = useInboxLive({ eventId, place, viewerId, rows: loaderData.rows, conversation: null, items: NO_ITEMS, marksRead: false });
  return (
    <InboxScreen
      rows={live.rows}
      place={place}
      numbers={numbers}
      next={next}
      now={now}
      activeId={null}
      reloadHref={placeHref("/chat", place, { after: place.after })}
      live={live.live}
    >
      <div className="m-auto max-w-sm p-6 text-center text-slate-600">
        <MessageCircle size={40} className="mx-auto text-slate-400" />
        <p className="mt-2 font-medium text-slate-800">Choose a conversation</p>
        <p className="text-sm">
          Customers who write to your WhatsApp number appear on the left. Answer them within 24 hours of their last message.
        </p>
      </div>
    </InboxScreen>
  );
}

export const ErrorBoundary = PageErrorBoundary;
