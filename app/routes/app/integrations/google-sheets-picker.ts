import type { Route } from "./+types/google-sheets-picker";
import { requireDeclaredResource } from "~/.server/domains/auth/guards";
import { pickerAccessToken } from "~/.server/domains/integrations/google-sheets/settings";
import { jsonError, methodNotAllowed } from "~/.server/infrastructure/http/json";
import { refusalOf } from "~/.server/infrastructure/http/refusal-reply";
import type { PermissionHandle } from "~/lib/permissions";

export const handle: PermissionHandle = { permission: "developer:manage" };

const NO_STORE = { "Cache-Control": "no-store" };

/**
 * POST /integrations/google-sheets/picker-token: the organisation's Google access token (drive.file)
 * for the Picker the page's script opens (Google's Picker runs in the browser with the user's token,
 * `setOAuthToken`). Posted, never cached; those who may change the integration only.
 */
export async function action(args: Route.ActionArgs) {
  if (args.request.method !== "POST") return methodNotAllowed("POST");
  const current = await requireDeclaredResource(args);
  try {
    return Response.json({ oauthToken: await pickerAccessToken(current.organization.id) }, { headers: NO_STORE });
  } catch (error) {
    const refusal = refusalOf(error);
    return jsonError(refusal.status, refusal.message, { headers: NO_STORE });
  }
}

export function loader() {
  return methodNotAllowed("POST");
}
