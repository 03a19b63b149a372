import { data, href, redirect } from "react-router";
import type { Route } from "./+types/sidebar-preference";
import { isLocalPath, requireUserWithPermission } from "~/.server/auth/guards";
import { signedCookies } from "~/.server/auth/cookies";
import { readForm } from "~/.server/http/forms";

/** Remembers whether the side navigation is collapsed; a plain form post without JavaScript, a fetcher with it. */
export async function action(args: Route.ActionArgs) {
  const { request } = args;
  await requireUserWithPermission(args, "account:manage");
  const form = await readForm(request);
  const collapsed = form.get("collapsed") === "true";
  const cookie = await signedCookies().sidebar.serialize(collapsed ? "collapsed" : "open");
  const back = String(form.get("redirectTo") ?? "");
  // The no-JavaScript form names a page to return to; the script's fetcher does not.
  if (isLocalPath(back)) throw redirect(back, { headers: { "Set-Cookie": cookie } });
  return data({ collapsed }, { headers: { "Set-Cookie": cookie } });
}

export async function loader() {
  throw redirect(href("/dashboard"));
}
