import type { Route } from "./+types/admin.queue";
import { requireApiPermission } from "~/.server/auth/guards";
import { methodNotAllowed } from "~/.server/http/json";
import { queueHealth } from "~/.server/admin/queue-health";
import { platformScope } from "~/.server/auth/scope";

/** GET /api/admin/queue: the job queue and webhook backlog, for administrators (and the benchmark). */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireApiPermission(args, "platform:queue");
  return Response.json(await queueHealth(platformScope(current)), { headers: { "Cache-Control": "no-store" } });
}

export function action() {
  return methodNotAllowed("GET");
}
