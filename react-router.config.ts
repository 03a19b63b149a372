import type { Config } from "@react-router/dev/config";

export default {
  ssr: true,
  routeDiscovery: { mode: "lazy" },
  future: {
    // Route middleware with a typed context: the session is resolved once per request (app/.server/domains/auth/guards.ts).
    v8_middleware: true,
    // Loaders get the request as it came (no copy per loader); they read the page's URL from `url`, not `request.url`.
    v8_passThroughRequests: true,
  },
} satisfies Config;
