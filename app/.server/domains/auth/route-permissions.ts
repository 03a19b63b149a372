import { generatePath, matchRoutes, type Params, type RouteObject, type ServerBuild } from "react-router";
import { can, type Permission, type PermissionHandle, type Role } from "./permissions";
import { tellDocumentPages } from "../../infrastructure/http/toast";

/**
 * The permissions of the application's addresses, read from its routes (decision 055): each
 * signed-in route module declares its permission in its `handle`, and a layout's declaration covers
 * every route below it (the admin console's). There is no second list of URLs: the layouts'
 * middleware, the navigation, search and sign-in's `from` all match a path against the same routes
 * React Router serves, with its own matcher.
 */
type BuildRoutes = ServerBuild["routes"];

interface RouteNode {
  id: string;
  /** The full URL pattern, as in app/routes.ts ("/messaging/campaigns/:id"). */
  pattern: string;
  handle?: PermissionHandle;
  /** Its module says `handle.hydrate: false`: the page is sent as a document without React. */
  document: boolean;
  children: RouteNode[];
}

/**
 * The routes as React Router's matcher takes them, each route's pattern and declaration by its id,
 * and each pattern's chain of routes from the top (the middleware is told the pattern React Router
 * matched, so it needs no second match).
 */
let table: { tree: RouteNode[]; matchable: RouteObject[]; byId: Map<string, RouteNode>; byPattern: Map<string, RouteNode[]> } | undefined;

/** What paths need, once matched: matching a path against every route costs milliseconds, and the shell asks for the same pages on every request. */
const byPath = new Map<string, RouteAccess | null>();
/** Whether paths are sent as documents, once matched. */
const documentByPath = new Map<string, boolean>();
const BY_PATH_LIMIT = 2000;

function joinPattern(parent: string, path: string | undefined) {
  if (path === undefined) return parent;
  return `${parent.replace(/\/$/, "")}/${path}`.replace(/\/+/g, "/");
}

function childrenOf(routes: BuildRoutes, parentId: string | undefined) {
  return Object.values(routes).flatMap((route) => (route && route.parentId === parentId ? [route] : []));
}

function nodesBelow(routes: BuildRoutes, parentId: string | undefined, parentPattern: string): RouteNode[] {
  return childrenOf(routes, parentId).map((route) => {
    const pattern = route.index ? parentPattern || "/" : joinPattern(parentPattern, route.path) || "/";
    const handle = (route.module as { handle?: Partial<PermissionHandle> & { hydrate?: boolean } }).handle;
    return {
      id: route.id,
      pattern,
      handle: handle?.permission ? (handle as PermissionHandle) : undefined,
      document: handle?.hydrate === false,
      children: nodesBelow(routes, route.id, pattern),
    };
  });
}

function matchableBelow(routes: BuildRoutes, parentId: string | undefined): RouteObject[] {
  return childrenOf(routes, parentId).map((route): RouteObject => {
    if (route.index) return { id: route.id, index: true, caseSensitive: route.caseSensitive };
    return { id: route.id, path: route.path, caseSensitive: route.caseSensitive, children: matchableBelow(routes, route.id) };
  });
}

/**
 * Reads the routes and their modules' handles: the server with its build (in development, each
 * build Vite hands it), the tests' in-process application with its routes.
 */
export function readRoutes(routes: BuildRoutes) {
  const tree = nodesBelow(routes, undefined, "");
  const byId = new Map<string, RouteNode>();
  const byPattern = new Map<string, RouteNode[]>();
  const index = (nodes: RouteNode[], above: RouteNode[]): void =>
    nodes.forEach((node) => {
      const chain = [...above, node];
      byId.set(node.id, node);
      // Only the routes a request ends at: a pathless layout shares its pattern with its parent's.
      if (!node.children.length) byPattern.set(node.pattern, chain);
      index(node.children, chain);
    });
  index(tree, []);
  table = { tree, matchable: matchableBelow(routes, undefined), byId, byPattern };
  byPath.clear();
  documentByPath.clear();
  documentPatternsByLayout.clear();
  tellDocumentPages(sentAsDocument);
}

function routeTable() {
  if (!table) throw new Error("The routes' permissions are read before the server build was given (readRoutes).");
  return table;
}

/** What the declarations along a path's routes ask for. */
export interface RouteAccess {
  /** Every permission declared along the way: opening the path needs them all. */
  permissions: Permission[];
  /** For a download or a live stream: where a signed-out browser signs in and comes back to. */
  signInReturnsTo?: string;
}

/** A permission by the route's pattern, for a module mounted at several addresses. */
function declaredFor(node: RouteNode): Permission | "signed-in" {
  const declared = node.handle!.permission;
  if (typeof declared === "string") return declared;
  const permission = declared[node.pattern];
  if (!permission) throw new Error(`${node.pattern}: its module's handle names no permission for this address.`);
  return permission;
}

function accessAlong(nodes: RouteNode[], params: Params): RouteAccess | null {
  const declaring = nodes.filter((node) => node.handle);
  if (!declaring.length) return null;
  const permissions = declaring.map(declaredFor).filter((p): p is Permission => p !== "signed-in");
  const returnTo = nodes.at(-1)?.handle?.signInReturnsTo;
  return { permissions, signInReturnsTo: returnTo ? generatePath(returnTo, params) : undefined };
}

/** What opening `pathname` needs, or null when no route along it declares a permission (a public address, or none). */
export function routeAccess(pathname: string): RouteAccess | null {
  const known = byPath.get(pathname);
  if (known !== undefined) return known;
  const { matchable, byId } = routeTable();
  const matches = matchRoutes(matchable, pathname) ?? [];
  const access = accessAlong(
    matches.map((match) => byId.get(match.route.id!)!),
    matches.at(-1)?.params ?? {},
  );
  if (byPath.size >= BY_PATH_LIMIT) byPath.clear();
  byPath.set(pathname, access);
  return access;
}

/**
 * What the route React Router matched needs, by the pattern it hands middleware ("billing/invoices/:id/pdf");
 * by the path when it hands none (a test calling the middleware itself).
 */
export function matchedRouteAccess({ pattern, params, url }: { pattern?: string; params?: Params; url: URL }): RouteAccess | null {
  const chain = pattern ? routeTable().byPattern.get(`/${pattern.replace(/^\/+/, "")}`) : undefined;
  return chain ? accessAlong(chain, params ?? {}) : routeAccess(url.pathname);
}

/**
 * Whether the page at `pathname` is sent as a document without React (a route along it says
 * `hydrate: false`, app/root.tsx): a hydrated page's links to it load the document at once instead of
 * fetching its route module to be told to (decision 066).
 */
export function sentAsDocument(pathname: string) {
  const known = documentByPath.get(pathname);
  if (known !== undefined) return known;
  const { matchable, byId } = routeTable();
  const document = (matchRoutes(matchable, pathname) ?? []).some((match) => byId.get(match.route.id!)!.document);
  if (documentByPath.size >= BY_PATH_LIMIT) documentByPath.clear();
  documentByPath.set(pathname, document);
  return document;
}

/** documentPagePatterns' answers by layout, read once a build. */
const documentPatternsByLayout = new Map<string, string[]>();

/**
 * The URL patterns of the pages below the layout `layoutId` that are sent as documents
 * ("/messaging/campaigns/:id"): the shell's browser code loads them as documents when any link to
 * them is followed, so the router does not first fetch their route modules (decision 067).
 */
export function documentPagePatterns(layoutId: string): string[] {
  const known = documentPatternsByLayout.get(layoutId);
  if (known) return known;
  const patterns = [...routeTable().byPattern]
    .filter(([, chain]) => chain.some((node) => node.id === layoutId) && chain.some((node) => node.document))
    .map(([pattern]) => pattern)
    .sort();
  documentPatternsByLayout.set(layoutId, patterns);
  return patterns;
}

/** Whether a role holds every permission in the list. */
export function holdsAll(role: Role, permissions: readonly Permission[]) {
  return permissions.every((permission) => can(role, permission));
}

/** Whether a role may open a path: a public one (or an unknown one, which goes home) always. */
export function mayOpen(role: Role, pathname: string) {
  const access = routeAccess(pathname);
  return !access || holdsAll(role, access.permissions);
}

/** Every route with its pattern and declaration, for the test that keeps each signed-in route declared. */
export function declaredRoutes(): { id: string; pattern: string; permission: Permission | "signed-in" | null; under: string[] }[] {
  const walk = (nodes: RouteNode[], under: string[]): ReturnType<typeof declaredRoutes> =>
    nodes.flatMap((node) => [
      { id: node.id, pattern: node.pattern, permission: node.handle ? declaredFor(node) : null, under },
      ...walk(node.children, [...under, node.id]),
    ]);
  return walk(routeTable().tree, []);
}
