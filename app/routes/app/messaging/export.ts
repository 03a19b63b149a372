import { redirect } from "react-router";
import type { Route } from "./+types/export";
import { isNavigation, requireDeclaredResource } from "~/.server/domains/auth/guards";
import { jsonError, methodNotAllowed } from "~/.server/infrastructure/http/json";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";
import { recordActivity } from "~/.server/domains/activity/record";
import { contactsExportFileName, exportFilter, openContactsCsv } from "~/.server/domains/contacts/export";
import { log } from "~/.server/infrastructure/log";
import type { PermissionHandle } from "~/lib/permissions";
import { m } from "~/paraglide/messages";

// A copy of the book leaves with those who manage it.
export const handle: PermissionHandle = { permission: "contacts:manage", signInReturnsTo: "/messaging/contacts" };

/**
 * GET /messaging/contacts/export.csv: the contacts the Contacts tab's filter matches (q, tag,
 * optin, seen), as a streamed, formula-safe CSV download. The tab's Export is a plain link to it.
 */
export async function loader(args: Route.LoaderArgs) {
  const { request, context, url } = args;
  const current = await requireDeclaredResource(args);
  const { filter, description } = exportFilter(url.searchParams);
  try {
    const body = await openContactsCsv(current.organization.id, filter);
    await recordActivity({
      organizationId: current.organization.id,
      userId: current.user.id,
      type: "settings",
      status: "success",
      action: "Contacts exported",
      details: description,
      meta: requestMeta(request, context),
    });
    return new Response(body, {
      headers: {
        "Content-Type": "text/csv; charset=utf-8",
        "Content-Disposition": `attachment; filename="${contactsExportFileName()}"`,
        "Cache-Control": "no-store",
        "X-Content-Type-Options": "nosniff",
      },
    });
  } catch (error) {
    log().error({ err: error }, "contacts export failed");
    return isNavigation(args) ? redirect("/messaging/contacts?exportError=1") : jsonError(500, m.messaging_contacts_export_failed());
  }
}

export function action() {
  return methodNotAllowed("GET");
}
