import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { EntryContext } from "react-router";
import { compactManifestPatch, matchedRoutesOnly, withoutDiscoveryMarks } from "./entry.server";

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
