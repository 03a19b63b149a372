import { readFileSync } from "node:fs";
import { renderToStaticMarkup } from "react-dom/server";
import { createElement } from "react";
import { describe, expect, it } from "vitest";
import { iconIdsOf, rewriteIconImports } from "./icon-imports";
import * as icons from "../app/components/ui/icons";

const ICONS = "~/components/ui/icons";
const ids = iconIdsOf(readFileSync(new URL("../app/components/ui/icons.tsx", import.meta.url), "utf8"));

describe("icons made where they are drawn (decision 116)", () => {
  it("knows every icon icons.tsx exports, by its symbol's id", () => {
    const exported = Object.keys(icons).filter((name) => /^[A-Z]/.test(name));
    expect([...ids.keys()].sort()).toEqual(exported.sort());
    expect(ids.get("AlertTriangle")).toBe("alert-triangle");
  });

  it("turns a named import of icons into the icons, renamed ones under their local names", () => {
    const code = `import { Form } from "react-router";\nimport {\n  Bell,\n  Search as Find\n} from "${ICONS}";\nexport const a = [Bell, Find];\n`;
    expect(rewriteIconImports(code, new Set([ICONS]), ids)).toBe(
      `import { Form } from "react-router";\nimport { icon as __icon0 } from "${ICONS}";\nconst Bell = /* @__PURE__ */ __icon0("bell"), Find = /* @__PURE__ */ __icon0("search");\nexport const a = [Bell, Find];\n`,
    );
  });

  it("keeps what is not an icon imported, leaves other modules' imports alone, and gives each import its own factory", () => {
    const code = `import { icon, Check } from "./icons";\nimport { X } from "${ICONS}";\nimport { Check as Tick } from "./other";\n`;
    expect(rewriteIconImports(code, new Set([ICONS, "./icons"]), ids)).toBe(
      `import { icon as __icon0, icon } from "./icons";\nconst Check = /* @__PURE__ */ __icon0("check");\nimport { icon as __icon1 } from "${ICONS}";\nconst X = /* @__PURE__ */ __icon1("x");\nimport { Check as Tick } from "./other";\n`,
    );
  });

  it("makes the same icon the named export is", () => {
    const made = icons.icon(ids.get("ArrowLeft")!);
    expect(renderToStaticMarkup(createElement(made, { className: "size-4" }))).toBe(
      renderToStaticMarkup(createElement(icons.ArrowLeft, { className: "size-4" })),
    );
  });
});
