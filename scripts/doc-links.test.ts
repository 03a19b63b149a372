import { mkdtempSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { brokenLinks, documents, linkTargets } from "./doc-links";

describe("links between the documents", () => {
  it("every relative link in README.md, docs/ and the sandboxes' README points at a file that exists", () => {
    expect(documents()).toEqual(expect.arrayContaining(["README.md", "sandbox/README.md", "docs/decisions/README.md"]));
    expect(brokenLinks()).toEqual([]);
  });

  it("reports a link to a missing file, and not links in code, to other sites or within the page", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "jumbe-doc-links-"));
    mkdirSync(path.join(dir, "docs"));
    writeFileSync(path.join(dir, "docs", "there.md"), "# There\n");
    const doc = path.join(dir, "docs", "index.md");
    writeFileSync(
      doc,
      [
        "See [there](there.md#a-part), [gone](gone.md) and [up](../missing/README.md).",
        "[elsewhere](https://example.com/x.md), [mail](mailto:a@b.c), [here](#top), `[code](nothing.md)`",
        "```md",
        "[fenced](nothing-either.md)",
        "```",
        "[ref]: ./also-gone.md",
      ].join("\n"),
    );
    expect(brokenLinks([doc])).toEqual([`${doc}: gone.md`, `${doc}: ../missing/README.md`, `${doc}: ./also-gone.md`]);
    expect(linkTargets('[a](b.md "title")')).toEqual(["b.md"]);
  });
});
