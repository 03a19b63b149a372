import type { Route } from "./+types/auth.me";
import { authUserOf, requireApiPermission } from "~/.server/auth/guards";
import { methodNotAllowed } from "~/.server/http/json";

export async function loader(args: Route.LoaderArgs) {
  const current = await requireApiPermission(args);
  return Response.json({ user: await authUserOf(current) }, { headers: { "Cache-Control": "no-store" } });
}

export async function action() {
  return methodNotAllowed("GET");
}
