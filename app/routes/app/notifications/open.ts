import { data, redirect } from "react-router";
import type { Route } from "./+types/open";
import { requireDeclaredUser } from "~/.server/domains/auth/guards";
import { markRead } from "~/.server/domains/notifications/queries";
import { isInProductLink } from "~/lib/notifications";
import type { PermissionHandle } from "~/lib/permissions";
import { m } from "~/paraglide/messages";

export const handle: PermissionHandle = { permission: "notifications:view" };

/**
 * GET /notifications/:id: following a notification marks it read and goes on to what it is about
 * (its in-product link; without one, the list). Another member's or another tenant's id is 404.
 */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredUser(args);
  const found = await markRead({ userId: current.user.id, organizationId: current.organization.id }, args.params.id);
  if (!found) throw data(m.inbox_notifications_not_found(), { status: 404 });
  throw redirect(found.link && isInProductLink(found.link) ? found.link : "/notifications");
}
