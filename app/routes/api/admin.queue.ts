import type { Route } from "./+types/admin.queue";
import { requirePlatformAdminApi } from "~/.server/domains/auth/guards";
import { methodNotAllowed } from "~/.server/infrastructure/http/json";
import { queueHealth } from "~/.server/domains/admin/queue-health";
import { platformScope } from "~/.server/infrastructure/db/scope";

/** GET /api/admin/queue: the job queue and webhook backlog, for administrators (and the benchmark); 404 to anyone else. */
export async function loader(args: Route.LoaderArgs) {
  const current = await requirePlatformAdminApi(args);
  return Response.json(await queueHealth(platformScope(current)), { headers: { "Cache-Control": "no-store" } });
}

/**
 * Any other method (POST, PUT, PATCH, DELETE, with whatever body): anyone but an administrator gets
 * the GET's 404, an administrator 405. Permission first, then method, then body; the body is never read.
 */
export async function action(args: Route.ActionArgs) {
  await requirePlatformAdminApi(args);
  return methodNotAllowed("GET");
}
