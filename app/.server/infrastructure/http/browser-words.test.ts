import { describe, expect, it } from "vitest";
import type { ServerBuild } from "react-router";
import { clientMessageModule, importMessagesDirectly, messageName, type ClientWordsMap } from "./browser-words-build";
import { hydratedKeys, hydratedRouteIds, readBrowserWords, browserWordsPath, wordsFiles } from "./browser-words";
import { word } from "~/lib/words.client";

// Decision 072: the words a hydrated page's browser code can show, one file a language.
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
  "assets/dashboard.js": { keys: ["app_title", "common_menu"], imports: [] },
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
};
const messages = Object.fromEntries(
  Object.entries(texts).map(([key, byLocale]) => [
    key,
    (inputs: Record<string, unknown>, { locale }: { locale: string }) => byLocale[locale]!.replace("{name}", String(inputs.name)),
  ]),
);

describe("the browser's words", () => {
  it("counts as hydrated every route with no document above it", () => {
    expect(hydratedRouteIds(routes).sort()).toEqual(["dashboard", "root"]);
  });

  it("takes the keys of the hydrated routes' chunks and everything they load, never a document's", () => {
    expect(hydratedKeys(assets, routes, chunks)).toEqual(["app_title", "common_hello", "common_menu", "validation_required"]);
  });

  it("writes one file a language with its words only, inputs left for the browser, named by its content", () => {
    const files = wordsFiles(assets, routes, chunks, messages);
    expect(files.map((file) => file.locale)).toEqual(["en", "sw", "fr"]);
    const sw = files[1]!;
    expect(sw.body.toString()).toBe(
      'globalThis.__jw={"app_title":"Muhtasari","common_hello":"Habari {name}","common_menu":"Menyu","validation_required":"Inahitajika"};\n',
    );
    expect(sw.path).toMatch(/^\/assets\/words-sw-[0-9a-f]{10}\.js$/);
    expect(files[2]!.body.toString()).not.toContain("Habari");
    expect(new Set(files.map((file) => file.path)).size).toBe(3);
    // The same build gives the same names: a browser's cached file stays valid.
    expect(wordsFiles(assets, routes, chunks, messages).map((file) => file.path)).toEqual(files.map((file) => file.path));
  });

  it("refuses a build whose browser code uses a word the catalogue lacks", () => {
    const missing = { ...chunks, "assets/dashboard.js": { keys: ["app_gone"], imports: [] } };
    expect(() => wordsFiles(assets, routes, missing, messages)).toThrow(/app_gone/);
  });

  it("names no file without a browser build (development, tests)", () => {
    readBrowserWords({ assets, routes }, null);
    expect(browserWordsPath("sw")).toBeUndefined();
  });

  it("fills a word's inputs in the browser as the server does", () => {
    globalThis.__jw = { common_hello: "Habari {name}, {name}!" };
    expect(word("common_hello")({ name: "Wanjiru" })).toBe("Habari Wanjiru, Wanjiru!");
    expect(word("common_hello")()).toBe("Habari {name}, {name}!");
    delete globalThis.__jw;
  });

  it("compiles a message module into a lookup by its exported name", () => {
    const source =
      "/* eslint-disable */\nimport { getLocale } from '../runtime.js';\nexport const billing_title = /** @type {x} */ ((inputs = {}) => {});";
    expect(messageName(source)).toBe("billing_title");
    expect(clientMessageModule("billing_title", "/app/lib/words.client.ts")).toBe(
      'import { word } from "/app/lib/words.client.ts";\nexport const billing_title = /* @__PURE__ */ word("billing_title");\n',
    );
  });
});

describe("the browser build's message imports", () => {
  const known = new Set(["app_title", "app_hello", "language"]);
  it("names each message a module says, so it lands in that module's chunk", () => {
    const source = `import { useState } from "react";\nimport { m } from "~/paraglide/messages";\nexport const A = () => m.app_title() + m.app_hello({ name }) + m.app_title();\n`;
    expect(importMessagesDirectly(source, known, "/abs/app/paraglide/messages")).toBe(
      `import { app_title as __w_app_title } from "/abs/app/paraglide/messages/app_title.js";\nimport { app_hello as __w_app_hello } from "/abs/app/paraglide/messages/app_hello.js";\nimport { useState } from "react";\n\nexport const A = () => __w_app_title() + __w_app_hello({ name }) + __w_app_title();\n`,
    );
  });

  it("keeps the catalogue's import while something else reads m, and leaves other objects' properties alone", () => {
    const source = `import { m } from "../paraglide/messages";\nconst x = (m) => m.length + m.language();\nconst y = item.m.app_title;\nexport { m };\n`;
    const out = importMessagesDirectly(source, known, "/p")!;
    expect(out).toContain('import { m } from "../paraglide/messages";');
    expect(out).toContain("m.length + __w_language()");
    expect(out).toContain("item.m.app_title");
    expect(importMessagesDirectly(`import { x } from "./y";\nx.app_title;`, known, "/p")).toBeNull();
  });
});
