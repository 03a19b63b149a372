import { href, redirect } from "react-router";
import type { Route } from "./+types/index";
import { requireUserWithPermission } from "~/.server/auth/guards";

/** Account Settings opens at its first section. */
export async function loader(args: Route.LoaderArgs) {
  await requireUserWithPermission(args, "account:manage");
  throw redirect(href("/settings/team"));
}
