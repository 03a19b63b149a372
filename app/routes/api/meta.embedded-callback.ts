import type { Route } from "./+types/meta.embedded-callback";
import { requireApiPermission } from "~/.server/domains/auth/guards";
import { jsonError, methodNotAllowed } from "~/.server/infrastructure/http/json";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";
import { FAILURE_REASONS, handleEmbeddedCallback } from "~/.server/domains/whatsapp/callback";

/** GET /api/meta/embedded-callback?code&shared_waba_id&state[&phone_number_id] (spec section 7). */
export async function loader(args: Route.LoaderArgs) {
  const { request, context, url } = args;
  const current = await requireApiPermission(args, "whatsapp:manage");
  const result = await handleEmbeddedCallback(current, url, requestMeta(request, context));
  const headers = { "Cache-Control": "no-store" };
  if (result.kind === "missing") return jsonError(400, "Missing required parameters.", { headers });
  if (result.kind === "failed")
    return jsonError(result.status, "Failed to complete signup. Please try again.", {
      headers,
      extra: { reason: result.reason, detail: FAILURE_REASONS[result.reason], ...(result.detail ? { graphError: result.detail } : {}) },
    });
  return Response.json({ message: "Signup complete!", completed: true, account: result.account }, { headers });
}

export function action() {
  return methodNotAllowed("GET");
}
