import { Form, href } from "react-router";
import { Trash2 } from "~/components/ui/icons";
import { Badge } from "~/components/ui/badge";
import { Button, ButtonLink } from "~/components/ui/button";
import { closeDialogHref, UrlDialog } from "~/components/ui/dialog";
import { formatWhen } from "~/lib/dates";
import {
  categoryLabel,
  heldExplanation,
  languageLabel,
  templateStatusTone,
  templateStatusWord,
  type renderTemplate,
} from "~/lib/templates";
import { MessagePreview } from "./message-preview";
import { m } from "~/paraglide/messages";

/** The template a dialog of the templates page is about, as its loader gives it. */
export interface SelectedTemplate {
  id: string;
  name: string;
  status: string;
  category: string;
  previousCategory: string | null;
  language: string;
  rejectionReason: string | null;
  platformRejection: string | null;
  qualityScore: string | null;
  lastError: string | null;
  atMeta: boolean;
  submittedAt: string | null;
  preview: ReturnType<typeof renderTemplate>;
}

/** `?dialog=view`: the template's status, Meta's and Jumbe's words about it, and its preview. */
export function TemplateViewDialog({
  selected,
  search,
  canManage,
}: {
  selected: SelectedTemplate;
  search: URLSearchParams;
  canManage: boolean;
}) {
  return (
    <UrlDialog
      name="view"
      searchParams={search}
      title={selected.name}
      description={`${categoryLabel(selected.category)} · ${languageLabel(selected.language)}`}
    >
      <div className="space-y-3">
        <p className="flex flex-wrap items-center gap-2 text-sm">
          <Badge tone={templateStatusTone(selected.status)}>{templateStatusWord(selected.status)}</Badge>
          {selected.submittedAt ? (
            <span className="text-slate-600">{m.templates_dialog_submitted({ when: formatWhen(selected.submittedAt) })}</span>
          ) : null}
          {selected.qualityScore ? (
            <span className="text-slate-600">{m.templates_dialog_quality({ quality: selected.qualityScore })}</span>
          ) : null}
        </p>
        {selected.previousCategory ? (
          <p className="text-sm text-amber-800">
            {m.templates_dialog_category_moved({ from: categoryLabel(selected.previousCategory), to: categoryLabel(selected.category) })}
          </p>
        ) : null}
        {selected.status === "held" ? <p className="text-sm text-sky-800">{heldExplanation()}</p> : null}
        {selected.status === "rejected" && selected.platformRejection ? (
          <p className="text-sm text-red-700">{m.templates_dialog_returned({ reason: selected.platformRejection })}</p>
        ) : null}
        {selected.rejectionReason ? (
          <p className="text-sm text-red-700">{m.templates_dialog_rejected({ reason: selected.rejectionReason })}</p>
        ) : null}
        {selected.lastError ? <p className="text-sm text-amber-800">{selected.lastError}</p> : null}
        <MessagePreview message={selected.preview} />
        <div className="flex flex-wrap gap-2">
          <ButtonLink to={`${href("/preview")}?template=${selected.id}`} variant="secondary" size="sm">
            {m.templates_dialog_preview()}
          </ButtonLink>
          {canManage && ["draft", "rejected", "paused"].includes(selected.status) ? (
            <ButtonLink to={href("/templates/:id/edit", { id: selected.id })} size="sm">
              {selected.status === "draft" ? m.templates_dialog_edit_submit() : m.templates_dialog_edit_resubmit()}
            </ButtonLink>
          ) : null}
        </div>
      </div>
    </UrlDialog>
  );
}

/** `?dialog=delete`: deleting asks first, and says what happens at Meta. */
export function TemplateDeleteDialog({
  selected,
  search,
  deleting,
}: {
  selected: SelectedTemplate;
  search: URLSearchParams;
  deleting: boolean;
}) {
  return (
    <UrlDialog
      name="delete"
      searchParams={search}
      title={m.templates_dialog_delete_title({ name: selected.name })}
      description={selected.atMeta ? m.templates_dialog_delete_at_meta() : m.templates_dialog_delete_draft()}
    >
      <Form method="post" className="flex justify-end gap-2">
        <input type="hidden" name="template" value={selected.id} />
        <input type="hidden" name="confirm" value="yes" />
        <ButtonLink to={closeDialogHref(search)} variant="secondary" preventScrollReset replace>
          {m.templates_cancel()}
        </ButtonLink>
        <Button type="submit" name="intent" value="delete" variant="danger" pending={deleting} pendingText={m.templates_deleting()}>
          <Trash2 className="size-4" aria-hidden /> {m.templates_delete()}
        </Button>
      </Form>
    </UrlDialog>
  );
}

/**
 * The list's two dialogs for the chosen template, which only the URL opens (`?dialog=view|delete`):
 * /templates loads them on demand in the browser (a chunk of their own, with the preview); the
 * server renders them in place (decision 061).
 */
export function TemplateDialogs({
  selected,
  search,
  canManage,
  deleting,
}: {
  selected: SelectedTemplate;
  search: URLSearchParams;
  canManage: boolean;
  deleting: boolean;
}) {
  return (
    <>
      <TemplateViewDialog selected={selected} search={search} canManage={canManage} />
      <TemplateDeleteDialog selected={selected} search={search} deleting={deleting} />
    </>
  );
}
