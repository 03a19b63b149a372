import { redirect } from "react-router";
import type { Route } from "./+types/card-return";
import { cardPaymentByReference, settleCardPayment } from "~/.server/domains/billing/card";
import { requireDeclaredResource } from "~/.server/domains/auth/guards";
import type { PermissionHandle } from "~/lib/permissions";

export const handle: PermissionHandle = { permission: "billing:manage" };

/**
 * GET /billing/card-return?reference=...: where Paystack's checkout sends the payer back. The
 * transaction is verified with Paystack (never trusted from the address), then the payer sees
 * their payment's page. Another organisation's reference answers 404.
 */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredResource(args);
  const reference = args.url.searchParams.get("reference") ?? args.url.searchParams.get("trxref") ?? "";
  if (!/^[\w-]{6,100}$/.test(reference)) throw new Response("Not Found", { status: 404 });
  // Paystack out of reach: the payment's page shows it pending, and the webhook or the check job settles it.
  const payment = await settleCardPayment(reference, "Paystack's verification").catch(() => cardPaymentByReference(reference));
  if (!payment || payment.organization_id !== current.organization.id) throw new Response("Not Found", { status: 404 });
  return redirect(`/billing/payments/${payment.id}`);
}
