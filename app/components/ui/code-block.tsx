import type { ReactNode } from "react";
import { ChevronRight } from "lucide-react";
import { CopyButton } from "./copy-button";

/**
 * A code sample: a title bar with its label and the Copy button, then the code, which scrolls
 * sideways on its own. The button sits in the bar, never over the code, and the block never
 * widens the page (min-w-0 lets it shrink inside flex and grid parents on a phone).
 */
export function CodeBlock({ code, label, testId }: { code: string; label: string; testId?: string }) {
  return (
    <div className="min-w-0 overflow-hidden rounded-lg bg-slate-900" data-testid={testId ? `${testId}-block` : undefined}>
      <div className="flex min-h-9 items-center justify-between gap-2 border-b border-slate-700 px-3 py-1">
        <span className="font-mono text-xs text-slate-400">{label}</span>
        <CopyButton text={code} label="Copy" subtle />
      </div>
      <pre className="max-w-full overflow-x-auto p-4 text-xs text-slate-100" data-testid={testId}>
        <code>{code}</code>
      </pre>
    </div>
  );
}

/**
 * A section that opens and closes (details/summary, so it works without JavaScript), drawn as a
 * control: a bordered button-like summary with a chevron that turns when open.
 */
export function Disclosure({
  summary,
  open,
  children,
  className = "",
}: {
  summary: ReactNode;
  open?: boolean;
  children: ReactNode;
  className?: string;
}) {
  return (
    <details className={`group min-w-0 ${className}`} open={open}>
      <summary className="inline-flex cursor-pointer list-none items-center gap-1.5 rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm font-medium text-slate-800 shadow-sm select-none hover:bg-slate-50 focus-visible:ring-2 focus-visible:ring-brand-600 focus-visible:outline-none [&::-webkit-details-marker]:hidden">
        <ChevronRight className="size-4 text-slate-500 transition-transform group-open:rotate-90" aria-hidden />
        {summary}
      </summary>
      <div className="mt-2">{children}</div>
    </details>
  );
}
