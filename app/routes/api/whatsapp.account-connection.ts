import type { Route } from "./+types/whatsapp.account-connection";
import { requireApiPermission } from "~/.server/domains/auth/guards";
import { jsonError, methodNotAllowed, STATUS_MESSAGES } from "~/.server/infrastructure/http/json";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";
import { ConnectionError, disconnectAccount, reconnectAccount } from "~/.server/domains/whatsapp/connections";

/** POST /api/whatsapp/accounts/:id/disconnect and .../reconnect. Another tenant's id answers 404. */
export async function action(args: Route.ActionArgs) {
  const { request, params, context } = args;
  if (request.method !== "POST") return methodNotAllowed("POST");
  const current = await requireApiPermission(args, "whatsapp:manage");
  const meta = requestMeta(request, context);
  try {
    const account =
      params.change === "disconnect"
        ? await disconnectAccount(current, params.id, meta)
        : params.change === "reconnect"
          ? await reconnectAccount(current, params.id, meta)
          : undefined;
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
