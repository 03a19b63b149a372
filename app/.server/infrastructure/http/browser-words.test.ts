import { describe, expect, it } from "vitest";
import type { ServerBuild } from "react-router";
import {
  catalogueKeys,
  clientCatalogueModule,
  clientMessageModule,
  lookUpWordsInline,
  messageName,
  shortIds,
  type ClientWords,
  type ClientWordsMap,
} from "./browser-words-build";
import { browserWordsFiles, browserWordsOf, hydratedRouteIds, readBrowserWords, routeKeys, wordsFiles } from "./browser-words";
import { word } from "~/lib/words.client";

// Decision 072: the words a hydrated page's browser code can show, one file a route and a language.
const route = (id: string, parentId: string | undefined, handle?: object) => ({ id, parentId, path: id, module: { handle } });
const routes = {
  root: route("root", undefined),
  admin: route("admin", "root", { hydrate: false }),
  "admin/users": route("admin/users", "admin"),
  dashboard: route("dashboard", "root"),
  chat: route("chat", "root", { hydrate: false }),
} as unknown as ServerBuild["routes"];
const assets = {
  entry: { module: "/assets/entry.js", imports: ["/assets/react.js"] },
  routes: {
    root: { module: "/assets/root.js", imports: ["/assets/shell.js"] },
    admin: { module: "/assets/admin.js", imports: [] },
    "admin/users": { module: "/assets/admin-users.js", imports: ["/assets/table.js"] },
    dashboard: { module: "/assets/dashboard.js", imports: ["/assets/shell.js"] },
    chat: { module: "/assets/chat.js", imports: [] },
  },
} as unknown as ServerBuild["assets"];
const chunks: ClientWordsMap = {
  "assets/entry.js": { keys: [], imports: [] },
  "assets/react.js": { keys: [], imports: [] },
  "assets/root.js": { keys: ["common_hello"], imports: [] },
  "assets/shell.js": { keys: ["common_menu"], imports: ["assets/schema.js"] },
  "assets/schema.js": { keys: ["validation_required"], imports: [] },
  "assets/dashboard.js": { keys: ["app_title", "common_menu"], imports: [], dynamicImports: ["assets/dialog.js"] },
  "assets/dialog.js": { keys: ["app_dialog", "common_menu"], imports: ["assets/schema.js"], onDemand: true },
  "assets/admin.js": { keys: ["admin_title"], imports: [] },
  "assets/admin-users.js": { keys: ["admin_users"], imports: [] },
  "assets/table.js": { keys: ["admin_table"], imports: [] },
  "assets/chat.js": { keys: ["inbox_title"], imports: [] },
};
const texts: Record<string, Record<string, string>> = {
  common_hello: { en: "Hello {name}", sw: "Habari {name}", fr: "Bonjour {name}" },
  common_menu: { en: "Menu", sw: "Menyu", fr: "Menu" },
  validation_required: { en: "Required", sw: "Inahitajika", fr: "Obligatoire" },
  app_title: { en: "Overview", sw: "Muhtasari", fr: "Vue d'ensemble" },
  app_dialog: { en: "Close", sw: "Funga", fr: "Fermer" },
};
const messages = Object.fromEntries(
  Object.entries(texts).map(([key, byLocale]) => [
    key,
    (inputs: Record<string, unknown>, { locale }: { locale: string }) => byLocale[locale]!.replace("{name}", String(inputs.name)),
  ]),
);

const ids = Object.fromEntries(shortIds(Object.keys(texts)));
const record: ClientWords = { ids, chunks };

describe("the browser's words", () => {
  it("counts as hydrated every route with no document above it", () => {
    expect(hydratedRouteIds(routes).sort()).toEqual(["dashboard", "root"]);
  });

  it("gives each hydrated route's chunk what it and its imports say, less its parents', and each on-demand chunk its own", () => {
    expect(Object.fromEntries(routeKeys(assets, routes, chunks))).toEqual({
      // The root's: its imports' and the client entry's.
      "root.js": ["common_hello", "common_menu", "validation_required"],
      "dashboard.js": ["app_title"],
      // Loaded on demand from the Overview: not with the page, and less what the root brought.
      "dialog.js": ["app_dialog"],
      // Documents: their chunks come only for their client loader, which loads the page as a document.
      "admin.js": [],
      "admin-users.js": [],
      "chat.js": [],
    });
  });

  it("writes one file a route and a language with its words only, by short id, inputs left for the browser, in a folder named by its content", () => {
    const { files, folders, fileOfRoute } = wordsFiles(assets, routes, record, messages);
    expect([...folders.keys()]).toEqual(["en", "sw", "fr"]);
    expect(folders.get("sw")).toMatch(/^\/assets\/words-sw-[0-9a-f]{10}\/$/);
    const sw = files.filter((file) => file.locale === "sw");
    expect(sw.map((file) => file.path.slice(folders.get("sw")!.length)).sort()).toEqual([
      "admin-users.js",
      "admin.js",
      "chat.js",
      "dashboard.js",
      "dialog.js",
      "root.js",
    ]);
    const dashboard = sw.find((file) => file.path.endsWith("/dashboard.js"))!;
    expect(dashboard.body.toString()).toBe(`Object.assign(globalThis.__jw??={},{"${ids.app_title}":"Muhtasari"});\n`);
    const root = sw.find((file) => file.path.endsWith("/root.js"))!.body.toString();
    expect(root).toContain(`"${ids.common_hello}":"Habari {name}"`);
    for (const file of files.filter((each) => each.locale !== "sw")) expect(file.body.toString()).not.toMatch(/Habari|Muhtasari|Funga/);
    expect(Object.fromEntries(fileOfRoute)).toEqual({ root: "root.js", dashboard: "dashboard.js" });
    // The same build gives the same names: a browser's cached file stays valid.
    expect(wordsFiles(assets, routes, record, messages).files.map((file) => file.path)).toEqual(files.map((file) => file.path));
  });

  it("refuses a build whose browser code uses a word the catalogue lacks", () => {
    const missing = { ...record, chunks: { ...chunks, "assets/dashboard.js": { keys: ["app_gone"], imports: [] } } };
    expect(() => wordsFiles(assets, routes, missing, messages)).toThrow(/app_gone/);
  });

  it("names a page's import map and its routes' files, and none without a browser build (development, tests)", () => {
    readBrowserWords({ assets, routes }, record, messages);
    const page = browserWordsOf("fr", ["root", "dashboard"])!;
    const folder = page.importMap.imports["jw/"]!;
    expect(folder).toMatch(/^\/assets\/words-fr-[0-9a-f]{10}\/$/);
    expect(page.preload).toEqual([`${folder}root.js`, `${folder}dashboard.js`]);
    expect(browserWordsFiles().some((file) => file.path === `${folder}dashboard.js`)).toBe(true);
    readBrowserWords({ assets, routes }, null);
    expect(browserWordsOf("sw", ["root"])).toBeUndefined();
    expect(browserWordsFiles()).toEqual([]);
  });

  it("fills a word's inputs in the browser as the server does, and shows nothing for a word it lacks", () => {
    globalThis.__jw = { a: "Habari {name}, {name}!" };
    expect(word("a")({ name: "Wanjiru" })).toBe("Habari Wanjiru, Wanjiru!");
    expect(word("a")()).toBe("Habari {name}, {name}!");
    const errors: unknown[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => void errors.push(args.join(" "));
    try {
      expect(word("zz")()).toBe("");
    } finally {
      console.error = original;
    }
    expect(errors).toEqual(["Jumbe: the page has no word zz."]);
    delete globalThis.__jw;
  });

  it("gives each key a short id by its place in the catalogue", () => {
    expect(Object.fromEntries(shortIds(["b_two", "a_one", "c_three"]))).toEqual({ a_one: "0", b_two: "1", c_three: "2" });
    expect(shortIds(Array.from({ length: 40 }, (_, i) => `k${String(i).padStart(2, "0")}`)).get("k39")).toBe("13");
  });

  it("compiles a message module into a lookup by its id", () => {
    const source =
      "/* eslint-disable */\nimport { getLocale } from '../runtime.js';\nexport const billing_title = /** @type {x} */ ((inputs = {}) => {});";
    expect(messageName(source)).toBe("billing_title");
    expect(clientMessageModule("billing_title", "1k", "/app/lib/words.client.ts")).toBe(
      'import { word } from "/app/lib/words.client.ts";\nexport const billing_title = /* @__PURE__ */ word("1k");\n',
    );
  });
});

describe("the catalogue's keys whatever Paraglide's output (decision 118)", () => {
  it("reads the same names from one module a language (the build's) as from one module a message", () => {
    const byLanguage = `/* eslint-disable */\nimport * as __en from "./en.js"\n/** @typedef {{}} App_TitleInputs */\nexport const app_title = /** @type {x} */ ((inputs = {}, options = {}) => {});\nexport const app_hello = /** @type {x} */ ((inputs, options = {}) => {});\n`;
    const byMessage = `/* eslint-disable */\n/** @typedef {import('../runtime.js').LocalizedString} LocalizedString */\nexport * from './app_title.js'\nexport * from './app_hello.js'\n`;
    expect(catalogueKeys(byLanguage).sort()).toEqual(["app_hello", "app_title"]);
    expect(catalogueKeys(byMessage).sort()).toEqual(["app_hello", "app_title"]);
  });

  it("gives the browser the whole catalogue as lookups by id, never a message's text", () => {
    expect(clientCatalogueModule(shortIds(["b_two", "a_one"]), "/w.ts")).toBe(
      'import { word } from "/w.ts";\nexport const a_one = /* @__PURE__ */ word("0");\nexport const b_two = /* @__PURE__ */ word("1");\n',
    );
  });
});

describe("the browser build's message lookups", () => {
  const known = shortIds(["app_title", "app_hello", "language"]);
  it("writes each message a module says as a lookup by its id, and lists the keys", () => {
    const source = `import { useState } from "react";\nimport { m } from "~/paraglide/messages";\nexport const A = () => m.app_title() + m.app_hello({ name }) + m.app_title();\n`;
    expect(lookUpWordsInline(source, known, "/abs/app/lib/words.client.ts")).toEqual({
      code: `import { word as __jw } from "/abs/app/lib/words.client.ts";\nimport { useState } from "react";\n\nexport const A = () => __jw("1")() + __jw("0")({ name }) + __jw("1")();\n`,
      keys: ["app_hello", "app_title"],
    });
  });

  it("keeps the catalogue's import while something else reads m, and leaves other objects' properties and class names alone", () => {
    const source = `import { m } from "../paraglide/messages";\nconst x = (m) => m.length + m.language();\nconst y = item.m.app_title;\nexport { m };\n`;
    const out = lookUpWordsInline(source, known, "/w")!.code;
    expect(out).toContain('import { m } from "../paraglide/messages";');
    expect(out).toContain('m.length + __jw("2")()');
    expect(out).toContain("item.m.app_title");
    const styled = `import { m } from "~/paraglide/messages";\nconst A = () => <p className="m-auto md:m-0">{m.language()}</p>;\n`;
    expect(lookUpWordsInline(styled, known, "/w")!.code).not.toContain("paraglide/messages");
    expect(lookUpWordsInline(`import { x } from "./y";\nx.app_title;`, known, "/p")).toBeNull();
  });
});
