import { useEffect, useRef, type ReactNode } from "react";

/**
 * A modal on the native <dialog>: the browser gives focus trapping, Escape and the inert page behind
 * it, so no library is needed. It exists only with JavaScript; pages that use it also render the
 * same question server-side for browsers without.
 */
export function Dialog({ open, onClose, labelledBy, children }: { open: boolean; onClose: () => void; labelledBy: string; children: ReactNode }) {
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
