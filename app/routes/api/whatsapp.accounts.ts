import type { Route } from "./+types/whatsapp.accounts";
import { requireApiPermission } from "~/.server/domains/auth/guards";
import { methodNotAllowed } from "~/.server/infrastructure/http/json";
import { listConnections } from "~/.server/domains/whatsapp/connections";

/** GET /api/whatsapp/accounts: the tenant's WhatsApp Business Accounts and numbers. */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireApiPermission(args, "whatsapp:view");
  return Response.json({ accounts: await listConnections(current.organization.id) }, { headers: { "Cache-Control": "no-store" } });
}

export function action() {
  return methodNotAllowed("GET");
}
