import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { EntryContext } from "react-router";
import { matchedRoutesOnly } from "./entry.server";

describe("matchedRoutesOnly", () => {
  const route = (id: string, parentId?: string) => ({ id, parentId, path: id, module: `/${id}.js`, hasLoader: true });
  const context = {
    manifest: {
      url: "/manifest.js",
      routes: { root: route("root"), shell: route("shell", "root"), page: route("page", "shell"), other: route("other", "shell") },
    },
    staticHandlerContext: { matches: [{ route: { id: "root" } }, { route: { id: "shell" } }, { route: { id: "page" } }] },
  } as unknown as EntryContext;

  it("keeps the matched routes and their parents, and leaves the request's context as it was", () => {
    const rendered = matchedRoutesOnly(context);
    expect(Object.keys(rendered.manifest.routes)).toEqual(["root", "shell", "page"]);
    expect(rendered.manifest.url).toBe("/manifest.js");
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
