import { data, redirect } from "react-router";
import type { Route } from "./+types/sidebar-preference";
import { homeFor, isLocalPath, requireDeclaredUser } from "~/.server/domains/auth/guards";
import { signedCookies } from "~/.server/infrastructure/http/cookies";
import * as z from "zod/mini";
import { formAction } from "~/.server/domains/auth/form-actions";
import { postedFirst } from "~/.server/infrastructure/http/posted-fields";
import type { PermissionHandle } from "~/lib/permissions";

export const handle: PermissionHandle = { permission: "account:manage" };

/** Remembers whether the side navigation is collapsed; a plain form post without JavaScript, a fetcher with it. */
export async function action(args: Route.ActionArgs) {
  return formAction(args, {
    permission: "account:manage",
    schema: SidebarSchema,
    handle: async ({ value }) => {
      const collapsed = value.collapsed === "true";
      const cookie = await signedCookies().sidebar.serialize(collapsed ? "collapsed" : "open");
      const back = value.redirectTo;
      // The no-JavaScript form names a page to return to; the script's fetcher does not.
      if (isLocalPath(back)) throw redirect(back, { headers: { "Set-Cookie": cookie } });
      return data({ collapsed }, { headers: { "Set-Cookie": cookie } });
    },
  });
}

// The fields as posted (a missing one reads "").
const SidebarSchema = z.object({ collapsed: postedFirst(Infinity), redirectTo: postedFirst(Infinity) });

// Nothing to show: home, which for a platform administrator is the console (not /dashboard, which refuses them).
export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredUser(args);
  throw redirect(homeFor(current.role));
}
