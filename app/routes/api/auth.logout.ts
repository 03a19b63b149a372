import type { Route } from "./+types/auth.logout";
import { signOut } from "~/.server/domains/auth/signout";
import { methodNotAllowed } from "~/.server/infrastructure/http/json";
import { requestMeta } from "~/.server/infrastructure/http/request-meta";

export async function loader() {
  return methodNotAllowed("POST");
}

export async function action({ request, context }: Route.ActionArgs) {
  const clear = await signOut(request, requestMeta(request, context));
  return Response.json({ message: "Logged out" }, { headers: { "Set-Cookie": clear } });
}
