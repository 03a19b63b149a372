import { Download, Plus, Upload } from "~/components/ui/icons";
import { ButtonLink, buttonClass } from "~/components/ui/button";
import { dialogHref } from "~/components/ui/dialog";
import { m } from "~/paraglide/messages";

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
          <Upload className="size-4" aria-hidden /> {m.messaging_contacts_import_button()}
        </ButtonLink>
      ) : null}
      {/* A download, not a page: a plain link drawn as the kit's secondary button. */}
      <a href={exportHref} className={buttonClass("secondary")}>
        <Download className="size-4" aria-hidden /> {m.messaging_contacts_export_button()}
      </a>
      <ButtonLink to={dialogHref(search, "add")} preventScrollReset>
        <Plus className="size-4" aria-hidden /> {m.messaging_contacts_add()}
      </ButtonLink>
    </>
  );
}
