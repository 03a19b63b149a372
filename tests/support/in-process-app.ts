import path from "node:path";
import type { RouteConfigEntry } from "@react-router/dev/routes";
import {
  createRequestHandler,
  type ServerBuild,
  UNSAFE_withComponentProps as withComponentProps,
  UNSAFE_withErrorBoundaryProps as withErrorBoundaryProps,
} from "react-router";
import routes from "~/routes";
import { createRequestContext } from "~/.server/infrastructure/http/context";
import { readRoutes } from "~/.server/domains/auth/route-permissions";

/**
 * The application's own React Router, in the test's process: every route of app/routes.ts with its
 * real module (middleware, loaders, actions, components), so a test can send it a request as the
 * built server would (a page, its `.data` fetch, a form post) against the test's database, PGlite or
 * PostgreSQL alike. What Express does before React Router (origin checks, allowed methods) is not
 * here: tests/support/built-server.ts runs the real server for that.
 */
export interface FlatRoute {
  id: string;
  parentId: string;
  file: string;
  path?: string;
  index?: boolean;
  /** The full URL pattern, as in app/routes.ts ("/messaging/contacts/:id"). */
  pattern: string;
}

/** Route ids as React Router's Vite plugin makes them: the given id, else the file without its extension. */
export function flatRoutes(entries: RouteConfigEntry[] = routes, parentId = "root", parentPattern = ""): FlatRoute[] {
  return entries.flatMap((entry) => {
    const id = entry.id ?? entry.file.replace(/\.[jt]sx?$/, "");
    const pattern = entry.index ? parentPattern || "/" : entry.path === undefined ? parentPattern : `${parentPattern}/${entry.path}`;
    const own: FlatRoute = { id, parentId, file: entry.file, path: entry.path, index: entry.index, pattern: pattern || "/" };
    return [own, ...flatRoutes(entry.children ?? [], id, pattern)];
  });
}

const APP_DIR = path.resolve(import.meta.dirname, "../../app");

let handler: ReturnType<typeof createRequestHandler> | undefined;

// What React Router's Vite plugin does to a route module: its components get loaderData, params and matches as props.
function asBuilt(module: Record<string, unknown>) {
  const built = { ...module };
  if (typeof module.default === "function") built.default = withComponentProps(module.default as never);
  if (typeof module.ErrorBoundary === "function") built.ErrorBoundary = withErrorBoundaryProps(module.ErrorBoundary as never);
  return built;
}

async function build(): Promise<ServerBuild> {
  const flat = flatRoutes();
  const modules = (await Promise.all(flat.map((route) => import(/* @vite-ignore */ path.join(APP_DIR, route.file))))).map(asBuilt);
  const root = asBuilt(await import("~/root"));
  const entry = await import("~/entry.server");
  const buildRoutes: ServerBuild["routes"] = {
    root: { id: "root", path: "", module: root as never },
  };
  const manifestRoutes: Record<string, unknown> = {
    root: {
      id: "root",
      path: "",
      module: "/root.js",
      hasAction: false,
      hasLoader: true,
      hasClientAction: false,
      hasClientLoader: false,
      hasClientMiddleware: false,
      hasErrorBoundary: true,
      imports: [],
      css: [],
    },
  };
  flat.forEach((route, i) => {
    const module = modules[i]!;
    buildRoutes[route.id] = { id: route.id, parentId: route.parentId, path: route.path, index: route.index, module: module as never };
    manifestRoutes[route.id] = {
      id: route.id,
      parentId: route.parentId,
      path: route.path,
      index: route.index,
      module: `/${route.id}.js`,
      hasAction: typeof module.action === "function",
      hasLoader: typeof module.loader === "function",
      hasClientAction: false,
      hasClientLoader: false,
      hasClientMiddleware: false,
      hasErrorBoundary: typeof module.ErrorBoundary === "function",
      imports: [],
      css: [],
    };
  });
  // The layouts' middleware, the navigation and sign-in read each route's declared permission from these.
  readRoutes(buildRoutes);
  return {
    entry: { module: entry as never },
    routes: buildRoutes,
    assets: { entry: { module: "/entry.client.js", imports: [] }, routes: manifestRoutes, url: "/manifest.js", version: "test" } as never,
    publicPath: "/",
    assetsBuildDirectory: "build/client",
    basename: "/",
    future: {
      v8_middleware: true,
      unstable_optimizeDeps: false,
      unstable_subResourceIntegrity: false,
      v8_passThroughRequests: true,
    } as never,
    ssr: true,
    isSpaMode: false,
    prerender: [],
    routeDiscovery: { mode: "initial" },
  } as unknown as ServerBuild;
}

let built: Promise<ServerBuild> | undefined;

/** A route as the permission table reads it: where it sits and its module's `handle`, nothing else. */
export interface RouteDeclaration {
  id: string;
  parentId?: string;
  path?: string;
  index?: boolean;
  caseSensitive?: boolean;
  handle?: unknown;
}

/**
 * Every route's declaration, read from its module (the integration run's global setup does it once
 * and hands the list to each file, which then need not import every route module to know them).
 */
export async function routeDeclarations(): Promise<RouteDeclaration[]> {
  const { routes } = await build();
  return Object.values(routes).flatMap((route) =>
    route
      ? [
          {
            id: route.id,
            parentId: route.parentId,
            path: route.path,
            index: route.index,
            caseSensitive: route.caseSensitive,
            handle: (route.module as { handle?: unknown }).handle,
          },
        ]
      : [],
  );
}

/** The permission table from declarations read elsewhere (the routes' modules stay unloaded until a request needs them). */
export function readRouteDeclarations(declarations: RouteDeclaration[]) {
  readRoutes(Object.fromEntries(declarations.map((route) => [route.id, { ...route, module: { handle: route.handle } }])) as never);
}

/** The application's routes with their modules, as the server has them (built once per test file); the routes' permissions are read from it. */
export function appBuild() {
  built ??= build();
  return built;
}

/** Sends one request to the application (built once per test file). */
export async function appFetch(request: Request, clientIp = "198.51.100.7") {
  handler ??= createRequestHandler(await appBuild(), "production");
  return handler(request, createRequestContext({ clientIp }));
}
