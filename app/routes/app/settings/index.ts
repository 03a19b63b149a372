import { href, redirect } from "react-router";
import type { Route } from "./+types/index";
import { can, requireDeclaredUser } from "~/.server/domains/auth/guards";
import type { PermissionHandle } from "~/lib/permissions";

// Every member has some section of Account Settings (their own security). Each section is sent as a
// document (decision 066), so a link here loads a document too: the server's redirect, then the page.
export const handle: PermissionHandle & { hydrate: false } = { permission: "account:manage", hydrate: false };

/** Account Settings opens at its first section the member may open: the organisation for owners and admins, else the team. */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredUser(args);
  throw redirect(can(current.role, "organization:manage") ? href("/settings/organisation") : href("/settings/team"));
}
