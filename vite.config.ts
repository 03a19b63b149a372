import { reactRouter } from "@react-router/dev/vite";
import tailwindcss from "@tailwindcss/vite";
import { defineConfig, type Plugin } from "vite";
import path from "node:path";
import { precompressAssets } from "./app/.server/http/precompress";

export default defineConfig(({ isSsrBuild }) => ({
  // server.ts is the server bundle's entry: Express, security headers, sandboxes and the React Router handler.
  build: {
    // The Meta sandbox's standalone process (sandbox/meta/standalone.ts) builds beside it: build/server/meta-sandbox.js.
    ...(isSsrBuild
      ? { rollupOptions: { input: { index: "./server.ts", "meta-sandbox": "./sandbox/meta/standalone.ts" } }, target: "node20" }
      : { target: "es2022" }),
    // Page scripts imported with ?url must stay files: the CSP allows nonce'd scripts, never data: URLs.
    // So must the icon sprite: <use href> cannot point into a data: URL.
    assetsInlineLimit: (file: string) => (file.endsWith(".js") || file.endsWith("/icons.svg") ? false : undefined),
  },
  resolve: {
    alias: [
      { find: /^~\//, replacement: `${path.resolve(import.meta.dirname, "app")}/` },
      // Conform's zod coercion imports classic zod only for lazy/optional/pipe/transform; zod/mini has
      // the same functions without classic's side-effectful bundle (about 25 KB compressed saved).
      { find: /^zod\/v4$/, replacement: "zod/mini" },
    ],
  },
  // `npm run dev`: Vite pre-bundles the browser's dependencies once, at start. Without entries its scan
  // finds none (React Router's entry and routes are virtual to it), so the first page load discovers
  // them, re-bundles, and answers the modules already requested with 504 "Outdated Optimize Dep": the
  // page never hydrates. So the scan starts at the client entry and every route module. It crawls
  // them whole, server imports included; the native password hasher has no browser build to
  // pre-bundle (and never reaches the browser).
  // The browser tests give `npm run dev` an empty cache of its own (VITE_CACHE_DIR), so every run
  // starts as a fresh clone does.
  cacheDir: process.env.VITE_CACHE_DIR || "node_modules/.vite",
  optimizeDeps: {
    entries: ["app/root.tsx", "app/routes/**/*.tsx", "!app/**/*.test.tsx"],
    exclude: ["@node-rs/argon2"],
  },
  plugins: [tailwindcss(), reactRouter(), precompressAssets(), serverEntryNames()],
}));

/** React Router names the server entry index.js whatever the input: each server entry keeps its own name instead. */
function serverEntryNames(): Plugin {
  return {
    name: "jumbe-server-entry-names",
    apply: "build",
    outputOptions(output) {
      if (output.entryFileNames !== "index.js") return null;
      return { ...output, entryFileNames: (chunk) => (chunk.name === "meta-sandbox" ? "meta-sandbox.js" : "index.js") };
    },
  };
}
