import { useEffect } from "react";
import { matchPath } from "react-router";

/**
 * On a hydrated page, a followed link to a page sent as a document (decisions 066 and 067; its URL
 * pattern in `patterns`, from the shell's loader) is left to the browser, which loads the document at
 * once. React Router's `<Link>` would first fetch the route's module (the page's own scripts, 5 to
 * 15 KB) only for its `clientLoader` to say "load the document". A click with a modifier key, one
 * another listener took, a link to another window or a download, or to this page's own fragment is
 * left as it is.
 */
export function useDocumentLinks(patterns: readonly string[]) {
  const key = patterns.join(" ");
  useEffect(() => {
    const list = key ? key.split(" ") : [];
    if (!list.length) return;
    const isDocument = (pathname: string) => list.some((pattern) => matchPath(pattern, pathname));
    const onClick = (event: MouseEvent) => {
      if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
      const anchor = event.target instanceof Element ? event.target.closest("a[href]") : null;
      if (!(anchor instanceof HTMLAnchorElement) || (anchor.target && anchor.target !== "_self") || anchor.hasAttribute("download")) return;
      const url = new URL(anchor.href);
      if (url.origin !== location.origin || (url.pathname === location.pathname && url.search === location.search && url.hash)) return;
      if (!isDocument(url.pathname)) return;
      // Before React's own listener (on the document): the router never sees the click.
      event.stopPropagation();
    };
    window.addEventListener("click", onClick, true);
    return () => window.removeEventListener("click", onClick, true);
  }, [key]);
}
