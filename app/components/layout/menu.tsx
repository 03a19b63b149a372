import { useEffect, type ReactNode } from "react";
import { watchMenus } from "~/assets/menus.js";
import menusScript from "~/assets/menus.js?url";

/** The menus' behaviour as a page script, for pages rendered without React. */
export { menusScript };

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
  // Closing on an outside press, Escape or a chosen link: app/assets/menus.js, shared with pages without React.
  useEffect(watchMenus, []);
  return (
    <details data-menu className={`relative ${className}`}>
      <summary aria-label={label} className="list-none">
        {summary}
      </summary>
      <div className={`menu-panel ${panelClassName}`}>{children}</div>
    </details>
  );
}
