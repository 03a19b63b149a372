import { readFileSync } from "node:fs";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { buildSprite, iconsOf, LIST, SPRITE } from "../../../scripts/icons.mjs";
import * as icons from "./icons";

const source = readFileSync(LIST, "utf8");
const sprite = readFileSync(SPRITE, "utf8");

describe("the icon sprite", () => {
  it("is what the list in icons.tsx makes (run `npm run icons` after changing the list)", () => {
    expect(sprite).toBe(buildSprite(source));
  });

  it("has a symbol, drawn with lucide's strokes, for every icon the module exports", () => {
    const listed: { name: string; id: string }[] = iconsOf(source);
    const exported = Object.keys(icons).filter((name) => /^[A-Z]/.test(name));
    expect(listed.map((icon) => icon.name).sort()).toEqual(exported.sort());
    for (const { id } of listed) {
      expect(sprite).toMatch(
        new RegExp(
          `<symbol id="${id}" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2"[^>]*><(path|circle|rect|line|polyline|polygon|ellipse)`,
        ),
      );
    }
  });

  it("refuses a name lucide does not have and an id used twice", () => {
    expect(() => buildSprite('export const NoSuchIcon = icon("nope");')).toThrow(/no icon named NoSuchIcon/);
    expect(() => buildSprite('export const Check = icon("a");\nexport const Copy = icon("a");')).toThrow(/used twice/);
  });
});

describe("an icon", () => {
  it("points into the sprite and is hidden from screen readers by default", () => {
    const html = renderToStaticMarkup(<icons.ArrowLeft className="size-4" />);
    expect(html).toMatch(
      /^<svg width="24" height="24" class="size-4" aria-hidden="true"><use href="[^"]*icons[^"]*\.svg#arrow-left"><\/use><\/svg>$/,
    );
  });

  it("is an image with a name when it is given one", () => {
    const html = renderToStaticMarkup(<icons.XCircle aria-label="Error" size={20} />);
    expect(html).toContain('role="img"');
    expect(html).toContain('aria-label="Error"');
    expect(html).toContain('width="20"');
    expect(html).not.toContain("aria-hidden");
  });
});
