import { createContext, data, redirect, RouterContextProvider, type MiddlewareFunction } from "react-router";
import { findSession, type FindSessionOptions } from "./sessions";
import { toAuthUser } from "./users";
import { messagesUsedThisMonth } from "../billing/month-usage";
import { can, pagePermission, roleOf, type Permission, type Role } from "./permissions";
import { jsonError, STATUS_MESSAGES } from "../http/json";
import { inDisplayZone } from "../http/display-zone";
import { TWO_FACTOR_MESSAGES } from "~/lib/two-factor-messages";

export type { Permission, Role } from "./permissions";
export { can, roleOf } from "./permissions";

/** Where each role lands after signing in. */
export function homeFor(role: Role) {
  return role === "platform_admin" ? "/admin" : "/dashboard";
}

/** True for a path on this site; `//host` and `/\\host` are other sites to a browser. */
export function isLocalPath(path: string | null | undefined): path is string {
  return !!path && path.startsWith("/") && !path.startsWith("//") && !path.startsWith("/\\") && !/[\r\n\t]/.test(path);
}

/** A `from` value is honoured only when it is a local path the role may open. */
export function safeRedirectTarget(from: string | null | undefined, role: Role) {
  if (!isLocalPath(from)) return homeFor(role);
  const pathname = new URL(from, "http://local").pathname;
  if (["/login", "/signin", "/login/two-factor", "/signup", "/verify-otp", "/unauthorized"].includes(pathname)) return homeFor(role);
  const needed = pagePermission(pathname);
  return !needed || can(role, needed) ? from : homeFor(role);
}

/** The signed-in user of a request: session, user and organisation, read from the database. */
async function resolveCurrentUser(request: Request, options: FindSessionOptions = {}) {
  const found = await findSession(request, options);
  if (!found || found.organization.status === "suspended" || !found.user.isVerified) return null;
  return { ...found, role: roleOf(found.user) };
}

export type CurrentUser = NonNullable<Awaited<ReturnType<typeof resolveCurrentUser>>>;

/** The arguments every loader, action and middleware gets that the guards read. */
export interface GuardArgs {
  request: Request;
  context: unknown;
  url?: URL;
}

// One lookup per request: the first guard to ask stores the promise in the request's context, and
// every later loader, action or middleware of the same request shares it. Reading the database on
// every request (not a cache across requests) is what makes revocation and suspension instant.
const currentUserContext = createContext<Promise<CurrentUser | null> | null>(null);

/** The signed-in user, or null. `options` shape the request's first lookup only; later guards share it. */
export function currentUser({ request, context }: GuardArgs, options: FindSessionOptions = {}): Promise<CurrentUser | null> {
  if (!(context instanceof RouterContextProvider)) return resolveCurrentUser(request, options);
  let found = context.get(currentUserContext);
  if (!found) {
    found = resolveCurrentUser(request, options);
    context.set(currentUserContext, found);
  }
  return found;
}

function pageUrl({ request, url }: GuardArgs) {
  return url ?? new URL(request.url);
}

function loginRedirect(args: GuardArgs) {
  const url = pageUrl(args);
  return redirect(`/login?from=${encodeURIComponent(url.pathname + url.search)}`);
}

/**
 * For pages and form actions: the signed-in user holding `permission` (or any signed-in user when
 * none is given). Visitors are sent to /login with the attempted location, other roles to /unauthorized.
 */
export async function requireUserWithPermission(args: GuardArgs, permission?: Permission) {
  const current = await currentUser(args);
  if (!current) throw loginRedirect(args);
  if (mustSetUpTwoFactor(current) && pageUrl(args).pathname !== TWO_FACTOR_SETUP_PAGE) throw redirect(TWO_FACTOR_SETUP_PAGE);
  if (permission && !can(current.role, permission)) throw redirect("/unauthorized");
  return current;
}

/** Where a member sets up two-factor sign-in; the only page open to them while their organisation requires it and they have not. */
export const TWO_FACTOR_SETUP_PAGE = "/settings/security";

/** The owner required two-factor sign-in for everyone, and this member has not turned it on yet. */
export function mustSetUpTwoFactor(current: Pick<CurrentUser, "organization" | "user" | "role">) {
  return current.organization.requireTwoFactor && !current.user.twoFactorEnabledAt && current.role !== "platform_admin";
}

/** For the cookie-authenticated JSON API: 401 and 403 as JSON with spec section 8's texts. */
export async function requireApiPermission(args: GuardArgs, permission?: Permission, options: FindSessionOptions = {}) {
  const current = await currentUser(args, options);
  if (!current) throw jsonError(401, STATUS_MESSAGES[401], { headers: { "Cache-Control": "no-store" } });
  if (mustSetUpTwoFactor(current))
    throw jsonError(403, TWO_FACTOR_MESSAGES.setUpFirst, {
      headers: { "Cache-Control": "no-store" },
      extra: { requiresTwoFactorSetup: true },
    });
  if (permission && !can(current.role, permission))
    throw jsonError(403, STATUS_MESSAGES[403], { headers: { "Cache-Control": "no-store" } });
  return current;
}

/**
 * The signed-in layouts' middleware: resolves the session once, before any loader or action of the
 * request, and checks the page's permission from the one table (PAGE_PERMISSIONS).
 */
export const signedInPages: MiddlewareFunction<Response> = async (args, next) => {
  const current = await requireUserWithPermission(args, pagePermission(args.url.pathname));
  // Dates on the page are in the organisation's time zone (its Organisation settings).
  return inDisplayZone(current.organization.timeZone, next);
};

/**
 * The admin console's guard: a signed-in platform administrator, and a 404 for anyone else (a
 * visitor, a member of any role), so the console's addresses say nothing about themselves.
 */
export async function requirePlatformAdmin(args: GuardArgs) {
  const current = await currentUser(args);
  if (!current || !can(current.role, "platform:console")) throw data("Not Found", { status: 404 });
  return current;
}

/** The admin console's JSON routes: 404 as JSON to anyone but a platform administrator. */
export async function requirePlatformAdminApi(args: GuardArgs) {
  const current = await currentUser(args);
  if (!current || !can(current.role, "platform:console"))
    throw jsonError(404, STATUS_MESSAGES[404], { headers: { "Cache-Control": "no-store" } });
  return current;
}

/** The admin layout's middleware: resolves the session once and answers 404 to anyone but an administrator. */
export const adminPages: MiddlewareFunction<Response> = async (args, next) => {
  await requirePlatformAdmin(args);
  return next();
};

export async function authUserOf(current: CurrentUser) {
  const used = current.messagesUsedThisMonth ?? (await messagesUsedThisMonth(current.organization.id));
  return toAuthUser(current.user, current.organization, used);
}
