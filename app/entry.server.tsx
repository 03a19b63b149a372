import type { ReactNode } from "react";
import type { EntryContext, RouterContextProvider } from "react-router";
import { isRouteErrorResponse, ServerRouter } from "react-router";
import { renderToString } from "react-dom/server";
import { NonceProvider } from "~/components/nonce";
import { PreloadsProvider } from "~/components/preloads";
import { requestInfoOf } from "~/.server/infrastructure/http/context";
import { log } from "~/.server/infrastructure/log";
import { noteRequestError } from "~/.server/infrastructure/http/database-unavailable";
import { clientErrorStatus, logRefusal } from "~/.server/infrastructure/http/error-page";
import { browserWordsOf } from "~/.server/infrastructure/http/browser-words";
import { getLocale } from "~/paraglide/runtime";
import { pseudoLocalize, wantsPseudoLocale } from "~/.server/infrastructure/http/pseudo-locale";

export const streamTimeout = 5_000;

export default async function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  routerContext: EntryContext,
  loadContext: RouterContextProvider,
) {
  if (request.method.toUpperCase() === "HEAD") return new Response(null, { status: responseStatusCode, headers: responseHeaders });
  const nonce = requestInfoOf(loadContext).cspNonce;
  const documentPage = isDocumentPage(routerContext);
  // A hydrated page's words, in its language (decision 072): the import map first in the head,
  // before any module is fetched, and the routes' words files among the page's preloads.
  const words = documentPage
    ? undefined
    : browserWordsOf(
        getLocale(),
        routerContext.staticHandlerContext.matches.map((match) => match.route.id),
      );
  // Loaders have finished before this (nothing is deferred), so the page renders in one synchronous
  // pass (decision 188): React's string renderer, 2-2.5x faster than its stream renderer for the
  // same HTML. React Router's own transfer of the loader data (a Suspense loop over the stream) is
  // replaced by the same two scripts, written after the render.
  const context = matchedRoutesOnly(routerContext);
  const { page, complete } = renderDocument(
    <NonceProvider value={nonce}>
      <PreloadsProvider value={words?.preload ?? []}>
        <ServerRouter context={{ ...context, serverHandoffStream: undefined }} url={request.url} nonce={nonce} />
      </PreloadsProvider>
    </NonceProvider>,
  );
  if (!complete) {
    // What the stream renderer's onError did: the page is not whole, so it is not a 200.
    responseStatusCode = 500;
    log().error(
      { path: new URL(request.url).pathname },
      "a part of the page suspended or failed while rendering: it is missing from the HTML",
    );
  }
  // <Scripts> marks the render when the page loads React Router in the browser, which reads the data.
  const handoff =
    routerContext.renderMeta?.didRenderScripts && routerContext.serverHandoffStream
      ? handoffScripts(await new Response(routerContext.serverHandoffStream).text(), nonce)
      : "";
  let html = Buffer.from(`<!DOCTYPE html>${withHandoff(withImportMap(page, words?.importMap, nonce), handoff)}`);
  html = compactManifestPatch(html);
  // Layout checks in a pseudo-locale (local deployments only: pseudo-locale.ts).
  if (wantsPseudoLocale(request)) html = Buffer.from(pseudoLocalize(html.toString("utf8")));
  responseHeaders.set("Content-Type", "text/html; charset=utf-8");
  return new Response(documentPage ? withoutDiscoveryMarks(html) : html, { headers: responseHeaders, status: responseStatusCode });
}

/** React's mark of a Suspense boundary it gave up on (suspended or failed), left for the browser to render. */
const CLIENT_RENDERED_BOUNDARY = "<!--$!";

/**
 * A document rendered in one synchronous pass, and whether it is whole: React's string renderer
 * leaves a Suspense boundary whose content suspended or threw to the browser (its fallback and a
 * mark), which a page without scripts would never fill in.
 */
export function renderDocument(element: ReactNode) {
  const page = renderToString(element);
  return { page, complete: !page.includes(CLIENT_RENDERED_BOUNDARY) };
}

const BODY_END = "</body></html>";
const VIEWPORT = '<meta name="viewport"';

/** A JSON text safe inside a script element (what React Router's transfer escapes). */
function scriptJson(value: unknown) {
  return JSON.stringify(value).replace(/[&<>\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/**
 * The loader data for React Router in the browser, as its ServerRouter writes it at the end of the
 * body: the turbo-stream text given to the page's stream controller, then the stream closed.
 */
export function handoffScripts(text: string, nonce: string) {
  const enqueue = text
    ? `<script nonce="${nonce}">window.__reactRouterContext.streamController.enqueue(${scriptJson(text)});</script>`
    : "";
  return `${enqueue}<script nonce="${nonce}">window.__reactRouterContext.streamController.close();</script>`;
}

/** The scripts before the body's end, where React Router's transfer was rendered. */
export function withHandoff(page: string, handoff: string) {
  if (!handoff) return page;
  const at = page.lastIndexOf(BODY_END);
  return at < 0 ? page + handoff : page.slice(0, at) + handoff + page.slice(at);
}

/** The import map where React's stream renderer puts it: after the head's viewport, before any preload. */
export function withImportMap(page: string, importMap: unknown, nonce: string) {
  if (!importMap) return page;
  const viewport = page.indexOf(VIEWPORT);
  const head = page.indexOf("<head>");
  // After the viewport's tag, else the head's opening, else first of all.
  const at = viewport >= 0 ? page.indexOf(">", viewport) + 1 : head >= 0 ? head + "<head>".length : 0;
  return `${page.slice(0, at)}<script type="importmap" nonce="${nonce}">${scriptJson(importMap)}</script>${page.slice(at)}`;
}

/**
 * The router context with only the routes this document renders: the matched route and its parents.
 * React Router's ServerRouter builds a route object for every route in the manifest on each render
 * and converts them all again for its static router (about 13% of a small page's CPU with 150
 * routes), though a document renders only its matches. The browser still gets the whole manifest
 * (its own hashed asset, decision 017) and the handoff state, which were made before this; the
 * server's rendering reads the manifest only for the matches (their components, links, meta and
 * module scripts). The app uses no `<Link prefetch>`, the one feature that would look further.
 * The context's precomputed route branches (every route's, ranked) go too: the static router would
 * match the document's parent paths against all of them to list the page's manifest patch (3-4% of
 * `/dashboard`'s CPU), and every route it found beyond the matched ones had no manifest entry here
 * anyway; without them it ranks the few routes it has.
 */
export function matchedRoutesOnly(context: EntryContext): EntryContext {
  const all = context.manifest.routes;
  const routes: EntryContext["manifest"]["routes"] = {};
  for (const match of context.staticHandlerContext.matches) routes[match.route.id] = all[match.route.id];
  // `branches` is typed as always present; the static router ranks the routes itself when it is not.
  return Object.assign({}, context, { branches: undefined, manifest: { ...context.manifest, routes } });
}

/**
 * Loader, action and render errors React Router reports: one structured log line each. The server's
 * own failures are "unhandled error"; a client's mistake (a refused request, a request it gave up
 * on) is logged as what it is, with its status (error-page.ts).
 */
export function handleError(error: unknown, { request }: { request: Request }) {
  const method = request.method;
  const path = new URL(request.url).pathname;
  if (request.signal.aborted) return void log().info({ method, path }, "request aborted");
  // The database cannot be reached: the request answers 503, and the outage is logged once (decision 011).
  if (noteRequestError(error)) return;
  const status = clientErrorStatus(error) ?? (refusedForItsOrigin(request, error) ? 400 : null);
  if (status) return logRefusal({ status, method, path, reason: reasonOf(error) });
  log().error({ err: error, method, path }, "unhandled error");
}

const MUTATIONS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/**
 * React Router's own check (400, before any action runs) of a post whose Origin is not the request
 * URL's: it reports a bare Error, "Bad Request" for a `.data` post. Express's check compares with
 * APP_URL (same-origin.ts), so a post that passes it is refused here when its Host is not APP_URL's.
 */
function refusedForItsOrigin(request: Request, error: unknown) {
  const origin = request.headers.get("origin");
  if (!MUTATIONS.has(request.method.toUpperCase()) || origin === null || !(error instanceof Error)) return false;
  let originMatches = false;
  try {
    originMatches = new URL(origin).origin === new URL(request.url).origin;
  } catch {
    // "null" or not a URL: refused.
  }
  return !originMatches && (error.message === "Bad Request" || error.message.includes("`origin` header"));
}

function reasonOf(error: unknown) {
  if (isRouteErrorResponse(error)) {
    const internal = (error as { error?: unknown }).error;
    return internal instanceof Error ? internal.message : typeof error.data === "string" ? error.data : error.statusText;
  }
  return error instanceof Error ? error.message : undefined;
}

const MANIFEST_START = Buffer.from("window.__reactRouterManifest = ");
const MANIFEST_END = Buffer.from(";\n  window.__reactRouterRouteModules");

/**
 * React Router writes the page's part of the route manifest (lazy route discovery, decision 061)
 * indented two spaces a level: a third of its 3-4 KB on every document is spaces and newlines. The
 * same JSON, written compact. A document without it (no scripts: the public and sign-in pages) is
 * returned as it is.
 */
/** A page sent without React (`handle.hydrate: false`, app/root.tsx): no router in the browser reads its links. */
function isDocumentPage(context: EntryContext) {
  return context.staticHandlerContext.matches.some(
    (match) => (context.routeModules[match.route.id]?.handle as { hydrate?: boolean } | undefined)?.hydrate === false,
  );
}

const DISCOVERY_MARK = ' data-discover="true"';

/**
 * React Router marks every `<Link>` for its browser router to discover the route it leads to. A page
 * without React has no router to read them: on the console's lists they were 21 bytes a link, about
 * 2% of a page (issue 42).
 */
export function withoutDiscoveryMarks(html: Buffer<ArrayBuffer>): Buffer<ArrayBuffer> {
  // Cut out of the bytes: no decoding of the page to a string and encoding it back.
  const parts: Buffer<ArrayBuffer>[] = [];
  let from = 0;
  for (let at = html.indexOf(DISCOVERY_MARK); at >= 0; at = html.indexOf(DISCOVERY_MARK, from)) {
    parts.push(html.subarray(from, at));
    from = at + DISCOVERY_MARK.length;
  }
  if (from === 0) return html;
  parts.push(html.subarray(from));
  return Buffer.concat(parts);
}

export function compactManifestPatch(html: Buffer<ArrayBuffer>): Buffer<ArrayBuffer> {
  const start = html.indexOf(MANIFEST_START);
  if (start < 0) return html;
  const from = start + MANIFEST_START.length;
  const end = html.indexOf(MANIFEST_END, from);
  if (end < 0) return html;
  const compact = Buffer.from(JSON.stringify(JSON.parse(html.toString("utf8", from, end))));
  return Buffer.concat([html.subarray(0, from), compact, html.subarray(end)]);
}
