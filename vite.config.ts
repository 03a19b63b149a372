import { reactRouter } from "@react-router/dev/vite";
import tailwindcss from "@tailwindcss/vite";
import { defineConfig } from "vite";
import path from "node:path";

export default defineConfig(({ isSsrBuild }) => ({
  // server.ts is the server bundle's entry: Express, security headers, sandboxes and the React Router handler.
  build: {
    ...(isSsrBuild ? { rollupOptions: { input: "./server.ts" }, target: "node20" } : { target: "es2022" }),
    // Page scripts imported with ?url must stay files: the CSP allows nonce'd scripts, never data: URLs.
    assetsInlineLimit: (file: string) => (file.endsWith(".js") ? false : undefined),
  },
  resolve: {
    alias: [
      { find: /^~\//, replacement: `${path.resolve(import.meta.dirname, "app")}/` },
      // Conform's zod coercion imports classic zod only for lazy/optional/pipe/transform; zod/mini has
      // the same functions without classic's side-effectful bundle (about 25 KB compressed saved).
      { find: /^zod\/v4$/, replacement: "zod/mini" },
    ],
  },
  // `npm run dev`: Vite's dependency scan crawls route modules whole, server imports included; the
  // native password hasher has no browser build to pre-bundle (and never reaches the browser).
  optimizeDeps: { exclude: ["@node-rs/argon2"] },
  plugins: [tailwindcss(), reactRouter()],
}));
