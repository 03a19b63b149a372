import { useId } from "react";

/** A determinate progress bar with its label and figure; screen readers get role=progressbar. */
export function ProgressBar({
  value,
  max = 100,
  label,
  valueText,
  tone = "brand",
}: {
  value: number;
  max?: number;
  label: string;
  valueText?: string;
  tone?: "brand" | "warning" | "danger";
}) {
  const id = useId();
  const clamped = Math.min(Math.max(value, 0), max);
  const percent = max > 0 ? Math.round((clamped / max) * 100) : 0;
  const fill = tone === "danger" ? "bg-red-600" : tone === "warning" ? "bg-amber-500" : "bg-brand-600";
  return (
    <div>
      <div className="mb-1 flex justify-between text-sm">
        <span id={id} className="font-medium text-slate-700">
          {label}
        </span>
        <span className="text-slate-600">{valueText ?? `${percent}%`}</span>
      </div>
      <div
        role="progressbar"
        aria-labelledby={id}
        aria-valuemin={0}
        aria-valuemax={max}
        aria-valuenow={clamped}
        aria-valuetext={valueText}
        className="h-2 overflow-hidden rounded-full bg-slate-100"
      >
        <div className={`h-full rounded-full ${fill}`} style={{ width: `${percent}%` }} />
      </div>
    </div>
  );
}
