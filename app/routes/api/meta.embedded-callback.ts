import type { Route } from "./+types/meta.embedded-callback";
import { getCurrentUser } from "~/.server/auth/guards";
import { jsonError, methodNotAllowed, STATUS_MESSAGES } from "~/.server/http/json";
import { requestMeta } from "~/.server/http/request-meta";
import { FAILURE_REASONS, handleEmbeddedCallback } from "~/.server/whatsapp/callback";

/** GET /api/meta/embedded-callback?code&shared_waba_id&state[&phone_number_id] (spec section 7). */
export async function loader({ request, context }: Route.LoaderArgs) {
  const current = await getCurrentUser(request);
  if (!current) return jsonError(401, STATUS_MESSAGES[401]);
  const result = await handleEmbeddedCallback(current, new URL(request.url), requestMeta(request, context));
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
