import type { Route } from "./+types/embedded-signup.status";
import { getCurrentUser } from "~/.server/auth/guards";
import { jsonError, methodNotAllowed, STATUS_MESSAGES } from "~/.server/http/json";
import { signupStatus } from "~/.server/whatsapp/connections";

/** GET /api/embedded-signup/status: `completed` and the three setup steps (spec sections 4 and 7). */
export async function loader({ request }: Route.LoaderArgs) {
  const current = await getCurrentUser(request);
  if (!current) return jsonError(401, STATUS_MESSAGES[401]);
  return Response.json(await signupStatus(current.organization.id), { headers: { "Cache-Control": "no-store" } });
}

export function action() {
  return methodNotAllowed("GET");
}
