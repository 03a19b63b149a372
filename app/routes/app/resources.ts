import type { Route } from "./+types/resources";
import { signedInResources } from "~/.server/domains/auth/guards";

/**
 * The signed-in downloads, files and live streams (exports, PDFs, a message's file, the
 * EventSources): a pathless layout without a page, outside the shell (no side navigation to read,
 * no time zone of the pages). Its middleware checks the permission each route module declares
 * before the route's loader runs; a signed-out browser is sent to sign in, a script told 401.
 */
export const middleware: Route.MiddlewareFunction[] = [signedInResources];
