import type { Route } from "./+types/developer.api-key";
import { getCurrentUser } from "~/.server/auth/guards";
import { jsonError, methodNotAllowed, STATUS_MESSAGES } from "~/.server/http/json";
import { requestMeta } from "~/.server/http/request-meta";
import { readApiKey } from "~/.server/developer/api-keys";

/** GET /api/developer/api-key: the live key (made on first read); every read is logged. */
export async function loader({ request, context }: Route.LoaderArgs) {
  const current = await getCurrentUser(request);
  if (!current) return jsonError(401, STATUS_MESSAGES[401]);
  const key = await readApiKey(current, requestMeta(request, context));
  return Response.json(key, { headers: { "Cache-Control": "no-store" } });
}

export function action() {
  return methodNotAllowed("GET");
}
