import type { Route } from "./+types/mpesa-b2c";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";
import { receivePayoutCallback } from "~/.server/domains/revenue-share/payouts";

const KINDS = new Set(["result", "timeout", "status"]);

/**
 * POST /webhooks/mpesa/b2c/<payout>/<secret>/<result|timeout|status>: Daraja's answer about one
 * partner payout (issue 46). Unsigned, on an address with a secret derived from the payout; believed
 * only from Safaricom's addresses (app/.server/domains/revenue-share/payouts.ts).
 */
export async function action({ request, params, context }: Route.ActionArgs) {
  if (request.method !== "POST")
    return Response.json({ ResultCode: 1, ResultDesc: "Method not allowed" }, { status: 405, headers: { Allow: "POST" } });
  if (!KINDS.has(params.kind)) return Response.json({ ResultCode: 1, ResultDesc: "Not found" }, { status: 404 });
  const text = await request.text();
  if (text.length > 64 * 1024) return Response.json({ ResultCode: 1, ResultDesc: "Body too large" }, { status: 413 });
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return Response.json({ ResultCode: 1, ResultDesc: "Body must be JSON" }, { status: 400 });
  }
  const answer = await receivePayoutCallback(
    params.payoutId,
    params.secret,
    params.kind as "result" | "timeout" | "status",
    body,
    requestMeta(request, context).ip ?? undefined,
  );
  return Response.json(answer.body, { status: answer.status });
}

export function loader() {
  return Response.json({ ResultCode: 1, ResultDesc: "Method not allowed" }, { status: 405, headers: { Allow: "POST" } });
}
