import type { Config } from "@react-router/dev/config";

export default {
  ssr: true,
  routeDiscovery: { mode: "lazy" },
  future: {
    // Route middleware with a typed context: the session is resolved once per request (app/.server/domains/auth/guards.ts).
    v8_middleware: true,
    // Loaders get the request as it came (no copy per loader); they read the page's URL from `url`, not `request.url`.
    v8_passThroughRequests: true,
    // Not yet, each a change of its own with its tests (decision 117): the browser build's chunks are laid
    // out by `shellChunk` (vite.config.ts, decision 061) around whole route modules; the server build's
    // entries are given by `build.rollupOptions` for the SSR build; and "/"'s data is `/_root.data`
    // (infrastructure/http/methods.ts), which the trailing-slash form would make `/_.data`.
    v8_splitRouteModules: false,
    v8_viteEnvironmentApi: false,
    v8_trailingSlashAwareDataRequests: false,
  },
} satisfies Config;
