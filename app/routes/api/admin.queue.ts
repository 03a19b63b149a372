import type { Route } from "./+types/admin.queue";
import { getCurrentUser } from "~/.server/auth/guards";
import { jsonError, methodNotAllowed, STATUS_MESSAGES } from "~/.server/http/json";
import { queueHealth } from "~/.server/admin/queue-health";

/** GET /api/admin/queue: the job queue and webhook backlog, for administrators (and the benchmark). */
export async function loader({ request }: Route.LoaderArgs) {
  const current = await getCurrentUser(request);
  if (!current) return jsonError(401, STATUS_MESSAGES[401]);
  if (current.user.usertype !== "admin") return jsonError(403, STATUS_MESSAGES[403]);
  return Response.json(await queueHealth(), { headers: { "Cache-Control": "no-store" } });
}

export function action() {
  return methodNotAllowed("GET");
}
