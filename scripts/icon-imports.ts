import { readFileSync } from "node:fs";
import type { Plugin } from "vite";

/**
 * Icons made where they are drawn (issue 74, decision 116). `app/components/ui/icons.tsx` names
 * every icon of the product (`export const Bell = icon("bell")`), and pages import them by name. A
 * module is one piece for Rollup, so the whole list went wherever that module went: into the shell
 * chunk, which every signed-in page loads first (85 icons, 0.6 kB gzip of a first visit for the 20
 * the shell draws). In the browser build this plugin rewrites each named import of icons into the
 * icons themselves, made by the module's exported `icon()`:
 *
 *     import { Bell, Search as Find } from "~/components/ui/icons";
 *  →  import { icon as __icon0 } from "~/components/ui/icons";
 *     const Bell = __icon0("bell"), Find = __icon0("search");   (each call marked pure)
 *
 * so each chunk carries the icons it draws (about 20 bytes each) and the list itself is left out.
 * The server build, the dev server and the types keep the named exports as written.
 */
export function iconImports({ iconsFile }: { iconsFile: string }): Plugin {
  let ids: Map<string, string> | null = null;
  return {
    name: "jumbe-icon-imports",
    apply: "build",
    // After esbuild: the code is JavaScript, type-only imports are gone.
    enforce: "post",
    applyToEnvironment: (environment) => environment.name === "client",
    async transform(code, id) {
      if (id === iconsFile || id.includes("/node_modules/") || !code.includes("icons")) return null;
      ids ??= iconIdsOf(readFileSync(iconsFile, "utf8"));
      const specifiers = new Set<string>();
      for (const { specifier } of namedImports(code)) {
        if (specifiers.has(specifier)) continue;
        if ((await this.resolve(specifier, id))?.id === iconsFile) specifiers.add(specifier);
      }
      if (!specifiers.size) return null;
      return { code: rewriteIconImports(code, specifiers, ids), map: null };
    },
  };
}

/** The icons icons.tsx names, by export: `export const Bell = icon("bell");` (the lines `npm run icons` reads). */
export function iconIdsOf(source: string): Map<string, string> {
  return new Map([...source.matchAll(/^export const (\w+) = icon\("([a-z0-9-]+)"\);$/gm)].map(([, name, id]) => [name!, id!]));
}

const NAMED_IMPORT = /import\s*\{([^}]*)\}\s*from\s*(["'])([^"']+)\2;?/g;

function namedImports(code: string) {
  return [...code.matchAll(NAMED_IMPORT)].map((match) => ({ statement: match[0], names: match[1]!, specifier: match[3]! }));
}

/**
 * `code` with every `import { … } from "<specifier>"` of `specifiers` turned into icons made in place.
 * A name that is not an icon (a type esbuild kept, `icon` itself) stays imported.
 */
export function rewriteIconImports(code: string, specifiers: ReadonlySet<string>, ids: ReadonlyMap<string, string>): string {
  let index = 0;
  return code.replace(NAMED_IMPORT, (statement, names: string, quote: string, specifier: string) => {
    if (!specifiers.has(specifier)) return statement;
    const made: string[] = [];
    const kept: string[] = [];
    for (const part of names.split(",")) {
      const [imported, local = imported] = part.trim().split(/\s+as\s+/) as [string, string?];
      if (!imported) continue;
      const iconId = ids.get(imported);
      // Pure: a module whose icons nobody draws is left out whole, and one imported only for the
      // server (a lazy component's static twin) does not make its importer load it.
      if (iconId) made.push(`${local} = /* @__PURE__ */ __icon${index}(${JSON.stringify(iconId)})`);
      else kept.push(part.trim());
    }
    if (!made.length) return statement;
    const factory = `__icon${index++}`;
    const imports = [`icon as ${factory}`, ...kept].join(", ");
    return `import { ${imports} } from ${quote}${specifier}${quote};\nconst ${made.join(", ")};`;
  });
}
