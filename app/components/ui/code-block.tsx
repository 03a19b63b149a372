import { CopyButton } from "./copy-button";
import { m } from "~/paraglide/messages";

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
        <CopyButton text={code} label={m.app_ui_copy()} subtle />
      </div>
      <pre className="max-w-full overflow-x-auto p-4 text-xs text-slate-100" data-testid={testId}>
        <code>{code}</code>
      </pre>
    </div>
  );
}
