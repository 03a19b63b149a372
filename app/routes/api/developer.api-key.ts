import type { Route } from "./+types/developer.api-key";
import { requireApiPermission } from "~/.server/domains/auth/guards";
import { methodNotAllowed } from "~/.server/infrastructure/http/json";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";
import { readApiKey } from "~/.server/domains/developer/api-keys";

/** GET /api/developer/api-key: the live key (made on first read); every read is logged. */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireApiPermission(args, "developer:view");
  const key = await readApiKey(current, requestMeta(args.request, args.context));
  return Response.json(key, { headers: { "Cache-Control": "no-store" } });
}

export function action() {
  return methodNotAllowed("GET");
}
