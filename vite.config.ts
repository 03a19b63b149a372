import { reactRouter } from "@react-router/dev/vite";
import tailwindcss from "@tailwindcss/vite";
import { defineConfig } from "vite";
import path from "node:path";

export default defineConfig(({ isSsrBuild }) => ({
  // server.ts is the server bundle's entry: Express, security headers, sandboxes and the React Router handler.
  build: isSsrBuild ? { rollupOptions: { input: "./server.ts" }, target: "node20" } : { target: "es2022" },
  resolve: { alias: { "~": path.resolve(import.meta.dirname, "app") } },
  plugins: [tailwindcss(), reactRouter()],
}));
