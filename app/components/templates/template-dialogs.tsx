import { Form, href } from "react-router";
import { Trash2 } from "~/components/ui/icons";
import { Badge } from "~/components/ui/badge";
import { Button, ButtonLink } from "~/components/ui/button";
import { closeDialogHref, UrlDialog } from "~/components/ui/dialog";
import { formatWhen } from "~/lib/dates";
import {
  categoryLabel,
  HELD_EXPLANATION,
  languageLabel,
  templateStatusTone,
  templateStatusWord,
  type renderTemplate,
} from "~/lib/templates";
import { MessagePreview } from "./message-preview";

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
          {selected.submittedAt ? <span className="text-slate-600">Submitted {formatWhen(selected.submittedAt)}</span> : null}
          {selected.qualityScore ? <span className="text-slate-600">Quality: {selected.qualityScore}</span> : null}
        </p>
        {selected.previousCategory ? (
          <p className="text-sm text-amber-800">
            Meta moved it from {categoryLabel(selected.previousCategory)} to {categoryLabel(selected.category)}.
          </p>
        ) : null}
        {selected.status === "held" ? <p className="text-sm text-sky-800">{HELD_EXPLANATION}</p> : null}
        {selected.status === "rejected" && selected.platformRejection ? (
          <p className="text-sm text-red-700">Returned by Jumbe&apos;s review: {selected.platformRejection}</p>
        ) : null}
        {selected.rejectionReason ? <p className="text-sm text-red-700">Rejected: {selected.rejectionReason}</p> : null}
        {selected.lastError ? <p className="text-sm text-amber-800">{selected.lastError}</p> : null}
        <MessagePreview message={selected.preview} />
        <div className="flex flex-wrap gap-2">
          <ButtonLink to={`${href("/preview")}?template=${selected.id}`} variant="secondary" size="sm">
            Preview with your values
          </ButtonLink>
          {canManage && ["draft", "rejected", "paused"].includes(selected.status) ? (
            <ButtonLink to={href("/templates/:id/edit", { id: selected.id })} size="sm">
              {selected.status === "draft" ? "Edit and submit" : "Edit and resubmit"}
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
      title={`Delete ${selected.name}?`}
      description={
        selected.atMeta ? "It is deleted at Meta too, and Meta keeps its name from being reused for 30 days." : "The draft is removed."
      }
    >
      <Form method="post" className="flex justify-end gap-2">
        <input type="hidden" name="template" value={selected.id} />
        <input type="hidden" name="confirm" value="yes" />
        <ButtonLink to={closeDialogHref(search)} variant="secondary" preventScrollReset replace>
          Cancel
        </ButtonLink>
        <Button type="submit" name="intent" value="delete" variant="danger" pending={deleting} pendingText="Deleting...">
          <Trash2 className="size-4" aria-hidden /> Delete
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
