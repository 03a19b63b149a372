import type { Route } from "./+types/mpesa-stk";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";
import { receiveStkCallback } from "~/.server/domains/billing/mpesa";

/**
 * POST /webhooks/mpesa/stk/<payment>/<secret>: Safaricom's M-Pesa Express callback for one payment.
 * Unsigned, and its address can leak: the address's secret, the payment's own request id and amount,
 * and then Jumbe's own STK query or Safaricom's source address decide (app/.server/domains/billing/mpesa.ts).
 */
export async function action({ request, params, context }: Route.ActionArgs) {
  if (request.method !== "POST")
    return Response.json({ ResultCode: 1, ResultDesc: "Method not allowed" }, { status: 405, headers: { Allow: "POST" } });
  let body: unknown;
  try {
    body = JSON.parse(await request.text());
  } catch {
    return Response.json({ ResultCode: 1, ResultDesc: "Body must be JSON" }, { status: 400 });
  }
  const answer = await receiveStkCallback(params.paymentId, params.secret, body, requestMeta(request, context).ip ?? undefined);
  return Response.json(answer.body, { status: answer.status });
}

export function loader() {
  return Response.json({ ResultCode: 1, ResultDesc: "Method not allowed" }, { status: 405, headers: { Allow: "POST" } });
}
