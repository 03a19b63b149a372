import { data, Form, href } from "react-router";
import * as z from "zod/mini";
import type { Route } from "./+types/knowledge";
import { can, requireDeclaredUser } from "~/.server/domains/auth/guards";
import { intent, intentAction, actorOf } from "~/.server/domains/auth/form-actions";
import { formFailure } from "~/.server/infrastructure/http/forms";
import { postedText } from "~/.server/infrastructure/http/posted-fields";
import { redirectWithToast } from "~/.server/infrastructure/http/toast";
import { refusalOf, refusalReply, refusalToast, throwIfNotFound } from "~/.server/infrastructure/http/refusal-reply";
import {
  addArticle,
  countArticles,
  deleteArticle,
  getArticle,
  listArticles,
  updateArticle,
} from "~/.server/domains/automations/assistant/knowledge";
import { importFaqCsv, importPdf } from "~/.server/domains/automations/assistant/upload";
import { ArticleFormSchema, ARTICLES_MAX, ASSISTANT_MESSAGES } from "~/lib/schemas/assistant-forms";
import { AUTOMATION_MESSAGES } from "~/lib/schemas/automations-rules";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { ArticleForm, articleColumns, KnowledgeUpload } from "~/components/automations/knowledge";
import { BackLink } from "~/components/ui/back-link";
import { Button } from "~/components/ui/button";
import { Card, CardHeader } from "~/components/ui/card";
import { ConfirmPanel } from "~/components/ui/confirm-panel";
import { FilterInput } from "~/components/ui/field";
import { Notice } from "~/components/ui/notice";
import { PageTitle } from "~/components/ui/page-title";
import { Table } from "~/components/ui/table";
import { Toast } from "~/components/ui/toast";
import { formatNumber } from "~/lib/dates";
import type { PermissionHandle } from "~/lib/permissions";
import type { PageHandle } from "~/root";
import { loadAsDocument, menuDocumentPage } from "~/components/layout/document-page";
import { m } from "~/paraglide/messages";

// The assistant's knowledge base: a document without React (decision 066); adding, editing, deleting
// (confirmed by URL: ?confirm=delete&article=<id>) and uploads are form posts.
export const handle: PermissionHandle & PageHandle = { permission: "automations:view", ...menuDocumentPage };

// Reached by a client-side navigation, it loads as a document.
export const clientLoader = loadAsDocument;

export const meta: Route.MetaFunction = () => [{ title: m.automations_knowledge_meta_title() }];

/** The domain's answer, or the page's 404 for another organisation's article or an unknown id. */
async function found<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    const refusal = refusalOf(error);
    throwIfNotFound(refusal);
    throw refusal;
  }
}

export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredUser(args);
  const organizationId = current.organization.id;
  const canManage = can(current.role, "automations:manage");
  const params = args.url.searchParams;
  const search = (params.get("q") ?? "").trim().slice(0, 200);
  const [articles, total] = await Promise.all([listArticles(organizationId, search), countArticles(organizationId)]);
  const editId = canManage ? params.get("edit") : null;
  const editing = editId ? await found(getArticle(organizationId, editId)) : null;
  let deleting: { id: string; title: string } | null = null;
  if (canManage && params.get("confirm") === "delete") {
    const article = await found(getArticle(organizationId, params.get("article") ?? ""));
    deleting = { id: article.id, title: article.title };
  }
  return {
    canManage,
    search,
    total,
    articles: articles.map(({ id, title, body, source, updatedAt }) => ({ id, title, body, source, updatedAt })),
    editing: editing ? { id: editing.id, title: editing.title, body: editing.body } : null,
    deleting,
  };
}

/** A posted file's bytes and name, or a refusal said at the upload. */
async function uploaded(form: FormData) {
  const file = form.get("file");
  if (!(file instanceof File) || file.size === 0) return { error: ASSISTANT_MESSAGES.fileMissing, status: 400 } as const;
  const name = file.name.toLowerCase();
  const bytes = new Uint8Array(await file.arrayBuffer());
  if (name.endsWith(".csv") || file.type === "text/csv") return { kind: "csv", name: file.name, bytes } as const;
  if (name.endsWith(".pdf") || file.type === "application/pdf") return { kind: "pdf", name: file.name, bytes } as const;
  return { error: ASSISTANT_MESSAGES.fileType, status: 415 } as const;
}

const ArticleEdit = z.extend(ArticleFormSchema, { id: postedText });
const UploadFields = z.object({});
const DeleteArticle = z.object({ id: postedText, confirm: postedText });

export async function action(args: Route.ActionArgs) {
  const here = href("/automations/knowledge");
  const edit = intent(ArticleEdit, async ({ value: { id, title, body }, submission, user, intent: posted }) => {
    try {
      const actor = actorOf(args, user);
      const article = posted === "add" ? await addArticle(actor, { title, body }) : await found(updateArticle(actor, id, { title, body }));
      return redirectWithToast(
        here,
        "success",
        posted === "add"
          ? m.automations_knowledge_added({ title: article.title })
          : m.automations_knowledge_saved({ title: article.title }),
      );
    } catch (error) {
      const refusal = refusalOf(error);
      throwIfNotFound(refusal);
      if (!refusal.field) return refusalToast(refusal, { intent: posted });
      return refusalReply(submission, refusal, { extra: { intent: posted } });
    }
  });
  return intentAction(args, {
    permission: "automations:manage",
    intents: {
      add: edit,
      update: edit,
      // The file is read from the form as it was posted (Conform's coercion would drop an empty one).
      upload: intent(UploadFields, async ({ form, user, intent: posted }) => {
        const file = await uploaded(form);
        if ("error" in file) return data({ intent: posted, uploadError: file.error, toast: null }, { status: file.status });
        try {
          if (file.kind === "csv") {
            const added = await importFaqCsv(actorOf(args, user), file.bytes);
            return redirectWithToast(here, "success", m.automations_knowledge_imported({ count: formatNumber(added.length) }));
          }
          const article = await importPdf(actorOf(args, user), file.name, file.bytes);
          return redirectWithToast(here, "success", m.automations_knowledge_added({ title: article.title }));
        } catch (error) {
          const refusal = refusalOf(error);
          return data({ intent: posted, uploadError: refusal.message, toast: null }, { status: refusal.status });
        }
      }),
      delete: intent(DeleteArticle, async ({ value, user, intent: posted }) => {
        if (value.confirm !== "yes") return formFailure(null, 400, AUTOMATION_MESSAGES.confirmFirst, { intent: posted });
        const article = await found(deleteArticle(actorOf(args, user), value.id));
        return redirectWithToast(here, "success", m.automations_knowledge_deleted({ title: article.title }));
      }),
    },
    unknown: () => {
      throw data(AUTOMATION_MESSAGES.unknownAction, { status: 400 });
    },
  });
}

type ActionData = Route.ComponentProps["actionData"];
const resultFor = (actionData: ActionData, intent: string) =>
  (actionData && actionData.intent === intent && "result" in actionData ? actionData.result : undefined) as Parameters<
    typeof ArticleForm
  >[0]["result"];

export default function Knowledge({ loaderData, actionData }: Route.ComponentProps) {
  const { canManage, search, total, articles, editing, deleting } = loaderData;
  const here = href("/automations/knowledge");
  const uploadError = actionData && "uploadError" in actionData ? actionData.uploadError : null;
  const toast = actionData && "toast" in actionData ? actionData.toast : null;
  return (
    <div className="space-y-6">
      {toast ? <Toast key={toast.id} toast={toast} /> : null}
      <div className="max-w-3xl">
        <BackLink to={href("/automations/assistant")}>{m.automations_knowledge_back()}</BackLink>
        <div className="mt-2">
          <PageTitle>{m.automations_knowledge_title()}</PageTitle>
        </div>
        <p className="text-slate-600">{m.automations_knowledge_intro()}</p>
      </div>
      {canManage ? null : (
        <div className="max-w-3xl">
          <Notice>{m.automations_read_only()}</Notice>
        </div>
      )}
      <Card padding="none">
        <div className="px-4 pt-4">
          <CardHeader
            title={m.automations_knowledge_list_title()}
            description={m.automations_knowledge_list_description({ count: formatNumber(total), max: formatNumber(ARTICLES_MAX) })}
          />
          <Form method="get" className="mt-3 flex flex-wrap items-end gap-2" role="search">
            <FilterInput label={m.automations_knowledge_search()} type="search" name="q" defaultValue={search} maxLength={200} />
            <Button type="submit" variant="secondary" size="sm">
              {m.automations_knowledge_search_button()}
            </Button>
          </Form>
        </div>
        <Table
          caption={m.automations_knowledge_list_title()}
          columns={articleColumns({ canManage, here })}
          rows={articles}
          rowKey={(row) => row.id}
          empty={search ? m.automations_knowledge_no_match() : m.automations_knowledge_empty()}
        />
        {deleting ? (
          <div className="px-4 pb-4">
            <ConfirmPanel
              title={m.automations_knowledge_delete_title({ title: deleting.title })}
              intent="delete"
              confirmLabel={m.automations_knowledge_delete_confirm()}
              cancelTo={here}
              fields={{ id: deleting.id }}
            >
              {m.automations_knowledge_delete_body()}
            </ConfirmPanel>
          </div>
        ) : null}
      </Card>
      {canManage ? (
        <div className="grid max-w-3xl gap-4">
          <ArticleForm
            key={editing?.id ?? "new"}
            article={editing}
            result={resultFor(actionData, editing ? "update" : "add")}
            cancelTo={here}
          />
          <KnowledgeUpload error={uploadError ?? null} />
        </div>
      ) : null}
    </div>
  );
}

export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
