import type { Route } from "./+types/billing.topup";
import { requireApiPermission } from "~/.server/domains/auth/guards";
import { jsonError, methodNotAllowed, STATUS_MESSAGES } from "~/.server/infrastructure/http/json";
import { paymentOf, paymentView } from "~/.server/domains/billing/payments";

/** GET /api/billing/topups/<id>: `pending`, `completed`, or `failed` with the reason in words. Another organisation's: 404. */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireApiPermission(args, "billing:view");
  const payment = await paymentOf(current.organization.id, args.params.id);
  if (!payment) return jsonError(404, STATUS_MESSAGES[404]);
  return Response.json(paymentView(payment), { headers: { "Cache-Control": "no-store" } });
}

export function action() {
  return methodNotAllowed("GET");
}
