import type { Route } from "./+types/whatsapp.accounts";
import { getCurrentUser } from "~/.server/auth/guards";
import { jsonError, methodNotAllowed, STATUS_MESSAGES } from "~/.server/http/json";
import { listConnections } from "~/.server/whatsapp/connections";

/** GET /api/whatsapp/accounts: the tenant's WhatsApp Business Accounts and numbers. */
export async function loader({ request }: Route.LoaderArgs) {
  const current = await getCurrentUser(request);
  if (!current) return jsonError(401, STATUS_MESSAGES[401]);
  return Response.json({ accounts: await listConnections(current.organization.id) }, { headers: { "Cache-Control": "no-store" } });
}

export function action() {
  return methodNotAllowed("GET");
}
