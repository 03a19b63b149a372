import { data, redirect, Form, Link, useActionData, type ShouldRevalidateFunctionArgs } from "react-router";
import type { Route } from "./+types/conversation";
import { can, requireUserWithPermission } from "~/.server/domains/auth/guards";
import { readForm } from "~/.server/infrastructure/http/forms";
import { redirectWithToast } from "~/.server/infrastructure/http/toast";
import { findConversation } from "~/.server/domains/inbox/list";
import { conversationData, inboxEventId, listPlace, placeSearch } from "~/.server/domains/inbox/page";
import { markConversationOpened } from "~/.server/domains/inbox/actions";
import { handleInboxAction } from "~/.server/domains/inbox/handle-action";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { InboxScreen } from "~/components/inbox/inbox-screen";
import { placeHref } from "~/components/inbox/conversation-list";
import { ThreadView } from "~/components/inbox/thread-view";
import { NoteForm, ReplyComposer, TemplatePicker, type InboxActionData } from "~/components/inbox/composer";
import { windowWords } from "~/components/inbox/window-words";
import { useInboxLive } from "~/components/inbox/use-inbox-live";
import { useDeferredList } from "~/components/inbox/use-deferred-list";
import { useCan } from "~/components/layout/shell-role";
import { ArrowLeft } from "~/components/ui/icons";
import { Badge } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import { Notice } from "~/components/ui/notice";
import type { PermissionHandle } from "~/lib/permissions";
import type { ConversationListRow } from "~/lib/inbox";

export const handle: PermissionHandle = { permission: "inbox:view" };

export const meta: Route.MetaFunction = ({ data }) => [{ title: `${data?.conversation.name ?? "Conversation"} | Chat | Jumbe` }];

/**
 * /chat/<id>: one conversation beside the list. Opening it (by a member who answers) marks the
 * customer's messages read, here and at Meta. `before` pages the thread back, `reply` quotes a
 * message in the composer, `template` opens a template's values when the window is closed.
 */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireUserWithPermission(args, "inbox:view");
  const organizationId = current.organization.id;
  const now = new Date();
  const conversation = await findConversation(organizationId, args.params.id, now);
  if (!conversation) throw data("No such conversation in your organisation.", { status: 404 });
  const url = args.url;
  const place = listPlace(url);
  const marksRead = can(current.role, "inbox:reply");
  if (marksRead) await markConversationOpened(organizationId, conversation);
  // The list beside the thread is not in this page: a phone shows one or the other, and a wide
  // screen's browser asks /chat for it once the thread is drawn (issue 42).
  const [eventId, page] = await Promise.all([
    inboxEventId(organizationId),
    conversationData(organizationId, conversation, url.searchParams.get("before")),
  ]);
  const replyId = url.searchParams.get("reply");
  const quoted = replyId ? page.thread.items.find((i) => i.type === "message" && i.id === replyId && i.direction === "inbound") : undefined;
  const templateId = url.searchParams.get("template");
  return {
    place,
    now: now.toISOString(),
    eventId,
    conversation: { ...conversation, unread: 0 },
    thread: page.thread,
    quickReplies: page.quickReplies,
    members: page.members,
    templates: page.templates,
    chosenTemplate: page.templates.find((t) => t.id === templateId) ?? null,
    replyTo:
      quoted && quoted.type === "message"
        ? { id: quoted.id, text: quoted.content.kind === "text" ? quoted.content.text.slice(0, 120) : "a message" }
        : null,
    viewerId: current.user.id,
    marksRead,
    before: url.searchParams.get("before"),
    listSearch: placeSearch(place),
  };
}

/** The thread's actions: send, template, note, assign, take, unassign, resolve, reopen, retry, read, typing. */
export async function action(args: Route.ActionArgs) {
  const current = await requireUserWithPermission(args, "inbox:view");
  const conversation = await findConversation(current.organization.id, args.params.id);
  if (!conversation) throw data("No such conversation in your organisation.", { status: 404 });
  const outcome = await handleInboxAction(current, conversation, args.request, readForm);
  const back = `/chat/${conversation.id}${placeSearch(listPlace(args.url))}`;
  if (outcome.kind === "refused")
    return data<InboxActionData>({ errors: outcome.errors, values: outcome.values }, { status: outcome.status });
  if (outcome.kind === "quiet") return new Response(null, { status: 204 });
  // The page's live stream brings the message or note: a small answer, and no reload of the page's data.
  if (outcome.live) return { sent: true as const };
  if (outcome.toast) return redirectWithToast(back, "success", outcome.toast);
  return redirect(back);
}

/**
 * A reply or note sent while the live stream is open needs no reload: the stream brings it. Nor does
 * the typing signal (a post every few seconds while an agent types), which changes nothing shown here.
 */
export function shouldRevalidate({ formData, actionResult, defaultShouldRevalidate }: ShouldRevalidateFunctionArgs) {
  if (formData?.get("intent") === "typing") return false;
  if (formData?.get("live") === "1" && (actionResult as { sent?: boolean } | undefined)?.sent) return false;
  return defaultShouldRevalidate;
}

// Until the list arrives (or on a phone, never): one empty array for every render, as /chat's NO_ITEMS.
const NO_ROWS: ConversationListRow[] = [];
const NO_NUMBERS: { id: string; label: string }[] = [];

export default function Conversation({ loaderData }: Route.ComponentProps) {
  const { place, now, eventId, viewerId, thread, quickReplies, members, templates, chosenTemplate, replyTo, listSearch } = loaderData;
  const failed = useActionData<typeof action>() as InboxActionData | undefined;
  const canReply = useCan("inbox:reply");
  const canAssign = useCan("inbox:assign");
  const list = useDeferredList(listSearch, loaderData.conversation.id);
  const live = useInboxLive({
    eventId,
    place,
    viewerId,
    rows: list?.rows ?? NO_ROWS,
    conversation: loaderData.conversation,
    items: thread.items,
    marksRead: loaderData.marksRead,
  });
  const conversation = live.conversation ?? loaderData.conversation;
  const base = `/chat/${conversation.id}`;
  const withParams = (extra: Record<string, string>) => {
    const params = new URLSearchParams(listSearch.slice(1));
    for (const [k, v] of Object.entries(extra)) params.set(k, v);
    const text = params.toString();
    return text ? `${base}?${text}` : base;
  };
  const mine = conversation.assignee?.id === viewerId;
  return (
    <InboxScreen
      rows={list ? live.rows : null}
      place={place}
      numbers={list?.numbers ?? NO_NUMBERS}
      next={list?.next ?? null}
      now={now}
      activeId={conversation.id}
      reloadHref={withParams(loaderData.before ? { before: loaderData.before } : {})}
      live={live.live}
    >
      <header className="flex flex-wrap items-center gap-x-3 gap-y-1 border-b border-slate-200 bg-white px-3 py-2">
        <Link
          to={placeHref("/chat", place)}
          className="rounded-lg p-1 text-slate-600 hover:bg-slate-100 md:hidden"
          aria-label="Back to conversations"
        >
          <ArrowLeft size={20} />
        </Link>
        <div className="min-w-0 flex-1">
          <h2 className="truncate font-semibold text-slate-900">
            <Link to={`/messaging/contacts/${conversation.contactId}`} className="hover:underline">
              {conversation.name}
            </Link>
          </h2>
          <p className="truncate text-xs text-slate-600">
            {conversation.phone ? `${conversation.phone} · ` : ""}to {conversation.businessNumber} ·{" "}
            <span data-testid="window-state">{windowWords(conversation.window, now, true)}</span>
            {live.presence.length ? (
              <span className="text-brand-800" data-testid="presence">
                {" "}
                · {live.presence.map((m) => `${m.name} is ${m.state}`).join(", ")}
              </span>
            ) : null}
          </p>
        </div>
        <Badge tone={conversation.status === "open" ? "success" : "neutral"}>{conversation.status === "open" ? "Open" : "Resolved"}</Badge>
        {canReply ? (
          <div className="flex flex-wrap items-center gap-1">
            {canAssign ? (
              <Form method="post" className="flex items-center gap-1">
                <label htmlFor="assignee" className="sr-only">
                  Assign to
                </label>
                <select
                  id="assignee"
                  name="assignee"
                  defaultValue={conversation.assignee?.id ?? ""}
                  key={conversation.assignee?.id ?? "nobody"}
                  className="rounded-lg border border-slate-300 px-2 py-1 text-xs"
                >
                  <option value="">Nobody</option>
                  {members.map((m) => (
                    <option key={m.id} value={m.id}>
                      {m.name}
                    </option>
                  ))}
                </select>
                <Button type="submit" name="intent" value="assign" size="sm" variant="secondary">
                  Assign
                </Button>
              </Form>
            ) : (
              <Form method="post">
                {mine ? (
                  <Button type="submit" name="intent" value="unassign" size="sm" variant="secondary">
                    Let go
                  </Button>
                ) : (
                  <Button type="submit" name="intent" value="take" size="sm" variant="secondary">
                    {conversation.assignee ? `Take from ${conversation.assignee.name}` : "Take"}
                  </Button>
                )}
              </Form>
            )}
            <Form method="post">
              <Button
                type="submit"
                name="intent"
                value={conversation.status === "open" ? "resolve" : "reopen"}
                size="sm"
                variant="secondary"
              >
                {conversation.status === "open" ? "Resolve" : "Reopen"}
              </Button>
            </Form>
          </div>
        ) : conversation.assignee ? (
          <span className="text-xs text-slate-600">Assigned to {conversation.assignee.name}</span>
        ) : null}
      </header>
      {failed?.errors?.form ? (
        <div className="px-3 pt-2">
          <Notice tone="warning">{failed.errors.form}</Notice>
        </div>
      ) : null}
      <div className="min-h-0 flex-1 overflow-y-auto px-3 py-3" data-testid="thread-scroll">
        <ThreadView
          items={live.items}
          olderHref={thread.older ? withParams({ before: thread.older }) : null}
          canReply={canReply && conversation.window.open}
          replyHref={(id) => withParams({ reply: id })}
        />
      </div>
      <footer className="space-y-2 border-t border-slate-200 bg-white p-3">
        {!canReply ? (
          <p className="text-sm text-slate-600">Your role reads conversations; owners, admins and agents answer them.</p>
        ) : conversation.window.open ? (
          <ReplyComposer quickReplies={quickReplies} replyTo={replyTo} cancelReplyHref={withParams({})} failed={failed} live={live.live} />
        ) : (
          <TemplatePicker
            templates={templates}
            chosen={chosenTemplate}
            pickerAction={base}
            failed={failed}
            windowText={windowWords(conversation.window, now)}
          />
        )}
        {canReply ? <NoteForm failed={failed} live={live.live} /> : null}
      </footer>
    </InboxScreen>
  );
}

export const ErrorBoundary = PageErrorBoundary;
