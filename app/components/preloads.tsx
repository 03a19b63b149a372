import { createContext, useContext } from "react";
import { preloadModule } from "react-dom";

/**
 * Modules the server wants the browser to fetch with the page's own (a hydrated page's words files,
 * decision 072), named by the server's entry. Read by the root layout while the server renders: React
 * lists them among the head's preloads. A provider, not a component beside the router, so the tree
 * (and every `useId`) is the same on the server and in the browser, where the list is empty.
 */
const PreloadsContext = createContext<readonly string[]>([]);

export const PreloadsProvider = PreloadsContext.Provider;

export function usePreloadModules(nonce: string) {
  for (const href of useContext(PreloadsContext)) preloadModule(href, { as: "script", nonce });
}
