import { createContext, useContext } from "react";
// The one import of React Router's Link: everything else links through this one (eslint.config.js).
// eslint-disable-next-line no-restricted-imports
import { Link as RouterLink, type LinkProps } from "react-router";

/**
 * Whether the page being rendered is a document without React in the browser (a route's handle says
 * `hydrate: false`, decision 007): set once by app/root.tsx's Layout for the whole page.
 */
const DocumentPageContext = createContext(false);

export const DocumentPageProvider = DocumentPageContext.Provider;

/**
 * A link. On a page the browser hydrates it is React Router's `<Link>` (a client-side navigation).
 * On a document page no router runs in the browser, so a link to a path is the plain `<a href>` the
 * router's would be once sent: React Router's resolves its path against the matched routes and sets
 * up its click handler and prefetching on every render, which was 9% of the console's template list
 * (77 links) for markup that does nothing more than an anchor. A relative or object `to` still goes
 * through the router to be resolved.
 */
export function Link(props: LinkProps) {
  const documentPage = useContext(DocumentPageContext);
  const { to } = props;
  if (documentPage && typeof to === "string" && to.startsWith("/") && !to.startsWith("//")) {
    // The router's own props, which an anchor does not take.
    const {
      to: _to,
      replace: _replace,
      state: _state,
      preventScrollReset: _preventScrollReset,
      relative: _relative,
      reloadDocument: _reloadDocument,
      viewTransition: _viewTransition,
      discover: _discover,
      prefetch: _prefetch,
      ...anchor
    } = props;
    return <a {...anchor} href={to} />;
  }
  return <RouterLink {...props} />;
}

export type { LinkProps };
