import { href, redirect } from "react-router";
import type { Route } from "./+types/logout";
import { signOut } from "~/.server/domains/auth/signout";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";

// Signing out changes state, so it is a POST; a GET only goes to the sign-in page.
export async function loader() {
  throw redirect(href("/signin"));
}

export async function action({ request, context }: Route.ActionArgs) {
  const clear = await signOut(request, requestMeta(request, context));
  throw redirect(href("/signin"), { headers: { "Set-Cookie": clear } });
}
