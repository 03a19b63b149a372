import { lazy, Suspense } from "react";
import ServerErrorCard from "./page-error-card";

// In the browser it is loaded when a page fails: no page's first visit carries it (should it not
// arrive, the failure reaches the root's boundary, which every page has). The server renders it
// in place, so the page is complete without scripts (a suspended part would need a script to show).
const ErrorCard = import.meta.env.SSR ? ServerErrorCard : lazy(() => import("./page-error-card"));

/** A signed-in page's error: the shell (navigation, top bar) stays, the page says what went wrong. */
export function PageErrorBoundary() {
  return (
    <Suspense fallback={null}>
      <ErrorCard />
    </Suspense>
  );
}
