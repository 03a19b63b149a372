import type { Plugin } from "vite";

/** The module Vite's browser build imports `__vitePreload` from, around every `import()` of the app's code. */
export const PRELOAD_HELPER_ID = "\0vite/preload-helper.js";

/**
 * The preload helper of the browser build, smaller (issue 74, decision 116). Vite wraps each
 * `import()` of the app (a lazy dialog, the error card, the console's header) in `__vitePreload`,
 * which adds a `<link rel="modulepreload">` for each file the imported chunk needs, so they download
 * side by side rather than one after another. Vite's own helper (0.4 kB gzip in the shell, on every
 * first visit) also serves what this build never has: a relative base, browsers without
 * modulepreload detection, and a `vite:preloadError` event nothing listens to. This one keeps what
 * the app uses: a modulepreload link for each script, a stylesheet link for a stylesheet the page
 * does not have yet (the import waits for it, as Vite's does: the root's stylesheet is one such
 * dependency, already linked), each once, carrying the page's script nonce (the
 * Content-Security-Policy trusts nonce'd scripts only); a failed import still rejects, and the
 * page's error boundary says so.
 */
export const PRELOAD_HELPER = `const seen = new Set();
export const __vitePreload = (load, deps) => {
  const nonce = document.querySelector("script[nonce]")?.nonce;
  const styles = [];
  for (const dep of deps ?? []) {
    const href = "/" + dep;
    const css = href.endsWith(".css");
    if (seen.has(href) || (css && document.querySelector('link[rel="stylesheet"][href="' + href + '"]'))) continue;
    seen.add(href);
    const link = document.createElement("link");
    link.rel = css ? "stylesheet" : "modulepreload";
    link.href = href;
    if (nonce) link.nonce = nonce;
    if (css) styles.push(new Promise((done) => (link.onload = link.onerror = done)));
    document.head.append(link);
  }
  return Promise.all(styles).then(load);
};
`;

export function modulePreloadHelper(): Plugin {
  return {
    name: "jumbe-module-preload-helper",
    apply: "build",
    // Before Vite's own plugin, which would load its helper for the same id.
    enforce: "pre",
    applyToEnvironment: (environment) => environment.name === "client",
    load(id) {
      return id === PRELOAD_HELPER_ID ? { code: PRELOAD_HELPER, moduleSideEffects: false } : null;
    },
  };
}
