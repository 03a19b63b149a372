import { useEffect, useState } from "react";
import { m } from "~/paraglide/messages";

/** The spec's full-screen loader: the product name with an ellipsis, and a sub-text. */
export function FullScreenLoader({ message = m.app_loading_jumbe(), delayed = false }: { message?: string; delayed?: boolean }) {
  // On fast navigations the loader would only flash; show it after 300 ms.
  const [visible, setVisible] = useState(!delayed);
  useEffect(() => {
    if (!delayed) return;
    const timer = setTimeout(() => setVisible(true), 300);
    return () => clearTimeout(timer);
  }, [delayed]);
  if (!visible) return null;
  return (
    <div
      role="status"
      aria-live="polite"
      className="fixed inset-0 z-40 flex flex-col items-center justify-center bg-white/90 backdrop-blur-sm"
    >
      <div className="loader-spin size-12 rounded-full border-4 border-brand-100 border-t-brand-600" aria-hidden />
      <p className="mt-4 text-lg font-semibold text-slate-900">{message}</p>
      <p className="mt-1 text-sm text-slate-500">{m.app_loading_wait()}</p>
    </div>
  );
}

/** The shell's inline loading text. */
export function ShellLoading() {
  return (
    <div role="status" className="flex items-center gap-2 p-6 text-slate-500">
      <div className="loader-spin size-4 rounded-full border-2 border-slate-200 border-t-brand-600" aria-hidden />
      {m.app_loading()}
    </div>
  );
}
