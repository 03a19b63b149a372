#!/usr/bin/env node
// Builds app/assets/icons.svg, the icon sprite, from the icons app/components/ui/icons.tsx lists
// (`export const ArrowLeft = icon("arrow-left");`: lucide's export, then the symbol's id).
//
//   npm run icons            rewrite the sprite
//   npm run icons -- --check exit 1 if the sprite is not what the list makes
//
// Each icon is lucide-react's own drawing, rendered once here; the symbol carries the stroke
// settings lucide puts on every icon, so a page's <svg><use/></svg> needs none of them.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import * as lucide from "lucide-react";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const LIST = path.join(root, "app/components/ui/icons.tsx");
export const SPRITE = path.join(root, "app/assets/icons.svg");

const STROKE = 'fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round"';

/** The icons a list declares, in order: [{ name, id }]. */
export function iconsOf(source) {
  return [...source.matchAll(/^export const (\w+) = icon\("([a-z0-9-]+)"\);$/gm)].map(([, name, id]) => ({ name, id }));
}

/** The sprite's text for a list's source. Throws on a name lucide-react does not export or a repeated id. */
export function buildSprite(source) {
  const seen = new Set();
  const symbols = iconsOf(source).map(({ name, id }) => {
    const component = lucide[name];
    if (!component) throw new Error(`lucide-react has no icon named ${name}`);
    if (seen.has(id)) throw new Error(`the icon id ${id} is used twice`);
    seen.add(id);
    const markup = renderToStaticMarkup(createElement(component));
    const open = markup.match(/^<svg[^>]*viewBox="([^"]+)"[^>]*>/);
    if (!open || !markup.endsWith("</svg>")) throw new Error(`unexpected markup for ${name}`);
    const inner = markup.slice(open[0].length, -"</svg>".length);
    return `<symbol id="${id}" viewBox="${open[1]}" ${STROKE}>${inner.replace(/<(\w+)([^<>]*)><\/\1>/g, "<$1$2/>")}</symbol>`;
  });
  return `<svg xmlns="http://www.w3.org/2000/svg">\n${symbols.join("\n")}\n</svg>\n`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const expected = buildSprite(readFileSync(LIST, "utf8"));
  let current = "";
  try {
    current = readFileSync(SPRITE, "utf8");
  } catch {
    // no sprite yet
  }
  if (process.argv.includes("--check")) {
    if (current !== expected) {
      console.error("app/assets/icons.svg is out of date: run `npm run icons`.");
      process.exit(1);
    }
  } else if (current !== expected) {
    writeFileSync(SPRITE, expected);
    console.log(`Wrote ${path.relative(root, SPRITE)}: ${iconsOf(readFileSync(LIST, "utf8")).length} icons, ${expected.length} bytes.`);
  }
}
