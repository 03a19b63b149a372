import type { Route } from "./+types/sms";
import { receiveIncomingSms, receiveSmsDeliveryReport, receiveSmsOptOut } from "~/.server/domains/sms";

/** AT's callbacks are a few hundred bytes; anything past this is not one (the server's own limit is wider). */
const SMS_CALLBACK_MAX_BYTES = 8 * 1024;

/**
 * POST /webhooks/sms/<token>/(delivery|incoming|optout): Africa's Talking's callbacks for an
 * organisation's own AT application (decision 148), form-encoded. The token names the organisation
 * (an unknown one is 404); a body that is not a form is 415, one too long 413.
 */
export async function action({ request, params }: Route.ActionArgs) {
  if (request.method !== "POST") return new Response("Method not allowed\n", { status: 405, headers: { Allow: "POST" } });
  const kind = params.kind;
  if (kind !== "delivery" && kind !== "incoming" && kind !== "optout") return new Response("Not found\n", { status: 404 });
  if (!(request.headers.get("content-type") ?? "").toLowerCase().startsWith("application/x-www-form-urlencoded"))
    return new Response("Body must be application/x-www-form-urlencoded\n", { status: 415 });
  if (Number(request.headers.get("content-length") ?? 0) > SMS_CALLBACK_MAX_BYTES) return new Response("Body too large\n", { status: 413 });
  const raw = await request.text();
  if (raw.length > SMS_CALLBACK_MAX_BYTES) return new Response("Body too large\n", { status: 413 });
  const form = new URLSearchParams(raw);
  const answer =
    kind === "delivery"
      ? await receiveSmsDeliveryReport(params.token, form)
      : kind === "incoming"
        ? await receiveIncomingSms(params.token, form)
        : await receiveSmsOptOut(params.token, form);
  return new Response(answer.body, { status: answer.status, headers: { "Content-Type": "text/plain; charset=utf-8" } });
}

export function loader() {
  return new Response("Method not allowed\n", { status: 405, headers: { Allow: "POST" } });
}
