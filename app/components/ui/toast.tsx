import { CheckCircle2, Info, XCircle } from "~/components/ui/icons";

export interface ToastMessage {
  id?: string;
  type: "success" | "error" | "info";
  message: string;
}

const STYLES = {
  success: "border-brand-200 bg-white text-slate-900 [&_svg]:text-brand-600",
  error: "border-red-200 bg-white text-slate-900 [&_svg]:text-red-600",
  info: "border-sky-200 bg-white text-slate-900 [&_svg]:text-sky-600",
} as const;

/**
 * A top-right toast (spec section 8). It fades out by CSS, so it needs no script. It has nothing to
 * click, so clicks pass through it to the top bar's user menu underneath.
 */
export function Toast({ toast }: { toast: ToastMessage }) {
  const Icon = toast.type === "success" ? CheckCircle2 : toast.type === "error" ? XCircle : Info;
  return (
    <div className="pointer-events-none fixed top-4 right-4 z-50 flex max-w-sm flex-col gap-2" aria-live="polite">
      <div
        role={toast.type === "error" ? "alert" : "status"}
        className={`toast-auto flex items-start gap-3 rounded-lg border p-4 shadow-lg ${STYLES[toast.type]}`}
      >
        <Icon aria-hidden className="mt-0.5 size-5 shrink-0" />
        <p className="text-sm font-medium">{toast.message}</p>
      </div>
    </div>
  );
}
