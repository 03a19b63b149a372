// The kit's disclosure menus (`details[data-menu]`, app/components/layout/menu.tsx), one
// implementation for every page: the hydrated app imports it (the Menu component starts it), pages
// rendered without React load it as a page script. Without it a menu still opens and closes (it is a
// native <details>); with it a menu also closes on a press outside it, on Escape (the focus goes back
// to its summary), and when one of its links is chosen.

let watching = false;

/** Starts watching the document's menus, once (later calls do nothing). */
export function watchMenus() {
  if (watching) return;
  watching = true;
  const openMenus = () => document.querySelectorAll("details[data-menu][open]");
  document.addEventListener("pointerdown", (event) => {
    for (const menu of openMenus()) if (!(event.target instanceof Node && menu.contains(event.target))) menu.open = false;
  });
  document.addEventListener("keydown", (event) => {
    if (event.key !== "Escape") return;
    for (const menu of openMenus()) {
      menu.open = false;
      menu.querySelector("summary")?.focus();
    }
  });
  document.addEventListener("click", (event) => {
    const link = event.target instanceof Element ? event.target.closest("details[data-menu] a") : null;
    if (link) link.closest("details").open = false;
  });
}

// Loaded as a page's own script (no React Router on the page): the whole document, now.
if (typeof window !== "undefined" && !window.__reactRouterContext) watchMenus();
