import { useEffect, useRef, type ReactNode } from "react";

/**
 * A disclosure menu on native <details>: it opens and closes without JavaScript. With JavaScript it
 * also closes on an outside click, on Escape, and when one of its links is chosen.
 */
export function Menu({
  summary,
  label,
  children,
  className = "",
  panelClassName = "",
}: {
  summary: ReactNode;
  label: string;
  children: ReactNode;
  className?: string;
  panelClassName?: string;
}) {
  const ref = useRef<HTMLDetailsElement>(null);
  useEffect(() => {
    const details = ref.current;
    if (!details) return;
    const onPointer = (event: PointerEvent) => {
      if (details.open && !details.contains(event.target as Node)) details.open = false;
    };
    const onKey = (event: KeyboardEvent) => {
      if (event.key === "Escape" && details.open) {
        details.open = false;
        details.querySelector("summary")?.focus();
      }
    };
    const onClick = (event: MouseEvent) => {
      if ((event.target as HTMLElement).closest("a")) details.open = false;
    };
    document.addEventListener("pointerdown", onPointer);
    document.addEventListener("keydown", onKey);
    details.addEventListener("click", onClick);
    return () => {
      document.removeEventListener("pointerdown", onPointer);
      document.removeEventListener("keydown", onKey);
      details.removeEventListener("click", onClick);
    };
  }, []);
  return (
    <details ref={ref} className={`relative ${className}`}>
      <summary aria-label={label} className="list-none">
        {summary}
      </summary>
      <div className={`absolute z-30 mt-2 rounded-xl border border-slate-200 bg-white shadow-lg ${panelClassName}`}>{children}</div>
    </details>
  );
}
