import type { Route } from "./+types/shopify-data";
import { requireDeclaredResource } from "~/.server/domains/auth/guards";
import { methodNotAllowed } from "~/.server/infrastructure/http/json";
import { privacyExport } from "~/.server/domains/integrations/shopify/privacy";
import { jsonDownload, notFoundText } from "~/.server/infrastructure/http/download";
import { refusalOf } from "~/.server/infrastructure/http/refusal-reply";
import type { PermissionHandle } from "~/lib/permissions";
import { m } from "~/paraglide/messages";

export const handle: PermissionHandle = { permission: "contacts:manage", signInReturnsTo: "/integrations/shopify" };

/**
 * GET /integrations/shopify/requests/:id/data.json: what Jumbe holds about the customer a shop's
 * `customers/data_request` names (decision 108), as a JSON file the owner sends on to the shop. For
 * those who manage contacts; each contact's export is in the activity log; another organisation's
 * request, or none, is not found.
 */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredResource(args);
  try {
    const { fileName, body } = await privacyExport({ organizationId: current.organization.id, userId: current.user.id }, args.params.id);
    return jsonDownload(fileName, body);
  } catch (error) {
    if (refusalOf(error).status !== 404) throw error;
    return notFoundText(m.shopify_privacy_request_not_found());
  }
}

export function action() {
  return methodNotAllowed("GET");
}
