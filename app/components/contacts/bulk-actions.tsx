import { Form } from "react-router";
import { Tag, Trash2, X } from "~/components/ui/icons";
import { Button, ButtonLink } from "~/components/ui/button";
import { Field, SelectField } from "~/components/ui/field";
import { UrlDialog } from "~/components/ui/dialog";
import { byCount } from "~/lib/intl";
import { m } from "~/paraglide/messages";

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
      aria-label={m.messaging_bulk_label()}
      className="flex flex-wrap items-end gap-3 border-b border-slate-100 px-4 py-3"
    >
      {Object.entries(filterParams).map(([key, value]) => (value ? <input key={key} type="hidden" name={key} value={value} /> : null))}
      <SelectField
        label={m.messaging_bulk_apply_to()}
        name="scope"
        className="min-w-48"
        options={[
          { value: "selected", label: m.messaging_bulk_scope_selected() },
          { value: "all", label: m.messaging_bulk_scope_all({ count: matchingText }) },
        ]}
      />
      <Field label={m.messaging_contact_field_tags()} name="tags" placeholder={m.messaging_bulk_tags_placeholder()} className="min-w-48" />
      <div className="flex flex-wrap gap-2 pb-6">
        <Button type="submit" name="intent" value="tag" variant="secondary" pending={busy("tag")} pendingText={m.messaging_bulk_tagging()}>
          <Tag className="size-4" aria-hidden /> {m.messaging_bulk_add_tags()}
        </Button>
        <Button
          type="submit"
          name="intent"
          value="untag"
          variant="secondary"
          pending={busy("untag")}
          pendingText={m.messaging_bulk_untagging()}
        >
          <X className="size-4" aria-hidden /> {m.messaging_bulk_remove_tags()}
        </Button>
        <Button type="submit" name="intent" value="delete" variant="danger" pending={busy("delete")} pendingText={m.messaging_deleting()}>
          <Trash2 className="size-4" aria-hidden /> {m.messaging_delete()}
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
          ? m.messaging_bulk_delete_all_title({ count: matchingText })
          : byCount(
              confirm.ids.length,
              () => m.messaging_bulk_delete_title_one({ count: confirm.ids.length }),
              () => m.messaging_bulk_delete_title_other({ count: confirm.ids.length }),
            )
      }
      description={m.messaging_bulk_delete_description()}
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
          {m.messaging_cancel()}
        </ButtonLink>
        <Button type="submit" name="intent" value="delete" variant="danger" pending={busy} pendingText={m.messaging_deleting()}>
          <Trash2 className="size-4" aria-hidden /> {m.messaging_yes_delete()}
        </Button>
      </Form>
    </UrlDialog>
  );
}
