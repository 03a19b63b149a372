import { data, redirect, Form, useActionData } from "react-router";
import { Link } from "~/components/ui/link";
import type { Route } from "./+types/conversation";
import { can, requireDeclaredUser } from "~/.server/domains/auth/guards";
import { redirectWithToast } from "~/.server/infrastructure/http/toast";
import { conversationOr404 } from "~/.server/domains/inbox/list";
import { conversationData, inboxEventId, listPlace, placeSearch, productPickerOf } from "~/.server/domains/inbox/page";
import { markConversationOpened } from "~/.server/domains/inbox/actions";
import { presenceOf } from "~/.server/domains/inbox/live";
import { inboxPost } from "~/.server/domains/inbox/handle-action";
import { listPaymentRequests, shortcodeChoices } from "~/.server/domains/payments";
import { smsConnectionOf, smsOnlyOf } from "~/.server/domains/sms";
import { conversionsOfConversation } from "~/.server/domains/ads";
import { PaymentRequestCards, PaymentRequestForm } from "~/components/payment-requests/payment-request-panel";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { liveDocumentPage, loadAsDocument } from "~/components/layout/document-page";
import { InboxScreen } from "~/components/inbox/inbox-screen";
import { placeHref } from "~/components/inbox/conversation-list";
import { ThreadView } from "~/components/inbox/thread-view";
import { NoteForm, ReplyComposer, TemplatePicker, type InboxActionData } from "~/components/inbox/composer";
import { ProductPicker } from "~/components/shop/product-picker";
import { windowWords } from "~/components/inbox/window-words";
import { AdEntry } from "~/components/inbox/ad-entry";
import { useCan } from "~/components/layout/shell-role";
import { ArrowLeft } from "~/components/ui/icons";
import { Badge } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import { Notice } from "~/components/ui/notice";
import type { PageHandle } from "~/root";
import type { PermissionHandle } from "~/lib/permissions";
import { m } from "~/paraglide/messages";

// A document without React (decision 069): the inbox's stream reads the page again when something
// about this conversation changes (app/assets/live.js: the thread, the header, who is on it); the
// reply and the note are sent without leaving the page. Without scripts each form posts and the page
// comes back, and a reload shows what changed.
export const handle: PermissionHandle & PageHandle = { permission: "inbox:view", ...liveDocumentPage };

export const meta: Route.MetaFunction = ({ data }) => [
  { title: m.inbox_conversation_meta_title({ name: data?.conversation.name ?? m.inbox_conversation() }) },
];

/**
 * /chat/<id>: one conversation beside the list. Opening it (by a member who answers) marks the
 * customer's messages read, here and at Meta. `before` pages the thread back, `reply` quotes a
 * message in the composer, `template` opens a template's values when the window is closed. The
 * header names the colleagues on it (viewing it, or typing).
 */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredUser(args);
  const organizationId = current.organization.id;
  const now = new Date();
  const conversation = await conversationOr404(organizationId, args.params.id, now);
  const url = args.url;
  const place = listPlace(url);
  const marksRead = can(current.role, "inbox:reply");
  if (marksRead) await markConversationOpened(organizationId, conversation);
  // The list beside the thread is not in this page: a phone shows one or the other, and a wide
  // screen's browser asks /chat for it once the thread is drawn (issue 42).
  const [eventId, page, present, paymentRequests, shortcodes, sms, conversions] = await Promise.all([
    inboxEventId(organizationId),
    conversationData(organizationId, conversation, url.searchParams.get("before"), productPickerOf(url)),
    presenceOf(conversation.id),
    listPaymentRequests(organizationId, { conversationId: conversation.id, limit: 5 }),
    shortcodeChoices(organizationId),
    conversation.phone !== null ? smsConnectionOf(organizationId) : null,
    conversation.ad ? conversionsOfConversation(organizationId, conversation.id) : null,
  ]);
  const replyId = url.searchParams.get("reply");
  const quoted = replyId ? page.thread.items.find((i) => i.type === "message" && i.id === replyId && i.direction === "inbound") : undefined;
  const templateId = url.searchParams.get("template");
  return {
    place,
    now: now.toISOString(),
    eventId,
    conversation: { ...conversation, unread: 0, conversions },
    thread: page.thread,
    quickReplies: page.quickReplies,
    shopProducts: page.shopProducts,
    members: page.members,
    templates: page.templates,
    chosenTemplate: page.templates.find((t) => t.id === templateId) ?? null,
    replyTo:
      quoted && quoted.type === "message"
        ? {
            id: quoted.id,
            text: quoted.content.kind === "text" ? quoted.content.text.slice(0, 120) : m.inbox_conversation_quote_fallback(),
          }
        : null,
    viewerId: current.user.id,
    presence: present.filter((member) => member.id !== current.user.id),
    before: url.searchParams.get("before"),
    listSearch: placeSearch(place),
    paymentRequests,
    shortcodes,
    // "Send as SMS" (issue 77) when the organisation has Africa's Talking connected.
    smsReady: sms !== null,
    smsOnly: smsOnlyOf(conversation, page.thread.items),
  };
}

/** The thread's actions: send, template, note, assign, take, unassign, resolve, reopen, retry, read, typing. */
export async function action(args: Route.ActionArgs) {
  const { conversation, outcome } = await inboxPost(args);
  const back = `/chat/${conversation.id}${placeSearch(listPlace(args.url))}`;
  if (outcome.kind === "refused")
    return data<InboxActionData>({ errors: outcome.errors, values: outcome.values }, { status: outcome.status });
  if (outcome.kind === "quiet") return new Response(null, { status: 204 });
  if (outcome.toast) return redirectWithToast(back, "success", outcome.toast);
  return redirect(back);
}

export const clientLoader = loadAsDocument;

export default function Conversation({ loaderData }: Route.ComponentProps) {
  const { place, now, eventId, conversation, presence, thread, quickReplies, members, templates, chosenTemplate, replyTo, listSearch } =
    loaderData;
  const { shopProducts, smsOnly } = loaderData;
  const failed = useActionData<typeof action>() as InboxActionData | undefined;
  const canReply = useCan("inbox:reply");
  const canAssign = useCan("inbox:assign");
  const base = `/chat/${conversation.id}`;
  const withParams = (extra: Record<string, string>) => {
    const params = new URLSearchParams(listSearch.slice(1));
    for (const [k, v] of Object.entries(extra)) params.set(k, v);
    const text = params.toString();
    return text ? `${base}?${text}` : base;
  };
  const mine = conversation.assignee?.id === loaderData.viewerId;
  return (
    <InboxScreen
      rows={null}
      place={place}
      next={null}
      now={now}
      activeId={conversation.id}
      reloadHref={withParams(loaderData.before ? { before: loaderData.before } : {})}
      events={`/chat/events?after=${eventId}&conversation=${conversation.id}`}
      match={conversation.id}
    >
      <header
        id="inbox-header"
        data-live-region=""
        className="flex flex-wrap items-center gap-x-3 gap-y-1 border-b border-slate-200 bg-white px-3 py-2"
      >
        <Link
          to={placeHref("/chat", place)}
          className="rounded-lg p-1 text-slate-600 hover:bg-slate-100 md:hidden"
          aria-label={m.inbox_conversation_back()}
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
            {conversation.phone ? `${conversation.phone} · ` : ""}
            {m.inbox_conversation_to_number({ number: conversation.businessNumber })} ·{" "}
            <span data-testid="window-state">{windowWords(conversation.window, now, true)}</span>
            {presence.length ? (
              <span className="text-brand-800" data-testid="presence">
                {" "}
                ·{" "}
                {presence
                  .map((member) =>
                    member.state === "typing"
                      ? m.inbox_presence_typing({ name: member.name })
                      : m.inbox_presence_viewing({ name: member.name }),
                  )
                  .join(", ")}
              </span>
            ) : null}
          </p>
          <AdEntry ad={conversation.ad} freeEntryUntil={conversation.freeEntryUntil} now={now} conversions={conversation.conversions} />
        </div>
        <Badge tone={conversation.status === "open" ? "success" : "neutral"}>
          {conversation.status === "open" ? m.inbox_status_open() : m.inbox_status_resolved()}
        </Badge>
        {canReply ? (
          <div className="flex flex-wrap items-center gap-1">
            {canAssign ? (
              <Form method="post" className="flex items-center gap-1">
                <label htmlFor="assignee" className="sr-only">
                  {m.inbox_assign_label()}
                </label>
                <select
                  id="assignee"
                  name="assignee"
                  defaultValue={conversation.assignee?.id ?? ""}
                  key={conversation.assignee?.id ?? "nobody"}
                  className="rounded-lg border border-slate-300 px-2 py-1 text-xs"
                >
                  <option value="">{m.inbox_assign_nobody()}</option>
                  {members.map((member) => (
                    <option key={member.id} value={member.id}>
                      {member.name}
                    </option>
                  ))}
                </select>
                <Button type="submit" name="intent" value="assign" size="sm" variant="secondary">
                  {m.inbox_assign_button()}
                </Button>
              </Form>
            ) : (
              <Form method="post">
                {mine ? (
                  <Button type="submit" name="intent" value="unassign" size="sm" variant="secondary">
                    {m.inbox_let_go()}
                  </Button>
                ) : (
                  <Button type="submit" name="intent" value="take" size="sm" variant="secondary">
                    {conversation.assignee ? m.inbox_take_from({ name: conversation.assignee.name }) : m.inbox_take()}
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
                {conversation.status === "open" ? m.inbox_resolve() : m.inbox_reopen()}
              </Button>
            </Form>
          </div>
        ) : conversation.assignee ? (
          <span className="text-xs text-slate-600">{m.inbox_assigned_to({ name: conversation.assignee.name })}</span>
        ) : null}
      </header>
      <div id="inbox-notice" data-live-region="">
        {failed?.errors?.form ? (
          <div className="px-3 pt-2">
            <Notice tone="warning">{failed.errors.form}</Notice>
          </div>
        ) : null}
      </div>
      <div id="inbox-payments" data-live-region="" className={loaderData.paymentRequests.length ? "px-3 pt-2" : undefined}>
        <PaymentRequestCards requests={loaderData.paymentRequests} mayCancel={canReply} error={failed?.errors?.["payment-card"]} />
      </div>
      <div className="min-h-0 flex-1 overflow-y-auto px-3 py-3" data-testid="thread-scroll" data-live-scroll="end">
        <div id="inbox-thread" data-live-region="">
          <ThreadView
            items={thread.items}
            olderHref={thread.older ? withParams({ before: thread.older }) : null}
            canReply={canReply && conversation.window.open}
            replyHref={(id) => withParams({ reply: id })}
          />
        </div>
      </div>
      <footer className="space-y-2 border-t border-slate-200 bg-white p-3">
        <div id="inbox-composer" data-live-region="">
          {!canReply ? (
            <p className="text-sm text-slate-600">{m.inbox_role_reads_only()}</p>
          ) : smsOnly === "conversation" ? (
            <Notice tone="warning">{m.sms_only_notice({ name: conversation.name })}</Notice>
          ) : conversation.window.open ? (
            <ReplyComposer quickReplies={quickReplies} replyTo={replyTo} cancelReplyHref={withParams({})} failed={failed} />
          ) : (
            <TemplatePicker
              templates={templates}
              chosen={chosenTemplate}
              pickerAction={base}
              failed={failed}
              windowText={smsOnly ? m.sms_only_contact_notice({ name: conversation.name }) : windowWords(conversation.window, now)}
            />
          )}
        </div>
        {canReply ? (
          // Outside the window the request goes as the approved payment template (decision 140).
          <div id="inbox-payment-request" data-live-region="">
            <PaymentRequestForm shortcodes={loaderData.shortcodes} errors={failed?.errors} values={failed?.values} />
          </div>
        ) : null}
        {canReply && conversation.window.open ? (
          <div id="inbox-shop" data-live-region="">
            <ProductPicker picker={shopProducts} action={base} failed={failed} />
          </div>
        ) : null}
        {canReply && loaderData.smsReady ? (
          <Link to={`${base}/sms`} className="text-sm font-medium text-brand-700 hover:underline">
            {m.sms_composer_title()}
          </Link>
        ) : null}
        {canReply ? (
          <div id="inbox-note" data-live-region="">
            <NoteForm failed={failed} />
          </div>
        ) : null}
      </footer>
    </InboxScreen>
  );
}

export const ErrorBoundary = PageErrorBoundary;
