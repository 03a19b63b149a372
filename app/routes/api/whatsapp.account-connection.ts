import type { Route } from "./+types/whatsapp.account-connection";
import { getCurrentUser } from "~/.server/auth/guards";
import { jsonError, methodNotAllowed, STATUS_MESSAGES } from "~/.server/http/json";
import { requestMeta } from "~/.server/http/request-meta";
import { ConnectionError, disconnectAccount, reconnectAccount } from "~/.server/whatsapp/connections";

/** POST /api/whatsapp/accounts/:id/disconnect and .../reconnect. Another tenant's id answers 404. */
export async function action({ request, params, context }: Route.ActionArgs) {
  if (request.method !== "POST") return methodNotAllowed("POST");
  const current = await getCurrentUser(request);
  if (!current) return jsonError(401, STATUS_MESSAGES[401]);
  const meta = requestMeta(request, context);
  try {
    const account = params.change === "disconnect" ? await disconnectAccount(current, params.id, meta) : params.change === "reconnect" ? await reconnectAccount(current, params.id, meta) : undefined;
    if (!account) return jsonError(404, STATUS_MESSAGES[404]);
    return Response.json({ id: account.id, wabaId: account.wabaId, status: account.status });
  } catch (error) {
    if (error instanceof ConnectionError) return jsonError(502, error.message);
    throw error;
  }
}

export function loader() {
  return methodNotAllowed("POST");
}
