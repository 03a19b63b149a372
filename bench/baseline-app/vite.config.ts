import { reactRouter } from "@react-router/dev/vite";
import { defineConfig } from "vite";

export default defineConfig({
  // Vite's cache next to the build: the repository's node_modules is not this app's to write in.
  cacheDir: "../results/baseline-app-build/.vite",
  build: { target: "es2022" },
  plugins: [reactRouter()],
});
