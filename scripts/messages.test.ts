import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { compile } from "@inlang/paraglide-js";
import { afterAll, describe, expect, it } from "vitest";
import { compileMessages, MESSAGES } from "./messages.mjs";
import { compiledMessages } from "./messages-plugin";

// Decision 132: the words compile without the inlang SDK's database, and the files written must be
// Paraglide's own, byte for byte. A small project in a folder of its own, with what the product's
// catalogues hold (texts, inputs, a message missing in one language, a language without a file in
// one folder) and what they may come to hold (a plural with its variants, an escaped brace).
const MESSAGE_FORMAT = path.resolve(import.meta.dirname, "../node_modules/@inlang/plugin-message-format/dist/index.js");
const work = mkdtempSync(path.join(os.tmpdir(), "jumbe-messages-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const CATALOGUES: Record<string, Record<string, Record<string, unknown>>> = {
  common: {
    en: {
      $schema: "https://inlang.com/schema/inlang-message-format",
      app_title: "Jumbe",
      greeting: "Hello {name}, you have {count} new messages from {name}",
      escaped: "Braces \\{stay\\} as written",
      english_only: "Only in English",
      plural_items: [
        {
          declarations: ["input count", "local countPlural = count: plural"],
          selectors: ["countPlural"],
          match: { "countPlural=one": "{count} item", "countPlural=other": "{count} items" },
        },
      ],
    },
    sw: { app_title: "Jumbe", greeting: "Habari {name}, una ujumbe mpya {count} kutoka kwa {name}", escaped: "Mabano \\{yanabaki\\}" },
    fr: { app_title: "Jumbe", greeting: "Bonjour {name}, vous avez {count} nouveaux messages de {name}" },
  },
  // No French file here: the English words stand in.
  billing: { en: { billing_title: "Billing", billing_due: "{amount} due on {date}" }, sw: { billing_title: "Malipo" } },
};

function project(name: string) {
  const root = path.join(work, name);
  for (const [folder, byLocale] of Object.entries(CATALOGUES))
    for (const [locale, messages] of Object.entries(byLocale)) {
      mkdirSync(path.join(root, "messages", folder), { recursive: true });
      writeFileSync(path.join(root, "messages", folder, `${locale}.json`), JSON.stringify(messages, null, 2));
    }
  mkdirSync(path.join(root, "project.inlang"), { recursive: true });
  writeFileSync(
    path.join(root, "project.inlang", "settings.json"),
    JSON.stringify({
      baseLocale: "en",
      locales: ["en", "sw", "fr"],
      modules: [MESSAGE_FORMAT],
      "plugin.inlang.messageFormat": { pathPattern: Object.keys(CATALOGUES).map((folder) => `./messages/${folder}/{locale}.json`) },
    }),
  );
  return { root, options: { ...MESSAGES, project: path.join(root, "project.inlang"), outdir: path.join(root, "paraglide") } };
}

/** Every file under a folder, by its path inside it. */
function filesOf(dir: string): Record<string, string> {
  const found: Record<string, string> = {};
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true }))
    if (entry.isFile()) {
      const file = path.join(entry.parentPath, entry.name);
      found[path.relative(dir, file)] = readFileSync(file, "utf8");
    }
  return found;
}

describe("the words' compile", () => {
  it("writes Paraglide's own files, byte for byte", async () => {
    const ours = project("ours");
    const theirs = project("theirs");
    await compileMessages(ours.options);
    await compile({ ...theirs.options });
    const written = filesOf(ours.options.outdir);
    expect(Object.keys(written).sort()).toEqual(
      [
        "messages.js",
        "messages/_index.js",
        "messages/en.js",
        "messages/fr.js",
        "messages/sw.js",
        "registry.js",
        "runtime.js",
        "server.js",
        ".gitignore",
        ".prettierignore",
      ].sort(),
    );
    expect(written).toEqual(filesOf(theirs.options.outdir));
    // What the catalogues say reaches the language modules (and a missing French text falls back to English).
    expect(written["messages/sw.js"]).toContain("Habari");
    expect(written["messages/fr.js"]).toContain('export { billing_due } from "./en.js"');
  }, 60_000);

  it("is compiled once a process for the build, and again in the development server when a words file changes", async () => {
    const { root, options } = project("plugin");
    const plugin = compiledMessages(options);
    const hook = <T>(h: T) => (typeof h === "function" ? h : (h as { handler: unknown }).handler) as (...args: unknown[]) => Promise<void>;
    const context = { warn: (message: string) => expect.fail(message) };
    hook(plugin.configResolved)({ command: "serve" });
    await hook(plugin.buildStart).call(context);
    const english = path.join(options.outdir, "messages/en.js");
    const french = path.join(options.outdir, "messages/fr.js");
    expect(readFileSync(english, "utf8")).toContain("Only in English");
    const frenchWritten = statSync(french).mtimeMs;

    // An edit in English while the development server runs.
    const file = path.join(root, "messages/common/en.json");
    writeFileSync(file, readFileSync(file, "utf8").replace("Only in English", "Still only in English"));
    // A change to a file that is not a words file compiles nothing.
    await hook(plugin.watchChange).call(context, path.join(root, "messages/notes.txt"), { event: "update" });
    expect(readFileSync(english, "utf8")).not.toContain("Still only in English");
    // Another start of the plugins in the same process (Vite loads its configuration again; the
    // build starts the plugins once per environment) reuses the compile.
    const again = compiledMessages(options);
    await hook(again.buildStart).call(context);
    expect(readFileSync(english, "utf8")).not.toContain("Still only in English");

    // The typecheck's declarations beside the index (decision 135) are not the plugin's to remove.
    const declarations = path.join(options.outdir, "messages/_index.d.ts");
    writeFileSync(declarations, "export {};\n");
    await hook(plugin.watchChange).call(context, file, { event: "update" });
    expect(readFileSync(english, "utf8")).toContain("Still only in English");
    expect(readFileSync(declarations, "utf8")).toBe("export {};\n");
    // Only the files whose text changed are written again: the French module is as it was.
    expect(statSync(french).mtimeMs).toBe(frenchWritten);
  }, 60_000);
});
