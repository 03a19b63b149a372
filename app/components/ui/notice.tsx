import type { ReactNode } from "react";

const TONES = {
  info: "border-sky-200 bg-sky-50 text-sky-900",
  warning: "border-amber-300 bg-amber-50 text-amber-900",
  success: "border-brand-200 bg-brand-50 text-brand-900",
} as const;

/** A sentence the page needs the reader to see before anything else on it (not an error of a form: FormError). */
export function Notice({ tone = "info", title, children }: { tone?: keyof typeof TONES; title?: ReactNode; children?: ReactNode }) {
  return (
    <div role={tone === "warning" ? "alert" : "status"} className={`rounded-lg border px-4 py-3 text-sm ${TONES[tone]}`}>
      {title ? <p className="font-semibold">{title}</p> : null}
      {children ? <div className={title ? "mt-1" : ""}>{children}</div> : null}
    </div>
  );
}
