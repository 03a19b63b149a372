import type { Route } from "./+types/pay";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";
import { confirmPaymentC2b, receivePaymentStk, validatePaymentC2b } from "~/.server/domains/payments";

/**
 * POST /webhooks/pay/<token>/stk and /webhooks/pay/<token>/c2b/(validation|confirmation): Daraja's
 * calls for payment requests on a tenant's own shortcode (decision 137). The token names the
 * shortcode (an unknown one is 404); no "mpesa" in the path, which Daraja refuses in production.
 */
export async function action({ request, params, context }: Route.ActionArgs) {
  if (request.method !== "POST")
    return Response.json({ ResultCode: 1, ResultDesc: "Method not allowed" }, { status: 405, headers: { Allow: "POST" } });
  const step = "step" in params ? params.step : "stk";
  if (step !== "stk" && step !== "validation" && step !== "confirmation")
    return Response.json({ ResultCode: 1, ResultDesc: "Not found" }, { status: 404 });
  let body: unknown;
  try {
    body = JSON.parse(await request.text());
  } catch {
    return Response.json({ ResultCode: 1, ResultDesc: "Body must be JSON" }, { status: 400 });
  }
  const ip = requestMeta(request, context).ip ?? undefined;
  const answer =
    step === "stk"
      ? await receivePaymentStk(params.token, body, ip)
      : step === "validation"
        ? await validatePaymentC2b(params.token, ip)
        : await confirmPaymentC2b(params.token, body, ip);
  return Response.json(answer.body, { status: answer.status });
}

export function loader() {
  return Response.json({ ResultCode: 1, ResultDesc: "Method not allowed" }, { status: 405, headers: { Allow: "POST" } });
}
