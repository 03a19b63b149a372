import type { Route } from "./+types/developer.api-key.regenerate";
import { getCurrentUser } from "~/.server/auth/guards";
import { jsonError, methodNotAllowed, STATUS_MESSAGES } from "~/.server/http/json";
import { requestMeta } from "~/.server/http/request-meta";
import { regenerateApiKey } from "~/.server/developer/api-keys";

/** POST /api/developer/api-key/regenerate: a new key; the old one is refused from now on. */
export async function action({ request, context }: Route.ActionArgs) {
  if (request.method !== "POST") return methodNotAllowed("POST");
  const current = await getCurrentUser(request);
  if (!current) return jsonError(401, STATUS_MESSAGES[401]);
  const key = await regenerateApiKey(current, requestMeta(request, context));
  return Response.json(key, { headers: { "Cache-Control": "no-store" } });
}

export function loader() {
  return methodNotAllowed("POST");
}
