import type { Route } from "./+types/index";
import { requireDeclaredUser } from "~/.server/domains/auth/guards";
import { inboxListData, listPlace } from "~/.server/domains/inbox/page";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { liveDocumentPage, loadAsDocument } from "~/components/layout/document-page";
import { InboxScreen } from "~/components/inbox/inbox-screen";
import { placeHref } from "~/components/inbox/conversation-list";
import { MessageCircle } from "~/components/ui/icons";
import type { PageHandle } from "~/root";
import type { PermissionHandle } from "~/lib/permissions";
import { m } from "~/paraglide/messages";

// A document without React (decision 069): the inbox's stream reads the list again as it changes
// (app/assets/live.js); without scripts, "Check for new messages" does.
export const handle: PermissionHandle & PageHandle = { permission: "inbox:view", ...liveDocumentPage };

export const meta: Route.MetaFunction = () => [{ title: m.inbox_chat_meta_title() }];

/** /chat: the organisation's conversations (spec: Chat), newest activity first, searchable and filtered. */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredUser(args);
  return inboxListData(current.organization.id, current.user.id, listPlace(args.url));
}

export const clientLoader = loadAsDocument;

export default function Chat({ loaderData }: Route.ComponentProps) {
  const { place, numbers, next, now, eventId, rows } = loaderData;
  return (
    <InboxScreen
      rows={rows}
      place={place}
      numbers={numbers}
      next={next}
      now={now}
      activeId={null}
      reloadHref={placeHref("/chat", place, { after: place.after })}
      events={`/chat/events?after=${eventId}`}
    >
      <div className="m-auto max-w-sm p-6 text-center text-slate-600">
        <MessageCircle size={40} className="mx-auto text-slate-400" />
        <p className="mt-2 font-medium text-slate-800">{m.inbox_chat_empty_title()}</p>
        <p className="text-sm">{m.inbox_chat_empty_body()}</p>
      </div>
    </InboxScreen>
  );
}

export const ErrorBoundary = PageErrorBoundary;
