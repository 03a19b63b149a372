import type { Route } from "./+types/paystack";
import { receivePaystackWebhook } from "~/.server/domains/billing/card";

/** POST /webhooks/paystack: Paystack's events, signed with HMAC-SHA512 over the raw body (x-paystack-signature). */
export async function action({ request }: Route.ActionArgs) {
  if (request.method !== "POST") return new Response(null, { status: 405, headers: { Allow: "POST" } });
  const raw = Buffer.from(await request.arrayBuffer());
  const outcome = await receivePaystackWebhook(raw, request.headers.get("x-paystack-signature") ?? undefined);
  return new Response(null, { status: outcome.status });
}

export function loader() {
  return new Response(null, { status: 405, headers: { Allow: "POST" } });
}
