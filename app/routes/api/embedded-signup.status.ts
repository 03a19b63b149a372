import type { Route } from "./+types/embedded-signup.status";
import { requireApiPermission } from "~/.server/domains/auth/guards";
import { methodNotAllowed } from "~/.server/infrastructure/http/json";
import { signupStatus } from "~/.server/domains/whatsapp/connections";

/** GET /api/embedded-signup/status: `completed` and the three setup steps (spec sections 4 and 7). */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireApiPermission(args, "whatsapp:view");
  return Response.json(await signupStatus(current.organization.id), { headers: { "Cache-Control": "no-store" } });
}

export function action() {
  return methodNotAllowed("GET");
}
