import { DEMO_META_APP_ID, DEMO_META_APP_SECRET } from "./demo-app";
import { sendingFromEnv } from "./env-options";
import { createMetaSandbox, type MetaSandbox } from "./index";
import {
  controlTokenFromEnv,
  listenFromEnv,
  listenStandalone,
  publicPathFromEnv,
  runWhenInvoked,
  standaloneExpress,
  wholeFromEnv,
} from "../standalone";

/**
 * The Meta sandbox as a process of its own (`node build/server/meta-sandbox.js`), so a benchmark
 * measures Jumbe alone: Jumbe's GRAPH_API_BASE_URL points at http://HOST:PORT<publicPath>/graph
 * and the sandbox sends its webhooks to META_SANDBOX_WEBHOOK_URL (Jumbe's /webhooks/whatsapp).
 * Configured from the environment, mirroring how server.ts starts the in-app sandbox.
 */

export interface StandaloneConfig {
  port: number;
  host: string;
  publicPath: string;
  sandbox: MetaSandbox;
}

/** The sandbox and where to listen, from environment variables (sandbox/README.md: the Meta sandbox as its own process). */
export function createStandaloneSandbox(env: Record<string, string | undefined> = process.env): StandaloneConfig {
  const publicPath = publicPathFromEnv(env, "META_SANDBOX_PUBLIC_PATH", "/sandbox/meta");
  const controlToken = controlTokenFromEnv(env);
  const sandbox = createMetaSandbox({
    appId: env.META_APP_ID?.trim() || DEMO_META_APP_ID,
    appSecret: env.META_APP_SECRET?.trim() || DEMO_META_APP_SECRET,
    configId: env.META_CONFIG_ID?.trim() || undefined,
    webhookUrl: env.META_SANDBOX_WEBHOOK_URL?.trim() || "http://127.0.0.1:3000/webhooks/whatsapp",
    statePath: env.META_SANDBOX_STATE?.trim() || undefined,
    // As in-app: the admin console's demo accounts Jumbe's demo seed stores answer Test Connection.
    consoleDemo: true,
    publicPath,
    templateReviewDelayMs: wholeFromEnv(env, "META_SANDBOX_TEMPLATE_REVIEW_MS", 3000, 600_000),
    controlToken,
    ...sendingFromEnv(env),
  });
  return { ...listenFromEnv(env, 4010), publicPath, sandbox };
}

/** The Express app around the sandbox's router; Graph's answers (JSON made once per call) need no nonce. */
export function standaloneApp(config: Pick<StandaloneConfig, "publicPath" | "sandbox">) {
  const graphPrefix = `${config.publicPath}/graph/`;
  return standaloneExpress({
    publicPath: config.publicPath,
    router: config.sandbox.router,
    name: "Meta sandbox",
    noNonce: (path) => path.startsWith(graphPrefix),
  });
}

/** Listens; resolves with the server and its port (0 picks a free one). */
export async function startStandaloneSandbox(env: Record<string, string | undefined> = process.env) {
  const config = createStandaloneSandbox(env);
  const app = standaloneApp(config);
  // Graph's send endpoint first, without Express when it can (MetaSandbox.sendFastPath).
  const listening = await listenStandalone(
    (req, res) => {
      if (!config.sandbox.sendFastPath(req, res)) app(req, res);
    },
    config,
    config.sandbox,
  );
  return { ...listening, sandbox: config.sandbox, publicPath: config.publicPath };
}

await runWhenInvoked(
  import.meta.url,
  () => startStandaloneSandbox(),
  (base) => `Meta sandbox listening: console ${base}, GRAPH_API_BASE_URL=${base}/graph`,
);
