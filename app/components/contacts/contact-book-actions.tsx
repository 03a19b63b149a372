import { Download, Plus, Upload } from "~/components/ui/icons";
import { ButtonLink } from "~/components/ui/button";
import { dialogHref } from "~/components/ui/dialog";

/** The contact book's header buttons: Import, Export (the filtered CSV) and Add contact. */
export function ContactBookActions({
  importLink,
  exportHref,
  search,
}: {
  importLink: string | null;
  exportHref: string;
  search: URLSearchParams;
}) {
  return (
    <>
      {importLink ? (
        <ButtonLink to={importLink} variant="secondary">
          <Upload className="size-4" aria-hidden /> Import
        </ButtonLink>
      ) : null}
      <a
        href={exportHref}
        className="inline-flex items-center gap-2 rounded-lg border border-slate-300 bg-white px-4 py-2 text-sm font-semibold text-slate-800 shadow-sm hover:bg-slate-50"
      >
        <Download className="size-4" aria-hidden /> Export
      </a>
      <ButtonLink to={dialogHref(search, "add")} preventScrollReset>
        <Plus className="size-4" aria-hidden /> Add contact
      </ButtonLink>
    </>
  );
}
