import { createContext, useContext } from "react";

/**
 * In the browser, the nonce this page was served with, read back from a nonce'd element (the
 * `nonce` property keeps it where the attribute is hidden), so elements React hydrates with a
 * nonce match the server's HTML. Empty where there is none.
 */
function pageNonce() {
  if (typeof document === "undefined") return "";
  return document.querySelector<HTMLElement>("script[nonce], style[nonce], link[nonce]")?.nonce ?? "";
}

const NonceContext = createContext(pageNonce());

export const NonceProvider = NonceContext.Provider;

/** The request's CSP nonce: the server's for this request; in the browser, the page's own. */
export function useNonce() {
  return useContext(NonceContext);
}
