import { execSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import type { RouteConfigEntry } from "@react-router/dev/routes";
import routes from "../../app/routes";
import { importCircles, importGraph, type ImportEdge } from "./import-graph";

// The rule of the house (docs/architecture.md): app/.server is in layers and imports only go
// downward; nothing imports in a circle; the sandbox package and the browser code stand apart.
const root = path.resolve(import.meta.dirname, "../..");
const edges = importGraph(root, ["app", "sandbox"]);

/** Lower numbers are lower layers. Demo data and the composition root sit on top: nothing below imports them. */
const LAYERS: Record<string, number> = { infrastructure: 0, domains: 1, adapters: 2, demo: 3, composition: 4 };

function layerOf(file: string): string | null {
  const match = /^app\/\.server\/([^/]+)\//.exec(file);
  return match ? match[1]! : null;
}

const describeEdge = ({ from, to, typeOnly }: ImportEdge) => `${from} → ${to}${typeOnly ? " (types)" : ""}`;

describe("the import graph", () => {
  test("every server module sits in a layer", () => {
    const outside = [...new Set(edges.map((edge) => edge.from))].filter(
      (file) => file.startsWith("app/.server/") && !(layerOf(file)! in LAYERS),
    );
    expect(outside).toEqual([]);
  });

  test("imports between layers only go downward", () => {
    const upward = edges.filter((edge) => {
      const from = layerOf(edge.from);
      const to = layerOf(edge.to);
      return from !== null && to !== null && from !== to && LAYERS[to]! > LAYERS[from]!;
    });
    expect(upward.map(describeEdge)).toEqual([]);
  });

  test("demo data is only started from the composition root", () => {
    const intoDemo = edges.filter(
      (edge) => layerOf(edge.to) === "demo" && layerOf(edge.from) !== "demo" && layerOf(edge.from) !== "composition",
    );
    expect(intoDemo.map(describeEdge)).toEqual([]);
  });

  test("no module imports itself through a circle", () => {
    expect(importCircles(edges)).toEqual([]);
  });

  test("no two domains depend on each other, even through others", () => {
    // Folder by folder: a domain that needs a higher one's reaction has it registered from the
    // composition root (composition/domain-events.ts) instead of importing it.
    const domainOf = (file: string) => /^app\/\.server\/domains\/([^/]+)\//.exec(file)?.[1];
    const between = edges.flatMap((edge) => {
      const from = domainOf(edge.from);
      const to = domainOf(edge.to);
      return from && to && from !== to ? [{ from, to, typeOnly: edge.typeOnly }] : [];
    });
    expect(importCircles(between)).toEqual([]);
  });

  test("a domain uses another only through its index.ts, and every domain has one", () => {
    // Each domain's index.ts says what other domains may use of it (issue 75); a route or an adapter may reach further.
    const domainOf = (file: string) => /^app\/\.server\/domains\/([^/]+)\//.exec(file)?.[1];
    const deep = edges.filter((edge) => {
      const from = domainOf(edge.from);
      const to = domainOf(edge.to);
      return from && to && from !== to && edge.to !== `app/.server/domains/${to}/index.ts`;
    });
    expect(deep.map(describeEdge)).toEqual([]);
    const domains = fs.readdirSync(path.join(root, "app/.server/domains"), { withFileTypes: true }).filter((entry) => entry.isDirectory());
    const without = domains.filter((entry) => !fs.existsSync(path.join(root, "app/.server/domains", entry.name, "index.ts")));
    expect(without.map((entry) => entry.name)).toEqual([]);
  });

  test("server code imports no route or component, and browser code no server module", () => {
    // app/lib is shared by the browser and the server, below both: not even a type comes from the server.
    // A component may name the type of what a loader returns (the import is erased), nothing more.
    const wrong = edges.filter(
      (edge) =>
        (edge.from.startsWith("app/.server/") && /^app\/(routes|components)\//.test(edge.to)) ||
        (edge.from.startsWith("app/lib/") && edge.to.startsWith("app/.server/")) ||
        (edge.from.startsWith("app/components/") && edge.to.startsWith("app/.server/") && !edge.typeOnly),
    );
    expect(wrong.map(describeEdge)).toEqual([]);
  });

  test("the sandbox package imports nothing from app/", () => {
    const wrong = edges.filter((edge) => edge.from.startsWith("sandbox/") && edge.to.startsWith("app/"));
    expect(wrong.map(describeEdge)).toEqual([]);
  });
});

describe("docs/architecture.md", () => {
  const doc = fs.readFileSync(path.join(root, "docs/architecture.md"), "utf8");
  const files = execSync("git ls-files --cached --others --exclude-standard", { cwd: root, encoding: "utf8" }).split("\n");
  const SERVER_LAYER = /^(domains|adapters|infrastructure|composition|demo)\//;

  test("every path it names exists", () => {
    const named = [...doc.matchAll(/`([^`\s]+\/[^`\s]*)`/g)].map((match) => match[1]!).filter((name) => !name.startsWith("/"));
    const missing = named.filter((name) => {
      const full = SERVER_LAYER.test(name) ? `app/.server/${name}` : name;
      const pattern = new RegExp(
        `^${full
          .replace(/[.+?^${}()|[\]\\]/g, "\\$&")
          .replace(/\*/g, "[^/]*")
          .replace(/<[^>]+>/g, "[^/]+")}`,
      );
      return !files.some((file) => pattern.test(file));
    });
    expect(missing).toEqual([]);
  });

  describe("the feature table (one row per feature: its folders, tables, jobs and API)", () => {
    const section = doc.slice(doc.indexOf("## Where a feature lives"));
    const rows = section
      .split("\n")
      .filter((line) => line.startsWith("| ") && !line.startsWith("| feature |"))
      .map((line) => line.slice(2, -2).split(" | "));
    const header = section.split("\n").find((line) => line.startsWith("| feature |"))!;
    const column = (name: string) => header.slice(2, -2).split(" | ").indexOf(name);
    /** Everything a column of any row names in backticks. */
    const named = (name: string) => new Set(rows.flatMap((row) => [...(row[column(name)] ?? "").matchAll(/`([^`]+)`/g)].map((m) => m[1]!)));
    const serverFiles = files.filter((file) => /^app\/\.server\/.*\.ts$/.test(file) && !file.endsWith(".test.ts"));
    const read = (file: string) => fs.readFileSync(path.join(root, file), "utf8");

    test("has every column in every row", () => {
      expect(header).toBe("| feature | what it is | folders | tables | jobs | API | tests |");
      expect(rows.filter((row) => row.length !== 7 || row.some((cell) => !cell.trim())).map((row) => row[0])).toEqual([]);
    });

    test("has a row for every domain folder", () => {
      const domains = fs
        .readdirSync(path.join(root, "app/.server/domains"), { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .map((entry) => entry.name);
      const folders = [...named("folders")];
      expect(domains.filter((domain) => !folders.some((folder) => folder.startsWith(`domains/${domain}/`)))).toEqual([]);
    });

    test("names every table of the schema", () => {
      const tables = serverFiles
        .filter((file) => file.startsWith("app/.server/infrastructure/db/schema/"))
        .flatMap((file) => [...read(file).matchAll(/pgTable\(\s*"([a-z0-9_]+)"/g)].map((m) => m[1]!));
      expect(tables.length).toBeGreaterThan(0);
      const listed = named("tables");
      expect(tables.filter((table) => !listed.has(table))).toEqual([]);
    });

    test("names every job queue", () => {
      // A queue's name is a constant (`…_QUEUE = "…"`) or written where its handler is registered.
      const queues = serverFiles.flatMap((file) =>
        [...read(file).matchAll(/_QUEUE\s*=\s*"([^"]+)"|register(?:JobHandler|RecurringJob)\b[^;]*?\bqueue:\s*"([^"]+)"/g)].map(
          (m) => (m[1] ?? m[2])!,
        ),
      );
      expect(queues.length).toBeGreaterThan(0);
      const listed = named("jobs");
      expect([...new Set(queues)].filter((queue) => !listed.has(queue))).toEqual([]);
    });

    /**
     * Folders named after something other than their feature's name, each with its reason; everything
     * else a row names under app/routes/app/, app/components/ and app/messages/ carries the name.
     */
    const OTHER_NAMES: Record<string, string> = {
      chat: "the inbox's pages keep the spec's URL, /chat",
      messaging: "contacts and campaigns keep the spec's URLs, /messaging/…",
      developers: "the Developers page's URL, /developers (the domain is the developer it serves)",
      legal: "the public site's legal pages (/terms, /privacy) share one document component",
      public: "the words of every page a signed-out visitor sees",
    };

    test("names each feature as its domain folder, and its pages', components' and words' folders after it", () => {
      // Issue 75, "a search for a feature's name finds all of it" (decision 125): revenue share was
      // revenue-share in its pages, partners in its domain and partner in its API.
      const wrong: string[] = [];
      const used = new Set<string>();
      const names = new Set<string>();
      for (const row of rows) {
        const folders = [...row[column("folders")]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
        const owned = folders.flatMap((folder) => /^domains\/([a-z0-9-]+)\/$/.exec(folder)?.[1] ?? []);
        const name = /`([a-z0-9-]+)`$/.exec(row[0]!)?.[1];
        if (!owned.length) {
          if (name) wrong.push(`${row[0]}: a name, and no domain folder of its own`);
          continue;
        }
        if (!name || !owned.includes(name) || names.has(name)) {
          wrong.push(`${row[0]}: named ${name ?? "nothing"}, not as one of its domain folders (${owned.join(", ")}) or twice`);
          continue;
        }
        names.add(name);
        const parts = fs
          .readdirSync(path.join(root, "app/.server/domains", name), { withFileTypes: true })
          .filter((entry) => entry.isDirectory())
          .map((entry) => entry.name);
        for (const folder of folders) {
          const segments = /^app\/(?:routes\/app|components|messages)\/(.+)\/$/.exec(folder)?.[1]!.split("/");
          if (!segments || segments.some((segment) => segment === name || parts.includes(segment))) continue;
          if (segments[0]! in OTHER_NAMES) used.add(segments[0]!);
          else wrong.push(`${row[0]}: ${folder} is not named ${name}`);
        }
      }
      expect(wrong).toEqual([]);
      expect(Object.keys(OTHER_NAMES).filter((other) => !used.has(other))).toEqual([]);
    });

    test("keeps every route of a pages folder in it", () => {
      // A folder of app/routes/app/ is where every route whose URL starts with its name lives: no
      // integrations-*.tsx beside app/routes/app/integrations/, no partner-statement.ts beside revenue-share/.
      const folders = fs
        .readdirSync(path.join(root, "app/routes/app"), { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .map((entry) => entry.name);
      const modules = (entries: RouteConfigEntry[], parent = ""): { url: string; file: string }[] =>
        entries.flatMap((entry) => {
          const url = entry.path === undefined ? parent : `${parent}/${entry.path}`;
          return [{ url, file: entry.file }, ...modules(entry.children ?? [], url)];
        });
      const astray = modules(routes).filter(({ url, file }) => {
        const first = url.split("/")[1] ?? "";
        return file.startsWith("routes/app/") && folders.includes(first) && !file.startsWith(`routes/app/${first}/`);
      });
      expect(folders.length).toBeGreaterThan(5);
      expect(astray.map(({ url, file }) => `/${url.slice(1)} → ${file}`)).toEqual([]);
    });

    test("names every resource of the public API", () => {
      const resources = serverFiles
        .filter((file) => file.startsWith("app/.server/adapters/api-v1/"))
        .flatMap((file) => [...read(file).matchAll(/path: "(\/api\/v1\/[a-z-]+(?:\/[a-z-]+)?)/g)].map((m) => m[1]!));
      expect(resources.length).toBeGreaterThan(0);
      const listed = [...named("API")];
      expect(
        [...new Set(resources)].filter((resource) => !listed.some((api) => api === resource || api.startsWith(`${resource}/`))),
      ).toEqual([]);
    });
  });
});

describe("README.md", () => {
  test("names every feature page of docs/features/", () => {
    // A newcomer finds every feature from the README, in a line each (issue 75).
    const readme = fs.readFileSync(path.join(root, "README.md"), "utf8");
    const pages = fs.readdirSync(path.join(root, "docs/features")).filter((file) => file.endsWith(".md") && file !== "README.md");
    expect(pages.filter((page) => !readme.includes(`](docs/features/${page})`))).toEqual([]);
  });
});
