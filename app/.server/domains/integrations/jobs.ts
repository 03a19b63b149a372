import { registerJobHandler } from "../../infrastructure/jobs/worker";
import { registerRecurringJob } from "../../infrastructure/jobs/recurring";
import { refreshExpiringTokens, TOKEN_REFRESH_EVERY_SECONDS, TOKEN_REFRESH_QUEUE } from "./tokens";

/**
 * Integrations (issue 45): tokens about to expire refreshed ahead of use, once a minute across all
 * instances (each connection's refresh is claimed by one); calls the providers, so outside a
 * transaction. Each connector's own jobs are registered with it (composition/integrations.ts).
 */
export function registerIntegrationJobs() {
  registerJobHandler({
    queue: TOKEN_REFRESH_QUEUE,
    batchSize: 1,
    maxAttempts: 3,
    transactional: false,
    run: () => refreshExpiringTokens().then(() => undefined),
  });
  registerRecurringJob({ name: "integrations-token-refresh", queue: TOKEN_REFRESH_QUEUE, everySeconds: TOKEN_REFRESH_EVERY_SECONDS });
}
