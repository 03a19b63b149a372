import type { Route } from "./+types/contact-data";
import { requireDeclaredResource } from "~/.server/domains/auth/guards";
import { methodNotAllowed } from "~/.server/infrastructure/http/json";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";
import { contactDataFile } from "~/.server/domains/contacts/rights";
import { jsonDownload, notFoundText } from "~/.server/infrastructure/http/download";
import { refusalOf } from "~/.server/infrastructure/http/refusal-reply";
import type { PermissionHandle } from "~/lib/permissions";
import { m } from "~/paraglide/messages";

export const handle: PermissionHandle = { permission: "contacts:manage", signInReturnsTo: "/messaging/contacts/:id" };

/**
 * GET /messaging/contacts/:id/data.json: everything held about one contact, as a JSON file to
 * download (the Data Protection Act's right of access; the contact page's "Download their data" is
 * a plain link to it). For those who manage contacts; each download is in the activity log; another
 * organisation's contact, or none, is not found.
 */
export async function loader(args: Route.LoaderArgs) {
  const { request, context, params } = args;
  const current = await requireDeclaredResource(args);
  const actor = { organizationId: current.organization.id, userId: current.user.id, meta: requestMeta(request, context) };
  try {
    const { fileName, body } = await contactDataFile(actor, params.id);
    return jsonDownload(fileName, body);
  } catch (error) {
    if (refusalOf(error).status !== 404) throw error;
    return notFoundText(m.messaging_contact_not_found());
  }
}

export function action() {
  return methodNotAllowed("GET");
}
