import { createContext, data, redirect, RouterContextProvider, type MiddlewareFunction, type Params } from "react-router";
import { findSession, sessionWriteDone, type FindSessionOptions } from "./sessions";
import { toAuthUser } from "./users";
import { messagesUsedThisMonth } from "../billing";
import { can, isPlatformStaff, roleOf, type Permission, type Role } from "./permissions";
import { holdsAll, matchedRouteAccess, mayOpen } from "./route-permissions";
import { jsonError, STATUS_MESSAGES } from "../../infrastructure/http/json";
import { inDisplayZone, inSavedLocale } from "../../infrastructure/http/display-zone";
import { TWO_FACTOR_MESSAGES } from "~/lib/two-factor-messages";
import { requestInfoOf } from "../../infrastructure/http/context";

export type { Permission, Role } from "./permissions";
export { can, roleOf } from "./permissions";

/** Where each role lands after signing in: the console for those who run it, the Overview for everybody else. */
export function homeFor(role: Role) {
  return can(role, "platform:console") ? "/admin" : "/dashboard";
}

/** True for a path on this site; `//host` and `/\\host` are other sites to a browser. */
export function isLocalPath(path: string | null | undefined): path is string {
  return !!path && path.startsWith("/") && !path.startsWith("//") && !path.startsWith("/\\") && !/[\r\n\t]/.test(path);
}

/** A `from` value is honoured only when it is a local path the role may open. */
export function safeRedirectTarget(from: string | null | undefined, role: Role) {
  if (!isLocalPath(from)) return homeFor(role);
  const pathname = new URL(from, "http://local").pathname;
  if (["/login", "/signin", "/login/two-factor", "/login/email-code", "/signup", "/verify-otp", "/unauthorized"].includes(pathname))
    return homeFor(role);
  return mayOpen(role, pathname) ? from : homeFor(role);
}

/** The session of a request with its user, organisation and role, read from the database; not yet checked. */
async function resolveSession(request: Request, options: FindSessionOptions = {}) {
  const found = await findSession(request, options);
  return found ? { ...found, role: roleOf(found.user) } : null;
}

export type CurrentUser = NonNullable<Awaited<ReturnType<typeof resolveSession>>>;

/** The arguments every loader, action and middleware gets that the guards read. */
export interface GuardArgs {
  request: Request;
  context: unknown;
  url?: URL;
}

// One lookup per request: the first guard to ask stores the promise in the request's context, and
// every later loader, action or middleware of the same request shares it. Across requests, an
// instance may answer a page's or the API's GET from its short-lived copy (decision 166), dropped the
// moment a NOTIFY says its session, user or organisation changed: revocation and suspension stay
// instant across instances. A request that may write always reads the database.
const sessionContext = createContext<Promise<CurrentUser | null> | null>(null);

function lookUpSession({ request, context }: GuardArgs, options: FindSessionOptions): Promise<CurrentUser | null> {
  if (!(context instanceof RouterContextProvider)) return resolveSession(request, options);
  let found = context.get(sessionContext);
  if (!found) {
    found = resolveSession(request, options);
    context.set(sessionContext, found);
  }
  return found;
}

/** Where a member sets up two-factor sign-in; the only page open to them while their organisation requires it and they have not. */
export const TWO_FACTOR_SETUP_PAGE = "/settings/security";

/**
 * Two-factor sign-in is due and this person has not turned it on yet: their organisation's owner
 * required it of everyone, or (issue 74, decision 112) they are console staff who must have it (invited
 * in the console, or made by `npm run admin:create`). The console's staff are not members bound by
 * an organisation's rule.
 */
export function mustSetUpTwoFactor(current: Pick<CurrentUser, "organization" | "user" | "role">) {
  if (current.user.twoFactorEnabledAt) return false;
  if (isPlatformStaff(current.role)) return current.user.twoFactorRequired;
  return current.organization.requireTwoFactor;
}

/**
 * Every check that applies to a session, in one place (decision 030, amended for issue 38). Every
 * route reaches the session through currentUser(), which applies them, so a page, a JSON route, an
 * export, a file or a live stream cannot skip one.
 * - An organisation the platform suspended, a member whose e-mail is not confirmed, or a console
 *   staff member the console's owner suspended (issue 74): no session at all. Every route sees a visitor (signing in again says why).
 * - Two-factor sign-in required and not set up: the set-up page only; every other route refuses.
 * - An organisation closing (decision 032): nothing is refused. Its members read, search and export
 *   during the 30 days (they take their data with them), and sending is refused where every send
 *   passes (resolveSenderNumber), not here.
 */
function sessionCheck(current: CurrentUser, pathname: string): "visitor" | "set-up-two-factor" | "open" {
  if (current.organization.status === "suspended" || !current.user.isVerified || current.user.staffSuspendedAt) return "visitor";
  if (mustSetUpTwoFactor(current) && pathname !== TWO_FACTOR_SETUP_PAGE) return "set-up-two-factor";
  return "open";
}

const NO_STORE = { "Cache-Control": "no-store" };

/**
 * A browser opening the address (a link, a typed address, a form without JavaScript) or the app's
 * router asking for a page's data: answered as a page. A script's fetch, an EventSource or an image is not.
 */
export function isNavigation({ request }: GuardArgs) {
  return (
    request.headers.get("sec-fetch-mode") === "navigate" ||
    (request.headers.get("accept") ?? "").includes("text/html") ||
    new URL(request.url).pathname.endsWith(".data")
  );
}

/**
 * How a route tells a member the checks refuse that two-factor sign-in comes first: a page sends them
 * to the set-up, the JSON API answers 403 with the reason (`requiresTwoFactorSetup`), a resource (a
 * download, a live stream, a public page asking who is signed in) does either as its request asks,
 * and the admin console answers 404, as it does to anyone but a platform administrator (decision 037).
 */
const toSetUp = () => redirect(TWO_FACTOR_SETUP_PAGE);
const setUpFirst = () => jsonError(403, TWO_FACTOR_MESSAGES.setUpFirst, { headers: NO_STORE, extra: { requiresTwoFactorSetup: true } });
const SET_UP_TWO_FACTOR_ANSWERS = {
  page: toSetUp,
  json: setUpFirst,
  resource: (args: GuardArgs) => (isNavigation(args) ? toSetUp() : setUpFirst()),
  console: consoleNotFound,
  consoleJson: consoleJsonNotFound,
};

export interface SessionOptions extends FindSessionOptions {
  /** The kind of route asking, for the answer to a refused session (`resource` unless a guard says). */
  answer?: keyof typeof SET_UP_TWO_FACTOR_ANSWERS;
}

/**
 * The signed-in user, or null for a visitor, after the session checks (sessionCheck): a session
 * they refuse here is thrown its answer. The database is read once a request; `options` other than
 * `answer` shape that first lookup only.
 */
export async function currentUser(args: GuardArgs, { answer = "resource", ...options }: SessionOptions = {}): Promise<CurrentUser | null> {
  const current = await lookUpSession(args, options);
  if (!current) return null;
  const check = sessionCheck(current, pageUrl(args).pathname);
  if (check === "visitor") return null;
  if (check === "set-up-two-factor") {
    // Console staff are sent to set it up from the console too; anyone else gets the console's 404.
    if (isPlatformStaff(current.role) && answer === "console") throw toSetUp();
    if (isPlatformStaff(current.role) && answer === "consoleJson") throw setUpFirst();
    throw SET_UP_TWO_FACTOR_ANSWERS[answer](args);
  }
  return current;
}

function pageUrl({ request, url }: GuardArgs) {
  return url ?? new URL(request.url);
}

function loginRedirect(args: GuardArgs, from?: string) {
  const url = pageUrl(args);
  return redirect(`/login?from=${encodeURIComponent(from ?? url.pathname + url.search)}`);
}

/** A permission, several (all needed), or none (any signed-in user). */
type Needed = Permission | readonly Permission[] | undefined;

function holds(role: Role, needed: Needed) {
  return holdsAll(role, needed === undefined ? [] : typeof needed === "string" ? [needed] : needed);
}

/**
 * For pages and form actions: the signed-in user holding `permission` (or any signed-in user when
 * none is given). Visitors are sent to /login with the attempted location, other roles to /unauthorized.
 */
export async function requireUserWithPermission(args: GuardArgs, permission?: Needed) {
  const current = await currentUser(args, { answer: "page" });
  if (!current) throw loginRedirect(args);
  if (!holds(current.role, permission)) throw redirect("/unauthorized");
  return current;
}

/** For the cookie-authenticated JSON API: 401 and 403 as JSON with spec section 8's texts. */
export async function requireApiPermission(args: GuardArgs, permission?: Permission, options: FindSessionOptions = {}) {
  const current = await currentUser(args, { ...options, answer: "json" });
  if (!current) throw jsonError(401, STATUS_MESSAGES[401], { headers: NO_STORE });
  if (permission && !can(current.role, permission)) throw jsonError(403, STATUS_MESSAGES[403], { headers: NO_STORE });
  return current;
}

/**
 * For downloads and live streams that a page links to and a script may also ask for (an export, an
 * EventSource): a browser's navigation is answered as a page (sign in and come back to `from`,
 * /unauthorized, the two-factor set-up), anything else as the JSON API (401, 403 with the reason).
 */
export async function requireResourcePermission(args: GuardArgs, permission?: Needed, { from }: { from?: string } = {}) {
  const navigation = isNavigation(args);
  const current = await currentUser(args, { answer: navigation ? "page" : "json" });
  if (!current) throw navigation ? loginRedirect(args, from) : jsonError(401, STATUS_MESSAGES[401], { headers: NO_STORE });
  if (!holds(current.role, permission))
    throw navigation ? redirect("/unauthorized") : jsonError(403, STATUS_MESSAGES[403], { headers: NO_STORE });
  return current;
}

/** A loader's, action's or middleware's arguments: the guards' and what React Router matched. */
export interface RouteArgs extends GuardArgs {
  /** The URL pattern React Router matched ("chat/:id"); empty or absent when a test calls a loader itself. */
  pattern?: string;
  params?: Params;
}

/**
 * What the route being opened declares (decision 055). Every route under a signed-in layout
 * declares a permission (tests/integration/route-permissions.test.ts); one that does not is refused
 * rather than opened to every member.
 */
function declaredAccess(args: RouteArgs) {
  const url = pageUrl(args);
  const access = matchedRouteAccess({ pattern: args.pattern, params: args.params, url });
  if (!access) throw new Error(`${url.pathname}: a signed-in route without a declared permission.`);
  return access;
}

/**
 * For a page's loader or action: the signed-in user, holding what the route declares in its
 * `handle` (decision 055, amended for issue 75), answered as requireUserWithPermission answers. Under
 * the layout's middleware this repeats a check already passed, at no cost (the session is read once a
 * request); a loader called without it (a test) is checked as the middleware would. A route that
 * declares nothing is an error, never an open door.
 */
export async function requireDeclaredUser(args: RouteArgs) {
  return requireUserWithPermission(args, declaredAccess(args).permissions);
}

/**
 * For a download's or a live stream's loader: the signed-in user holding what the route declares,
 * answered as requireResourcePermission answers (a signed-out browser signs in and comes back to the
 * page the route declares in `signInReturnsTo`, or to the address itself).
 */
export async function requireDeclaredResource(args: RouteArgs) {
  const { permissions, signInReturnsTo } = declaredAccess(args);
  return requireResourcePermission(args, permissions, { from: signInReturnsTo });
}

/**
 * The root's middleware for every route: after a request that may have written (any method but GET
 * and HEAD), its answer waits until this instance's session cache has heard every change committed
 * so far (decision 166), so the next request never meets a copy the write made stale.
 */
export const sessionWrites: MiddlewareFunction<Response> = async ({ request }, next) => {
  if (request.method === "GET" || request.method === "HEAD") return next();
  try {
    return await next();
  } finally {
    await sessionWriteDone(request);
  }
};

/**
 * The shell's middleware: resolves the session once, before any loader or action of the request,
 * and checks the permission the page's route module declares in its `handle`.
 */
export const signedInPages: MiddlewareFunction<Response> = async (args, next) => {
  // A page's GET reads the shell's counts with the session, in its statement (the layout's loader uses
  // them); a form's post reads them after its action has run, as the page it answers shows them.
  const method = args.request.method;
  if (method === "GET" || method === "HEAD") await currentUser(args, { answer: "page", shell: true });
  const current = await requireDeclaredUser(args);
  // Dates on the page are in the organisation's time zone (its Organisation settings), words in the member's language.
  return inSavedLocale(current.user.locale, args.url, () => inDisplayZone(current.organization.timeZone, next));
};

/**
 * The middleware of the signed-in downloads and live streams (an export, a PDF, a file, an
 * EventSource): the permission their route module declares, answered as requireResourcePermission
 * does, a signed-out browser sent to sign in to the page it declares (or the address itself).
 */
export const signedInResources: MiddlewareFunction<Response> = async (args, next) => {
  const current = await requireDeclaredResource(args);
  // A PDF or an export in the member's language and the organisation's time zone, as its page.
  return inSavedLocale(current.user.locale, args.url, () => inDisplayZone(current.organization.timeZone, next));
};

/**
 * The admin console's guard: a signed-in platform administrator, and a 404 for anyone else (a
 * visitor, a member of any role), so the console's addresses say nothing about themselves.
 */
export async function requirePlatformAdmin(args: GuardArgs) {
  const current = await currentUser(args, { answer: "console" });
  if (!current || !can(current.role, "platform:console")) throw consoleNotFound();
  return current;
}

/**
 * The console's form actions (decision 119, bound in admin/form-actions.ts): a platform
 * administrator holding `needed` (the staff's roles, decision 112), the console's 404 to anyone else.
 */
export async function requirePlatformStaff(args: GuardArgs, needed: readonly Permission[]) {
  const current = await requirePlatformAdmin(args);
  if (!holds(current.role, needed)) throw consoleNotFound();
  return current;
}

/**
 * For a console page's loader or action: a platform administrator holding what the route declares
 * (the console's layout declares `platform:console`; a money or staff page more, decision 112), the
 * console's 404 to anyone else, as the layout's middleware answers.
 */
export async function requireDeclaredStaff(args: RouteArgs) {
  return requirePlatformStaff(args, declaredAccess(args).permissions);
}

/** The admin console's JSON routes: 404 as JSON to anyone but a platform administrator. */
export async function requirePlatformAdminApi(args: GuardArgs) {
  const current = await currentUser(args, { answer: "consoleJson" });
  if (!current || !can(current.role, "platform:console")) throw consoleJsonNotFound();
  return current;
}

/** The root's error boundary shows the product's Not Found page for it, as for any address that opens nothing. */
function consoleNotFound() {
  return data("Not Found", { status: 404, statusText: "Not Found" });
}

function consoleJsonNotFound() {
  return jsonError(404, STATUS_MESSAGES[404], { headers: NO_STORE });
}

/**
 * The admin layout's middleware: resolves the session once and answers 404 to anyone but an
 * administrator, whatever the method (the server lets PUT, PATCH and DELETE through to here for
 * that); an administrator's request by any method but GET, HEAD or POST is refused.
 */
export const adminPages: MiddlewareFunction<Response> = async (args, next) => {
  // A console page for some staff only (money: owners and finance; staff: owners; issue 74): 404 to the others, as the console is to anyone else.
  const current = await requireDeclaredStaff(args);
  if (!["GET", "HEAD", "POST"].includes(args.request.method))
    return new Response("Method not allowed.", {
      status: 405,
      headers: { Allow: "GET, HEAD, POST", "Content-Type": "text/plain; charset=utf-8", ...NO_STORE },
    });
  // What Express left to this guard (a cross-origin post, a post that is not a form): an administrator gets it now.
  const refusal = requestInfoOf(args.context).consoleRefusal;
  if (refusal)
    return new Response(refusal.message, {
      status: refusal.status,
      headers: { "Content-Type": "text/plain; charset=utf-8", ...NO_STORE },
    });
  return inSavedLocale(current.user.locale, args.url, next);
};

export async function authUserOf(current: CurrentUser) {
  const used = current.messagesUsedThisMonth ?? (await messagesUsedThisMonth(current.organization.id));
  return toAuthUser(current.user, current.organization, used);
}
