import type { IconComponent } from "~/components/ui/icons";
import { Link } from "react-router";

/**
 * A figure with its label. `delta` says how it moved ("+12% on last month"), in green or red by
 * `trend`; `href` makes the whole card a link to the page behind the figure.
 */
export function StatCard({
  label,
  value,
  icon: Icon,
  hint,
  delta,
  trend,
  href,
}: {
  label: string;
  value: string;
  icon: IconComponent;
  hint?: string;
  delta?: string;
  trend?: "up" | "down" | "flat";
  href?: string;
}) {
  const body = (
    <>
      <div className="flex items-center justify-between">
        <p className="text-sm font-medium text-slate-600">{label}</p>
        <Icon className="size-5 text-brand-600" aria-hidden />
      </div>
      <p className="mt-2 text-2xl font-bold text-slate-900" data-testid={`stat-${label.toLowerCase().replace(/\W+/g, "-")}`}>
        {value}
      </p>
      {delta ? (
        <p
          className={`mt-1 text-xs font-medium ${trend === "up" ? "text-brand-700" : trend === "down" ? "text-red-700" : "text-slate-600"}`}
        >
          {delta}
        </p>
      ) : null}
      {hint ? <p className="mt-1 text-xs text-slate-500">{hint}</p> : null}
    </>
  );
  const box = "block rounded-xl border border-slate-200 bg-white p-5 shadow-sm";
  return href ? (
    <Link to={href} className={`${box} hover:border-brand-200 hover:bg-brand-50/40`}>
      {body}
    </Link>
  ) : (
    <div className={box}>{body}</div>
  );
}
