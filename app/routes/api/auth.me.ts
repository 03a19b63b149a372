import type { Route } from "./+types/auth.me";
import { authUserOf, getCurrentUser } from "~/.server/auth/guards";
import { jsonError, methodNotAllowed, STATUS_MESSAGES } from "~/.server/http/json";

export async function loader({ request }: Route.LoaderArgs) {
  const current = await getCurrentUser(request);
  if (!current) return jsonError(401, STATUS_MESSAGES[401]);
  return Response.json({ user: await authUserOf(current) }, { headers: { "Cache-Control": "no-store" } });
}

export async function action() {
  return methodNotAllowed("GET");
}
