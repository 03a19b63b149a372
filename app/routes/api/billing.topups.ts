import { z } from "zod";
import type { Route } from "./+types/billing.topups";
import { requireApiPermission } from "~/.server/domains/auth/guards";
import { jsonError, methodNotAllowed, readJsonBody } from "~/.server/infrastructure/http/json";
import { startMpesaTopup } from "~/.server/domains/billing/mpesa";
import { startCardTopup } from "~/.server/domains/billing/card";
import { startBankTransfer } from "~/.server/domains/billing/bank";
import { paymentView } from "~/.server/domains/billing/payments";
import { env } from "~/.server/infrastructure/config/env";
import { refusalOf, refusalJson } from "~/.server/infrastructure/http/refusal-reply";

const TopupBody = z.object({
  amount: z.union([z.number(), z.string().max(20)], { error: "amount must be a number of shillings." }),
  method: z.enum(["mpesa", "card", "bank"], { error: "method must be mpesa, card or bank." }).default("mpesa"),
  phone: z.string().max(32).optional(),
});

/**
 * POST /api/billing/topups `{ amount, method, phone }` (amount in KES): an M-Pesa prompt to the
 * phone (`{ id, status: "pending", checkoutRequestId }`), a card checkout (`authorizationUrl`), or a
 * bank transfer's reference and account. An `Idempotency-Key` header makes a repeat answer the first.
 */
export async function action(args: Route.ActionArgs) {
  const { request } = args;
  if (request.method !== "POST") return methodNotAllowed("POST");
  const current = await requireApiPermission(args, "billing:manage");
  const body = await readJsonBody(request, TopupBody);
  if (!body.ok) return body.response;
  const key = request.headers.get("idempotency-key");
  if (key !== null && !/^[\w-]{8,100}$/.test(key)) return jsonError(400, "Idempotency-Key must be 8 to 100 letters, digits, - or _.");
  const actor = { organizationId: current.organization.id, userId: current.user.id };
  try {
    if (body.value.method === "mpesa") {
      if (!body.value.phone) return jsonError(400, "phone is required for M-Pesa.", { extra: { field: "phone" } });
      const payment = await startMpesaTopup(actor, { amount: body.value.amount, phone: body.value.phone, idempotencyKey: key });
      return Response.json(paymentView(payment), { status: 201, headers: { "Cache-Control": "no-store" } });
    }
    if (body.value.method === "card") {
      const started = await startCardTopup({ ...actor, email: current.user.email }, { amount: body.value.amount, idempotencyKey: key });
      return Response.json(
        { ...paymentView(started.payment), authorizationUrl: started.authorizationUrl },
        { status: 201, headers: { "Cache-Control": "no-store" } },
      );
    }
    const started = await startBankTransfer(actor, { amount: body.value.amount, idempotencyKey: key });
    return Response.json(
      { ...paymentView(started.payment), reference: started.payment.reference, invoiceId: started.invoiceId, bank: env().bankTransfer },
      { status: 201, headers: { "Cache-Control": "no-store" } },
    );
  } catch (error) {
    return refusalJson(refusalOf(error));
  }
}

export function loader() {
  return methodNotAllowed("POST");
}
