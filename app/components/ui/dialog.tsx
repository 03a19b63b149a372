import { useEffect, useRef, type ReactNode } from "react";
import { useNavigate } from "react-router";
import { Link } from "~/components/ui/link";
import { X } from "~/components/ui/icons";
import { closeDialogHref } from "~/lib/dialog-href";
import { m } from "~/paraglide/messages";

/**
 * A modal on the native <dialog>: the browser gives focus trapping, Escape and the inert page behind
 * it, so no library is needed. It exists only with JavaScript; pages that use it also render the
 * same question server-side for browsers without.
 */
export function Dialog({
  open,
  onClose,
  labelledBy,
  children,
}: {
  open: boolean;
  onClose: () => void;
  labelledBy: string;
  children: ReactNode;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog
      ref={ref}
      onClose={onClose}
      aria-labelledby={labelledBy}
      className="m-auto w-[min(28rem,calc(100vw-2rem))] rounded-xl border border-slate-200 bg-white p-5 text-slate-900 shadow-xl backdrop:bg-slate-900/40"
    >
      {open ? children : null}
    </dialog>
  );
}

// The URLs that open and close a URL dialog: in a module of their own, so a page that only links to
// its dialogs (their content on demand) does not carry the dialog itself.
export { closeDialogHref, dialogHref } from "~/lib/dialog-href";

/**
 * A dialog that is page state: open while the URL says `?dialog=<name>`, so a link opens it and
 * the server renders it, with or without JavaScript (without, it is an open <dialog> over a dimmed
 * page, and Close is a link). Once scripts run it becomes a native modal: focus stays inside, Escape
 * closes it, and closing goes to `closeHref`.
 */
export function UrlDialog({
  name,
  searchParams,
  title,
  description,
  size = "md",
  children,
}: {
  name: string;
  searchParams: URLSearchParams;
  title: string;
  description?: ReactNode;
  /** The spec's modal sizes (sm, md, lg, xl); each stays within a phone's width. */
  size?: "sm" | "md" | "lg" | "xl";
  children: ReactNode;
}) {
  const open = searchParams.get("dialog") === name;
  const ref = useRef<HTMLDialogElement>(null);
  const navigate = useNavigate();
  const closeHref = closeDialogHref(searchParams);
  useEffect(() => {
    const dialog = ref.current;
    if (!open || !dialog || dialog.matches(":modal")) return;
    // Rendered open by the server; now that scripts run, make it modal.
    dialog.close();
    dialog.showModal();
  }, [open]);
  if (!open) return null;
  const titleId = `dialog-${name}-title`;
  return (
    <>
      <div className="fixed inset-0 z-40 bg-slate-900/40" aria-hidden />
      <dialog
        ref={ref}
        open
        aria-labelledby={titleId}
        // Where Escape goes on a page sent without React (app/assets/forms.js makes it modal there).
        data-close-href={closeHref}
        onClose={(event) => {
          // Making the server's open dialog modal closes it first, and that close event arrives after
          // showModal(): the dialog is open again then, and nothing should navigate.
          if (event.currentTarget.open) return;
          navigate(closeHref, { replace: true, preventScrollReset: true });
        }}
        className={size === "md" ? "url-dialog" : `url-dialog url-dialog-${size}`}
      >
        <div className="flex items-start justify-between gap-4">
          <h2 id={titleId} className="text-lg font-semibold">
            {title}
          </h2>
          <Link
            to={closeHref}
            replace
            preventScrollReset
            aria-label={m.app_ui_close()}
            className="rounded p-1 text-slate-500 hover:bg-slate-100 hover:text-slate-800"
          >
            <X className="size-5" aria-hidden />
          </Link>
        </div>
        {description ? <p className="mt-1 text-sm text-slate-600">{description}</p> : null}
        <div className="mt-4">{children}</div>
      </dialog>
    </>
  );
}
