import type { Route } from "./+types/developer.api-key.regenerate";
import { requireApiPermission } from "~/.server/domains/auth/guards";
import { methodNotAllowed } from "~/.server/infrastructure/http/json";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";
import { regenerateApiKey } from "~/.server/domains/developer/api-keys";

/** POST /api/developer/api-key/regenerate: a new key; the old one is refused from now on. */
export async function action(args: Route.ActionArgs) {
  const { request, context } = args;
  if (request.method !== "POST") return methodNotAllowed("POST");
  const current = await requireApiPermission(args, "developer:manage");
  const key = await regenerateApiKey(current, requestMeta(request, context));
  return Response.json(key, { headers: { "Cache-Control": "no-store" } });
}

export function loader() {
  return methodNotAllowed("POST");
}
