import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createElement, lazy, Suspense } from "react";
import type { EntryContext } from "react-router";
import {
  compactManifestPatch,
  handoffScripts,
  matchedRoutesOnly,
  renderDocument,
  withHandoff,
  withImportMap,
  withoutDiscoveryMarks,
} from "./entry.server";

describe("matchedRoutesOnly", () => {
  const route = (id: string, parentId?: string) => ({ id, parentId, path: id, module: `/${id}.js`, hasLoader: true });
  const context = {
    manifest: {
      url: "/manifest.js",
      routes: { root: route("root"), shell: route("shell", "root"), page: route("page", "shell"), other: route("other", "shell") },
    },
    staticHandlerContext: { matches: [{ route: { id: "root" } }, { route: { id: "shell" } }, { route: { id: "page" } }] },
    branches: [{ path: "/other" }],
  } as unknown as EntryContext;

  it("keeps the matched routes and their parents, and leaves the request's context as it was", () => {
    const rendered = matchedRoutesOnly(context);
    expect(Object.keys(rendered.manifest.routes)).toEqual(["root", "shell", "page"]);
    expect(rendered.manifest.url).toBe("/manifest.js");
    // Every route's ranked branches are not handed on: the static router ranks the few it renders.
    expect(rendered.branches).toBeUndefined();
    expect(context.branches).toHaveLength(1);
    expect(Object.keys(context.manifest.routes)).toEqual(["root", "shell", "page", "other"]);
  });

  // The one rendering feature that reads routes beyond the matches: a prefetching link looks up its
  // target's route on the server. If a page needs one, render the whole manifest again.
  it("holds because no page renders a prefetching link", () => {
    const files = readdirSync(path.join(import.meta.dirname), { recursive: true, encoding: "utf8" }).filter((f) => /\.tsx$/.test(f));
    const prefetching = files.filter((f) => /\bprefetch=/.test(readFileSync(path.join(import.meta.dirname, f), "utf8")));
    expect(files.length).toBeGreaterThan(100);
    expect(prefetching).toEqual([]);
  });
});

describe("compactManifestPatch", () => {
  const patch = { entry: { module: "/assets/entry.js", imports: [] }, routes: { root: { id: "root", hasLoader: true } } };
  const script = (json: string) =>
    `<script>import * as route0 from "/assets/root.js";\n  window.__reactRouterManifest = ${json};\n  window.__reactRouterRouteModules = {"root":route0};</script>`;

  it("writes the page's manifest compact, the rest of the document as it was", () => {
    const html = Buffer.from(`<html><body>Habari${script(JSON.stringify(patch, null, 2))}</body></html>`);
    const out = compactManifestPatch(html).toString("utf8");
    expect(out).toBe(`<html><body>Habari${script(JSON.stringify(patch))}</body></html>`);
    expect(out.length).toBeLessThan(html.length);
  });

  it("leaves a document without one untouched", () => {
    const html = Buffer.from("<html><body>Karibu</body></html>");
    expect(compactManifestPatch(html)).toBe(html);
  });
});

describe("withoutDiscoveryMarks", () => {
  it("drops the router's discovery marks from a page without React, and nothing else", () => {
    const html = Buffer.from('<a href="/admin/users" data-discover="true">Users</a><a href="/x" data-discover="false">X</a>');
    expect(withoutDiscoveryMarks(html).toString()).toBe('<a href="/admin/users">Users</a><a href="/x" data-discover="false">X</a>');
    const none = Buffer.from("<p>Karibu</p>");
    expect(withoutDiscoveryMarks(none)).toBe(none);
  });
});

describe("renderDocument", () => {
  const page = (body: ReturnType<typeof createElement>) =>
    createElement("html", null, createElement("head", null, createElement("title", null, "Jumbe")), createElement("body", null, body));

  it("renders the whole document in one pass", () => {
    const { page: html, complete } = renderDocument(page(createElement("p", null, "Habari ", "Amina")));
    expect(complete).toBe(true);
    expect(html).toBe("<html><head><title>Jumbe</title></head><body><p>Habari <!-- -->Amina</p></body></html>");
  });

  it("says when a part suspended or threw, which the string renderer leaves to the browser", () => {
    const never = lazy(() => new Promise<{ default: () => null }>(() => {}));
    const suspended = renderDocument(page(createElement(Suspense, { fallback: "…" }, createElement(never))));
    expect(suspended.complete).toBe(false);
    expect(suspended.page).toContain("…");
    const Failing = () => {
      throw new Error("no such contact");
    };
    expect(renderDocument(page(createElement(Suspense, { fallback: null }, createElement(Failing)))).complete).toBe(false);
    // Outside a boundary the error is the render's own, as React Router expects (its error page).
    expect(() => renderDocument(page(createElement(Failing)))).toThrow("no such contact");
  });
});

describe("the loader data and the import map written around the render", () => {
  // What a turbo-stream text may hold: a message that closes a script, separators JSON allows and
  // JavaScript once did not, an ampersand.
  const text = '[{"body":"</script><script>alert(1)</script> & \u2028 \u2029 <!--"}]\n';

  it("hands the stream's text to the page's stream controller unchanged, inside scripts that cannot be closed early", () => {
    const scripts = handoffScripts(text, "bm9uY2U=");
    expect(scripts.match(/<\/script>/g)).toHaveLength(2);
    const inside = scripts.replace(/<script nonce="bm9uY2U=">|<\/script>/g, "");
    expect(inside).not.toMatch(/[<>&\u2028\u2029]/);
    const enqueued =
      /^<script nonce="bm9uY2U=">window\.__reactRouterContext\.streamController\.enqueue\((.*)\);<\/script><script nonce="bm9uY2U=">window\.__reactRouterContext\.streamController\.close\(\);<\/script>$/s.exec(
        scripts,
      );
    expect(enqueued).not.toBeNull();
    expect(JSON.parse(enqueued![1]!)).toBe(text);
    // A stream that ended empty is closed without an enqueue.
    expect(handoffScripts("", "bm9uY2U=")).toBe('<script nonce="bm9uY2U=">window.__reactRouterContext.streamController.close();</script>');
  });

  it("puts the scripts before the body's end, and the import map after the viewport, before any preload", () => {
    const html =
      '<html><head><meta charSet="utf-8"/><meta name="viewport" content="width=device-width"/><link rel="modulepreload" href="/a.js"/></head><body><p>x</p></body></html>';
    expect(withHandoff(html, "<script>h</script>")).toBe(html.replace("</body></html>", "<script>h</script></body></html>"));
    expect(withHandoff(html, "")).toBe(html);
    const mapped = withImportMap(html, { imports: { "jw/": "/assets/words-en/" } }, "bm9uY2U=");
    expect(mapped).toBe(
      html.replace(
        'width=device-width"/>',
        'width=device-width"/><script type="importmap" nonce="bm9uY2U=">{"imports":{"jw/":"/assets/words-en/"}}</script>',
      ),
    );
    expect(withImportMap(html, undefined, "n")).toBe(html);
  });
});
