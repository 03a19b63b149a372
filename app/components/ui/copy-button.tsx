import { useEffect, useState } from "react";
import { Check, Copy } from "~/components/ui/icons";

/** Copies `text` to the clipboard. Rendered only once scripts run: without them there is nothing it could do. */
export function CopyButton({ text, label, subtle = false }: { text: string; label: string; subtle?: boolean }) {
  const [ready, setReady] = useState(false);
  const [copied, setCopied] = useState(false);
  useEffect(() => setReady(true), []);
  if (!ready) return null;
  return (
    <button
      type="button"
      onClick={async () => {
        await navigator.clipboard.writeText(text);
        setCopied(true);
        setTimeout(() => setCopied(false), 2000);
      }}
      className={
        subtle
          ? "inline-flex items-center gap-1 rounded bg-slate-700 px-2 py-1 text-xs font-medium text-white hover:bg-slate-600"
          : "inline-flex items-center gap-2 rounded-lg border border-slate-300 px-3 py-2 text-sm font-semibold text-slate-800 hover:bg-slate-50"
      }
    >
      {copied ? <Check className="size-4" aria-hidden /> : <Copy className="size-4" aria-hidden />}
      {copied ? "Copied" : label}
    </button>
  );
}
