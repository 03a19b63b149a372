import type { Config } from "@react-router/dev/config";

// The same future flags as Jumbe's react-router.config.ts, so both run the same request path.
export default {
  ssr: true,
  buildDirectory: "build",
  future: {
    v8_middleware: true,
    v8_passThroughRequests: true,
  },
} satisfies Config;
