import { Form } from "react-router";
import { getFormProps, getInputProps, getTextareaProps } from "~/components/ui/form-state";
import { Pencil, Trash2 } from "~/components/ui/icons";
import { Button, ButtonLink } from "~/components/ui/button";
import { Card, CardHeader } from "~/components/ui/card";
import { Field, FileField, FormError, TextareaField } from "~/components/ui/field";
import type { Column } from "~/components/ui/table";
import { lazySchema, useSchemaForm } from "~/components/ui/use-schema-form";
import { ARTICLE_BODY_MAX, ARTICLE_TITLE_MAX, FAQ_ROWS_MAX, knowledgeSourceWords } from "~/lib/schemas/assistant";
import { formatNumber, formatWhen } from "~/lib/dates";
import { m } from "~/paraglide/messages";

// Loaded when the form is first used (decision 061).
const lazyArticleSchema = lazySchema(() => import("~/lib/schemas/assistant-forms"), "ArticleFormSchema");

type Result = Parameters<typeof useSchemaForm>[1];

export interface ArticleRow {
  id: string;
  title: string;
  body: string;
  source: string;
  updatedAt: string;
}

const EXCERPT = 120;
const excerpt = (text: string) => {
  const characters = [...text.replace(/\s+/g, " ").trim()];
  return characters.length > EXCERPT ? `${characters.slice(0, EXCERPT - 1).join("")}…` : characters.join("");
};

/** The list's columns: the title and the start of the text, where it came from, when changed, and (for managers) edit and delete as links. */
export function articleColumns({ canManage, here }: { canManage: boolean; here: string }): Column<ArticleRow>[] {
  const columns: Column<ArticleRow>[] = [
    {
      key: "title",
      header: m.automations_knowledge_col_title(),
      cell: (row) => (
        <div className="min-w-0">
          <p className="font-medium break-words text-slate-900">{row.title}</p>
          <p className="mt-0.5 text-xs break-words text-slate-600">{excerpt(row.body)}</p>
        </div>
      ),
    },
    { key: "source", header: m.automations_knowledge_col_source(), cell: (row) => knowledgeSourceWords(row.source), hideOnPhone: true },
    { key: "updated", header: m.automations_knowledge_col_updated(), cell: (row) => formatWhen(row.updatedAt), hideOnPhone: true },
  ];
  if (canManage)
    columns.push({
      key: "actions",
      header: m.automations_knowledge_col_actions(),
      align: "right",
      cell: (row) => (
        <div className="flex flex-wrap justify-end gap-1">
          <ButtonLink
            to={`${here}?edit=${row.id}`}
            variant="ghost"
            size="sm"
            aria-label={m.automations_knowledge_edit_label({ title: row.title })}
          >
            <Pencil className="size-4" aria-hidden />
          </ButtonLink>
          <ButtonLink
            to={`${here}?confirm=delete&article=${row.id}`}
            variant="ghost"
            size="sm"
            aria-label={m.automations_knowledge_delete_label({ title: row.title })}
          >
            <Trash2 className="size-4" aria-hidden />
          </ButtonLink>
        </div>
      ),
    });
  return columns;
}

/** An article's form, new or saved: its title and text. It posts `intent=add` or `intent=update` with the id. */
export function ArticleForm({
  article,
  result,
  cancelTo,
}: {
  article: { id: string; title: string; body: string } | null;
  result: Result;
  cancelTo: string;
}) {
  const [form, fields] = useSchemaForm(lazyArticleSchema, result, {
    id: article ? `article-${article.id}` : "new-article",
    defaultValue: article ? { title: article.title, body: article.body } : {},
  });
  return (
    <Card>
      <CardHeader
        title={article ? m.automations_knowledge_edit_title({ title: article.title }) : m.automations_knowledge_add_title()}
        description={m.automations_knowledge_add_description()}
      />
      <Form method="post" {...getFormProps(form)} className="mt-4 grid gap-4">
        <FormError id={form.errorId} errors={form.errors} />
        {article ? <input type="hidden" name="id" value={article.id} /> : null}
        <Field
          label={m.automations_knowledge_field_title()}
          markRequired
          autoComplete="off"
          maxLength={ARTICLE_TITLE_MAX}
          errors={fields.title.errors}
          {...getInputProps(fields.title, { type: "text" })}
          key={fields.title.key}
        />
        <TextareaField
          label={m.automations_knowledge_field_body()}
          markRequired
          rows={8}
          hint={m.automations_knowledge_field_body_hint({ max: formatNumber(ARTICLE_BODY_MAX) })}
          errors={fields.body.errors}
          {...getTextareaProps(fields.body)}
          key={fields.body.key}
        />
        <div className="flex flex-wrap gap-2">
          <Button type="submit" name="intent" value={article ? "update" : "add"}>
            {article ? m.automations_knowledge_save() : m.automations_knowledge_add()}
          </Button>
          {article ? (
            <ButtonLink to={cancelTo} variant="secondary">
              {m.automations_cancel()}
            </ButtonLink>
          ) : null}
        </div>
      </Form>
    </Card>
  );
}

/** A CSV of questions and answers or a text PDF, posted as multipart (works without JavaScript). */
export function KnowledgeUpload({ error }: { error: string | null }) {
  return (
    <Card>
      <CardHeader
        title={m.automations_knowledge_upload_title()}
        description={m.automations_knowledge_upload_description({ max: formatNumber(FAQ_ROWS_MAX) })}
      />
      <Form method="post" encType="multipart/form-data" className="mt-4 grid gap-4">
        <FileField
          label={m.automations_knowledge_upload_file()}
          name="file"
          accept=".csv,.pdf,text/csv,application/pdf"
          hint={m.automations_knowledge_upload_hint()}
          errors={error ? [error] : undefined}
        />
        <div>
          <Button type="submit" name="intent" value="upload" variant="secondary">
            {m.automations_knowledge_upload_button()}
          </Button>
        </div>
      </Form>
    </Card>
  );
}
