import type { Route } from "./+types/billing.wallet";
import { requireApiPermission } from "~/.server/domains/auth/guards";
import { methodNotAllowed } from "~/.server/infrastructure/http/json";
import { walletSummary } from "~/.server/domains/billing/summary";

/** GET /api/billing/wallet: `{ balanceCents, currency, plan, billingType, usage }` of the member's organisation. */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireApiPermission(args, "billing:view");
  return Response.json(await walletSummary(current.organization.id), { headers: { "Cache-Control": "no-store" } });
}

export function action() {
  return methodNotAllowed("GET");
}
