import { Form } from "react-router";
import { Tag, Trash2, X } from "~/components/ui/icons";
import { Button, ButtonLink } from "~/components/ui/button";
import { Field, SelectField } from "~/components/ui/field";
import { UrlDialog } from "~/components/ui/dialog";

type FilterParams = Record<string, string | undefined>;

/** Tag, untag or delete the ticked rows (their checkboxes belong to this form) or everything the filter matches. */
export function BulkBar({
  filterParams,
  matchingText,
  busy,
}: {
  filterParams: FilterParams;
  matchingText: string;
  busy: (intent: string) => boolean;
}) {
  return (
    <Form
      method="post"
      id="contacts-bulk"
      aria-label="Bulk actions"
      className="flex flex-wrap items-end gap-3 border-b border-slate-100 px-4 py-3"
    >
      {Object.entries(filterParams).map(([key, value]) => (value ? <input key={key} type="hidden" name={key} value={value} /> : null))}
      <SelectField
        label="Apply to"
        name="scope"
        className="min-w-48"
        options={[
          { value: "selected", label: "The ticked contacts" },
          { value: "all", label: `All ${matchingText} matching` },
        ]}
      />
      <Field label="Tags" name="tags" placeholder="e.g. vip, nairobi" className="min-w-48" />
      <div className="flex flex-wrap gap-2 pb-6">
        <Button type="submit" name="intent" value="tag" variant="secondary" pending={busy("tag")} pendingText="Tagging...">
          <Tag className="size-4" aria-hidden /> Add tags
        </Button>
        <Button type="submit" name="intent" value="untag" variant="secondary" pending={busy("untag")} pendingText="Untagging...">
          <X className="size-4" aria-hidden /> Remove tags
        </Button>
        <Button type="submit" name="intent" value="delete" variant="danger" pending={busy("delete")} pendingText="Deleting...">
          <Trash2 className="size-4" aria-hidden /> Delete
        </Button>
      </div>
    </Form>
  );
}

interface DeleteContactsDialogProps {
  search: URLSearchParams;
  confirm: { scope: "all" | "selected"; ids: string[] };
  filterParams: FilterParams;
  filterQuery: string;
  matchingText: string;
  busy: boolean;
}

/** "Delete N contacts?": the `?dialog=delete` state, posting the same filter or ticked ids with the confirmation. */
export function DeleteContactsDialog({ search, confirm, filterParams, filterQuery, matchingText, busy }: DeleteContactsDialogProps) {
  return (
    <UrlDialog
      name="delete"
      searchParams={search}
      title={
        confirm.scope === "all"
          ? `Delete all ${matchingText} matching contacts?`
          : `Delete ${confirm.ids.length} contact${confirm.ids.length === 1 ? "" : "s"}?`
      }
      description="Their consent records go with them; their messages stay in your history without a name. This cannot be undone."
    >
      <Form method="post" className="flex justify-end gap-2">
        {Object.entries(filterParams).map(([key, value]) => (
          <input key={key} type="hidden" name={key} value={value} />
        ))}
        <input type="hidden" name="scope" value={confirm.scope} />
        {confirm.ids.map((id) => (
          <input key={id} type="hidden" name="id" value={id} />
        ))}
        <input type="hidden" name="confirm" value="yes" />
        <ButtonLink to={`?${filterQuery}`} variant="secondary" replace>
          Cancel
        </ButtonLink>
        <Button type="submit" name="intent" value="delete" variant="danger" pending={busy} pendingText="Deleting...">
          <Trash2 className="size-4" aria-hidden /> Yes, delete
        </Button>
      </Form>
    </UrlDialog>
  );
}
