import { demoSmsAccount } from "./demo-account";
import { createAfricastalkingSandbox, type AfricastalkingSandbox } from "./index";
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
 * The Africa's Talking sandbox as a process of its own (`node build/server/africastalking-sandbox.js`),
 * so a benchmark charges Jumbe only for Jumbe's work, as in production where AT is remote: Jumbe's
 * AFRICASTALKING_BASE_URL points at http://HOST:PORT<publicPath>. It knows the demo application
 * (demo-account.ts, the one Jumbe's demo seed connects); the control API changes its balance and
 * callback URLs. Configured from the environment, mirroring how server.ts starts the in-app sandbox.
 */

export interface StandaloneConfig {
  port: number;
  host: string;
  publicPath: string;
  sandbox: AfricastalkingSandbox;
}

/** The sandbox and where to listen, from environment variables (sandbox/README.md: the Africa's Talking sandbox as its own process). */
export function createStandaloneSandbox(env: Record<string, string | undefined> = process.env): StandaloneConfig {
  const publicPath = publicPathFromEnv(env, "AT_SANDBOX_PUBLIC_PATH", "/sandbox/africastalking");
  const controlToken = controlTokenFromEnv(env);
  const sandbox = createAfricastalkingSandbox({
    accounts: [demoSmsAccount()],
    publicPath,
    controlToken,
    callbackDelayMs: wholeFromEnv(env, "AT_SANDBOX_CALLBACK_DELAY_MS", 1000, 600_000),
  });
  return { ...listenFromEnv(env, 4020), publicPath, sandbox };
}

/** The Express app around the sandbox's router. */
export function standaloneApp(config: Pick<StandaloneConfig, "publicPath" | "sandbox">) {
  return standaloneExpress({ publicPath: config.publicPath, router: config.sandbox.router, name: "Africa's Talking sandbox" });
}

/** Listens; resolves with the server and its port (0 picks a free one). */
export async function startStandaloneSandbox(env: Record<string, string | undefined> = process.env) {
  const config = createStandaloneSandbox(env);
  const listening = await listenStandalone(standaloneApp(config), config, config.sandbox);
  return { ...listening, sandbox: config.sandbox, publicPath: config.publicPath };
}

await runWhenInvoked(
  import.meta.url,
  () => startStandaloneSandbox(),
  (base) => `Africa's Talking sandbox listening: console ${base}, AFRICASTALKING_BASE_URL=${base}`,
);
