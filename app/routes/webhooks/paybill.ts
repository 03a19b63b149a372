import type { Route } from "./+types/paybill";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";
import { confirmPaybill, validatePaybill } from "~/.server/domains/billing/mpesa";

/**
 * POST /webhooks/paybill/<secret>/validation and .../confirmation: Daraja's C2B calls for payments
 * to the paybill, the account number being the organisation's business id. A confirmation credits
 * only from Safaricom's addresses (MPESA_TRUSTED_IPS); any other is held in suspense.
 */
export async function action({ request, params, context }: Route.ActionArgs) {
  if (request.method !== "POST")
    return Response.json({ ResultCode: 1, ResultDesc: "Method not allowed" }, { status: 405, headers: { Allow: "POST" } });
  if (params.step !== "validation" && params.step !== "confirmation")
    return Response.json({ ResultCode: 1, ResultDesc: "Not found" }, { status: 404 });
  let body: unknown;
  try {
    body = JSON.parse(await request.text());
  } catch {
    return Response.json({ ResultCode: "C2B00016", ResultDesc: "Rejected" }, { status: 400 });
  }
  const ip = requestMeta(request, context).ip ?? undefined;
  const answer =
    params.step === "validation" ? await validatePaybill(params.secret, body, ip) : await confirmPaybill(params.secret, body, ip);
  return Response.json(answer.body, { status: answer.status });
}

export function loader() {
  return Response.json({ ResultCode: 1, ResultDesc: "Method not allowed" }, { status: 405, headers: { Allow: "POST" } });
}
