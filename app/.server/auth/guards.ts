import { redirect } from "react-router";
import { findSession } from "./sessions";
import { countMessagesThisMonth, toAuthUser } from "./users";

export type Role = "individual" | "admin";

/** Where each role lands after signing in. */
export function homeFor(role: Role) {
  return role === "admin" ? "/admin" : "/dashboard";
}

// Spec section 6: these pages are for one role only; every other private page accepts any signed-in user.
const ROLE_ONLY: Array<[RegExp, Role]> = [
  [/^\/dashboard(\/|$)/, "individual"],
  [/^\/admin(\/|$)/, "admin"],
];

export function roleAllowedAt(pathname: string, role: Role) {
  const rule = ROLE_ONLY.find(([pattern]) => pattern.test(pathname));
  return !rule || rule[1] === role;
}

/** True for a path on this site; `//host` and `/\\host` are other sites to a browser. */
export function isLocalPath(path: string | null | undefined): path is string {
  return !!path && path.startsWith("/") && !path.startsWith("//") && !path.startsWith("/\\") && !/[\r\n\t]/.test(path);
}

/** A `from` value is honoured only when it is a local path the role may open. */
export function safeRedirectTarget(from: string | null | undefined, role: Role) {
  if (!isLocalPath(from)) return homeFor(role);
  const pathname = new URL(from, "http://local").pathname;
  if (["/login", "/signin", "/signup", "/verify-otp", "/unauthorized"].includes(pathname)) return homeFor(role);
  return roleAllowedAt(pathname, role) ? from : homeFor(role);
}

/** The signed-in user, or null. Reads the database on every request, so a role change or suspension applies at once. */
export async function getCurrentUser(request: Request) {
  const found = await findSession(request);
  if (!found || found.organization.status === "suspended" || !found.user.isVerified) return null;
  return found;
}

export type CurrentUser = NonNullable<Awaited<ReturnType<typeof getCurrentUser>>>;

function loginRedirect(request: Request) {
  const url = new URL(request.url);
  const from = url.pathname + url.search;
  return redirect(`/login?from=${encodeURIComponent(from)}`);
}

/** Throws a redirect to /login (with `from`) when nobody is signed in. */
export async function requireUser(request: Request) {
  const current = await getCurrentUser(request);
  if (!current) throw loginRedirect(request);
  return current;
}

/** Throws a redirect to /unauthorized when the signed-in user's role is not allowed. */
export async function requireRole(request: Request, roles: Role[]) {
  const current = await requireUser(request);
  if (!roles.includes(current.user.usertype)) throw redirect("/unauthorized");
  return current;
}

export async function authUserOf(current: CurrentUser) {
  return toAuthUser(current.user, current.organization, await countMessagesThisMonth(current.organization.id));
}
