import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

// Every runtime dependency earns its place: the product imports it, or a package it imports needs it
// as a peer. @oslojs/crypto and @oslojs/encoding look unused, but remix-utils' honeypot imports them
// (optional peers of remix-utils): removing them stops the server from starting.

/** Kept on purpose though nothing imports them, each with why. */
const KEPT: Record<string, string> = {
  "@react-router/node": "the server runtime @react-router/express runs on, pinned here to React Router's version",
  // Until the S3 storage (issue 78, branch s3-storage) imports them: remove these three when it merges.
  "@aws-sdk/client-s3": "the S3 storage's client (issue 78), added with its sandbox before the storage itself",
  "@aws-sdk/lib-storage": "the S3 storage's multipart uploads (issue 78), added with its sandbox before the storage itself",
  "@aws-sdk/s3-request-presigner": "the S3 storage's presigned downloads (issue 78), added with its sandbox before the storage itself",
};

const root = path.resolve(import.meta.dirname, "..");
const SOURCES = ["app", "sandbox", "scripts", "server.ts"];

function sourceFiles(entry: string): string[] {
  const full = path.join(root, entry);
  if (/\.(ts|tsx|mjs|js)$/.test(entry)) return [full];
  return readdirSync(full, { recursive: true, encoding: "utf8" })
    .filter((f) => /\.(ts|tsx|mjs|js)$/.test(f) && !f.includes("node_modules"))
    .map((f) => path.join(full, f));
}

/** Every bare module specifier the product's own source files import ("remix-utils/honeypot/server"). */
function importedSpecifiers() {
  const specifiers = new Set<string>();
  const specifier = /(?:from\s+|import\s*\(\s*|require\(\s*|import\s+)["']([^"'./~][^"']*)["']/g;
  for (const file of SOURCES.flatMap(sourceFiles))
    for (const [, spec] of readFileSync(file, "utf8").matchAll(specifier)) if (spec && !spec.startsWith("node:")) specifiers.add(spec);
  return specifiers;
}

/** The package names those specifiers name. */
function importedPackages() {
  return new Set(
    [...importedSpecifiers()].map((spec) => {
      const parts = spec.split("/");
      return spec.startsWith("@") ? parts.slice(0, 2).join("/") : (parts[0] ?? spec);
    }),
  );
}

const manifest = (name: string) =>
  JSON.parse(readFileSync(path.join(root, "node_modules", name, "package.json"), "utf8")) as {
    peerDependencies?: Record<string, string>;
  };

describe("package.json's dependencies", () => {
  it("are each imported by the product or a peer of a package it imports", () => {
    const dependencies = Object.keys(
      (JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as { dependencies: object }).dependencies,
    );
    const imported = importedPackages();
    const peers = new Set(
      [...imported].filter((name) => dependencies.includes(name)).flatMap((name) => Object.keys(manifest(name).peerDependencies ?? {})),
    );
    const unused = dependencies.filter((name) => !imported.has(name) && !peers.has(name) && !(name in KEPT));
    expect(unused).toEqual([]);
  });

  it("keep the optional peers that the remix-utils modules Jumbe imports need", async () => {
    const dependencies = Object.keys(
      (JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as { dependencies: object }).dependencies,
    );
    expect(dependencies).toEqual(expect.arrayContaining(["@oslojs/crypto", "@oslojs/encoding"]));
    // Each module loads: a peer it needs that is missing fails here as it would at the server's start.
    const used = [...importedSpecifiers()].filter((spec) => spec.startsWith("remix-utils/"));
    expect(used.length).toBeGreaterThan(0);
    for (const spec of used) await expect(import(spec)).resolves.toBeDefined();
  });
});
