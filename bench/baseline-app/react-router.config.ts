import type { Config } from "@react-router/dev/config";

// The same future flags as Jumbe's react-router.config.ts, so both run the same request path.
export default {
  ssr: true,
  // In bench/results/, which git and ESLint both leave alone; packages still resolve from the
  // repository's node_modules, up the tree.
  buildDirectory: "../results/baseline-app-build",
  future: {
    v8_middleware: true,
    v8_passThroughRequests: true,
  },
} satisfies Config;
