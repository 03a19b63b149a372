import type { Route } from "./+types/auth.me";
import { authUserOf, requireApiPermission } from "~/.server/domains/auth/guards";
import { methodNotAllowed } from "~/.server/infrastructure/http/json";

export async function loader(args: Route.LoaderArgs) {
  // The session and the month's usage in one statement.
  const current = await requireApiPermission(args, undefined, { monthUsage: true });
  return Response.json({ user: await authUserOf(current) }, { headers: { "Cache-Control": "no-store" } });
}

export async function action() {
  return methodNotAllowed("GET");
}
