import { data, href } from "react-router";
import * as z from "zod/mini";
import type { Route } from "./+types/quick-replies";
import { requireDeclaredUser, type CurrentUser } from "~/.server/domains/auth/guards";
import { intent, intentAction } from "~/.server/domains/auth/form-actions";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";
import { formFailure } from "~/.server/infrastructure/http/forms";
import { postedText } from "~/.server/infrastructure/http/posted-fields";
import { redirectWithToast } from "~/.server/infrastructure/http/toast";
import {
  createQuickReply,
  deleteQuickReply,
  listQuickReplies,
  updateQuickReply,
  type QuickReply,
} from "~/.server/domains/inbox/quick-replies";
import { QuickReplySchema } from "~/lib/schemas/quick-replies";
import { QUICK_REPLIES_MAX, QUICK_REPLY_MESSAGES } from "~/lib/schemas/quick-replies-rules";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { AddCard, EditCard } from "~/components/inbox/quick-reply-forms";
import { BackLink } from "~/components/ui/back-link";
import { ButtonLink } from "~/components/ui/button";
import { Card, CardHeader } from "~/components/ui/card";
import { ConfirmPanel } from "~/components/ui/confirm-panel";
import { Table, type Column } from "~/components/ui/table";
import { Toast } from "~/components/ui/toast";
import { useSchemaForm } from "~/components/ui/use-schema-form";
import { refusalOf, throwIfNotFound, refusalToast, refusalReply } from "~/.server/infrastructure/http/refusal-reply";
import type { PermissionHandle } from "~/lib/permissions";
import type { PageHandle } from "~/root";
import { loadAsDocument, menuDocumentPage } from "~/components/layout/document-page";
import { TextLink } from "~/components/ui/text-link";
import { m } from "~/paraglide/messages";

// A list of saved answers and their forms: sent as a document without React (decision 066); the server checks every field.
export const handle: PermissionHandle & PageHandle = { permission: "inbox:quick-replies", ...menuDocumentPage };

// Reached by a client-side navigation, it loads as a document.
export const clientLoader = loadAsDocument;

export const meta: Route.MetaFunction = () => [{ title: m.inbox_quick_meta_title() }];

/** The organisation's saved answers; `?edit=<id>` opens one for editing, `?confirm=delete&reply=<id>` asks before deleting. */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredUser(args);
  const replies = await listQuickReplies(current.organization.id);
  const params = args.url.searchParams;
  // Another organisation's id (or none at all) is not found, as in the actions.
  const chosen = (id: string | null) => {
    if (id === null) return null;
    const found = replies.find((r) => r.id === id);
    if (!found) throw data(QUICK_REPLY_MESSAGES.notFound, { status: 404 });
    return found;
  };
  return {
    replies,
    editing: chosen(params.get("edit")),
    deleting: params.get("confirm") === "delete" ? chosen(params.get("reply") ?? "") : null,
    full: replies.length >= QUICK_REPLIES_MAX,
  };
}

// A saved answer's form (`update` names the one it changes); deleting asks for a confirmation first.
const UpdateSchema = z.object({ ...QuickReplySchema.shape, id: postedText });
const DeleteSchema = z.object({ id: postedText, confirm: postedText });

export async function action(args: Route.ActionArgs) {
  const actorOf = (current: CurrentUser) => ({
    organizationId: current.organization.id,
    userId: current.user.id,
    role: current.role,
    meta: requestMeta(args.request, args.context),
  });
  const here = href("/chat/quick-replies");
  // Refused for a field (the shortcut is taken): said at the field, the form as it was sent.
  const atField = (submission: Parameters<typeof refusalReply>[0], error: unknown, intent: string) => {
    const refusal = refusalOf(error);
    if (!refusal.field) throw refusal;
    return refusalReply(submission, refusal, { extra: { intent } });
  };
  return intentAction(args, {
    permission: "inbox:quick-replies",
    intents: {
      add: intent(QuickReplySchema, async ({ value, submission, user, intent }) => {
        try {
          const saved = await createQuickReply(actorOf(user), value);
          return redirectWithToast(here, "success", m.inbox_quick_added({ shortcut: saved.shortcut }));
        } catch (error) {
          return atField(submission, error, intent);
        }
      }),
      update: intent(UpdateSchema, async ({ value: { id, ...reply }, submission, user, intent }) => {
        try {
          const saved = await updateQuickReply(actorOf(user), id, reply);
          return redirectWithToast(here, "success", m.inbox_quick_saved({ shortcut: saved.shortcut }));
        } catch (error) {
          return atField(submission, error, intent);
        }
      }),
      delete: intent(DeleteSchema, async ({ value, user, intent }) => {
        if (value.confirm !== "yes") return formFailure(null, 400, m.inbox_quick_confirm_first(), { intent });
        const gone = await deleteQuickReply(actorOf(user), value.id);
        return redirectWithToast(here, "success", m.inbox_quick_deleted({ shortcut: gone.shortcut }));
      }),
    },
    refused: (refusal, intent) => {
      throwIfNotFound(refusal);
      return refusalToast(refusal, { intent });
    },
    unknown: () => {
      throw data(m.inbox_unknown_action(), { status: 400 });
    },
  });
}

type ActionData = Route.ComponentProps["actionData"];

export default function QuickReplies({ loaderData, actionData }: Route.ComponentProps) {
  const { replies, editing, deleting, full } = loaderData;
  const here = href("/chat/quick-replies");
  const columns: Column<QuickReply>[] = [
    {
      key: "shortcut",
      header: m.inbox_quick_shortcut(),
      cell: (r) => <span className="font-mono font-medium whitespace-nowrap text-slate-900">/{r.shortcut}</span>,
    },
    {
      key: "body",
      header: m.inbox_quick_answer(),
      cell: (r) => <span className="block max-w-prose whitespace-pre-line text-slate-700">{r.body}</span>,
    },
    {
      key: "actions",
      header: <span className="sr-only">{m.inbox_quick_actions()}</span>,
      align: "right",
      cell: (r) => (
        <span className="inline-flex gap-2">
          <ButtonLink to={`?edit=${r.id}`} variant="secondary" size="sm" aria-label={m.inbox_quick_edit_label({ shortcut: r.shortcut })}>
            {m.inbox_quick_edit()}
          </ButtonLink>
          <ButtonLink
            to={`?confirm=delete&reply=${r.id}`}
            variant="secondary"
            size="sm"
            aria-label={m.inbox_quick_delete_label({ shortcut: r.shortcut })}
          >
            {m.inbox_quick_delete()}
          </ButtonLink>
        </span>
      ),
    },
  ];
  return (
    <div className="space-y-6">
      {actionData?.toast ? <Toast key={actionData.toast.id} toast={actionData.toast} /> : null}
      <div>
        <BackLink to={href("/chat")}>{m.inbox_quick_back()}</BackLink>
        <h1 className="mt-2 text-2xl font-bold tracking-tight">{m.inbox_quick_title()}</h1>
        <p className="text-slate-600">
          {m.inbox_quick_intro_before()}
          <kbd className="font-mono">/</kbd>
          {m.inbox_quick_intro_after()}
        </p>
      </div>
      {editing ? (
        <EditCard
          key={editing.id}
          reply={editing}
          result={actionData?.intent === "update" ? resultOf(actionData) : undefined}
          cancelTo={here}
        />
      ) : null}
      <Card padding="none">
        <div className="px-4 pt-4">
          <CardHeader
            title={m.inbox_quick_list_title()}
            description={m.inbox_quick_list_description({ count: replies.length, max: QUICK_REPLIES_MAX })}
          />
        </div>
        <Table
          caption={m.inbox_quick_title()}
          columns={columns}
          rows={replies}
          rowKey={(r) => r.id}
          empty={
            <>
              {m.inbox_quick_empty_before()}
              <span className="font-mono">{m.inbox_quick_empty_example()}</span>
              {m.inbox_quick_empty_after()}
            </>
          }
        />
        {deleting ? (
          <div className="px-4 pb-4">
            <ConfirmPanel
              title={m.inbox_quick_delete_title({ shortcut: deleting.shortcut })}
              intent="delete"
              confirmLabel={m.inbox_quick_delete_confirm()}
              cancelTo={here}
              fields={{ id: deleting.id }}
            >
              {m.inbox_quick_delete_body()}
            </ConfirmPanel>
          </div>
        ) : null}
      </Card>
      {full ? (
        <Card>
          <CardHeader title={m.inbox_quick_add_title()} />
          <p className="mt-1 text-sm text-slate-600">{QUICK_REPLY_MESSAGES.limit}</p>
        </Card>
      ) : (
        <AddCard result={actionData?.intent === "add" ? resultOf(actionData) : undefined} />
      )}
      <p className="text-sm text-slate-600">
        {m.inbox_quick_outside_before()}
        <TextLink to={href("/templates")} weight="medium">
          {m.inbox_quick_outside_link()}
        </TextLink>
        {m.inbox_quick_outside_after()}
      </p>
    </div>
  );
}

const resultOf = (actionData: ActionData) =>
  (actionData && "result" in actionData ? actionData.result : undefined) as Parameters<typeof useSchemaForm>[1];

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
