import type { Plugin } from "vite";

/**
 * React Router matches a request's path by trying its ranked route branches one after the other, a
 * regular expression per level, until one matches (`matchRoutesImpl`). A one-segment path such as
 * `/dashboard` ranks near the end of this app's 130 branches, so each request tried nearly all of
 * them, twice (the request handler, then its static handler): 5-7% of a signed-in page's server CPU
 * (decision 070). The routes never change while the server runs, so the result for a path is the
 * same every time: the server build remembers it.
 *
 * This plugin rewrites the bundled React Router (the server build takes it in, `ssr.noExternal`):
 * `matchRoutesImpl` becomes a memo in front of the original scan. The memo is per route list (a
 * WeakMap: a list made for one render is forgotten with it), keyed by the pathname with its basename and
 * whether partial matches count, at most `MEMO_SIZE` paths a list (then it starts again, so ids in
 * paths cannot grow it). Each call gets fresh match objects and a fresh params object, as the scan
 * gives, so a caller that changes them changes nothing for the next request.
 *
 * The build fails when React Router's code no longer has the function this replaces (an upgrade),
 * rather than quietly losing the saving.
 */
export const MATCH_FUNCTION = "function matchRoutesImpl(routes, locationArg, basename, allowPartial, precomputedBranches) {";
export const MEMO_SIZE = 1000;

const MEMO = `
var routeMatchMemo = new WeakMap();
function matchRoutesImpl(routes, locationArg, basename, allowPartial, precomputedBranches) {
  let list = precomputedBranches ?? routes;
  // The scan reads only the pathname: a query or a hash (unique values in them) must not make new keys.
  let path = typeof locationArg === "string" ? locationArg.split("?", 1)[0].split("#", 1)[0] : (locationArg.pathname ?? "/");
  let key = (allowPartial ? "p" : "f") + basename + "\\u0000" + path;
  let memo = routeMatchMemo.get(list);
  if (!memo) routeMatchMemo.set(list, (memo = new Map()));
  let matches = memo.get(key);
  if (matches === undefined) {
    matches = matchRoutesScan(routes, locationArg, basename, allowPartial, precomputedBranches);
    if (memo.size >= ${MEMO_SIZE}) memo.clear();
    memo.set(key, matches);
  }
  if (!matches) return matches;
  let params = matches.length ? { ...matches[matches.length - 1].params } : {};
  return matches.map((match) => ({ ...match, params }));
}
function matchRoutesScan(routes, locationArg, basename, allowPartial, precomputedBranches) {`;

/** React Router's module with the memo in front of its scan; null when the module has no scan. */
export function withRouteMatchMemo(code: string): string | null {
  const at = code.indexOf(MATCH_FUNCTION);
  if (at < 0 || code.indexOf(MATCH_FUNCTION, at + 1) >= 0) return null;
  return code.slice(0, at) + MEMO + code.slice(at + MATCH_FUNCTION.length);
}

const ROUTER_MODULE = /[\\/]node_modules[\\/]react-router[\\/]dist[\\/](development|production)[\\/][^\\/]+\.mjs$/;

/** The server build's plugin: React Router bundled, its matching memoised (see above). */
export function routeMatchMemo(): Plugin {
  let ssr = false;
  let patched = 0;
  return {
    name: "jumbe:route-match-memo",
    apply: "build",
    configResolved(config) {
      ssr = !!config.build.ssr;
    },
    transform(code, id) {
      if (!ssr || !ROUTER_MODULE.test(id) || !code.includes("function matchRoutesImpl(")) return null;
      const rewritten = withRouteMatchMemo(code);
      if (rewritten === null) this.error(`React Router's matchRoutesImpl changed shape in ${id}: decision 070's memo no longer applies`);
      patched++;
      return { code: rewritten, map: null };
    },
    buildEnd(error) {
      if (ssr && !error && patched === 0)
        this.error("React Router was not bundled into the server build: its route matching is not memoised (decision 070)");
    },
  };
}
