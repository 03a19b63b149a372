import { Check, Copy } from "~/components/ui/icons";
import { useEnhanced } from "./enhanced";
import { m } from "~/paraglide/messages";

/**
 * Copies `text` to the clipboard (app/assets/forms.js, `data-copy`): the same button on a hydrated
 * page and on one sent without React. Rendered hidden: without scripts there is nothing it could do,
 * and the script shows it. Pressed, it says "Copied" for two seconds (`data-copied-label`, in the
 * page's language).
 */
export function CopyButton({ text, label, subtle = false }: { text: string; label: string; subtle?: boolean }) {
  const enhanced = useEnhanced<HTMLButtonElement>();
  return (
    <button
      ref={enhanced}
      type="button"
      hidden
      data-copy={text}
      data-copied-label={m.auth_forms_copied()}
      className={`group ${
        subtle
          ? "inline-flex items-center gap-1 rounded bg-slate-700 px-2 py-1 text-xs font-medium text-white hover:bg-slate-600"
          : "inline-flex items-center gap-2 rounded-lg border border-slate-300 px-3 py-2 text-sm font-semibold text-slate-800 hover:bg-slate-50"
      }`}
    >
      <Copy className="size-4 group-data-copied:hidden" aria-hidden />
      <Check className="hidden size-4 group-data-copied:block" aria-hidden />
      <span data-copy-label>{label}</span>
    </button>
  );
}
