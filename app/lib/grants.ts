import type { Permission } from "./permissions";

/**
 * The permissions a page asks about in the browser, to hide what the member's role cannot use (the
 * server checks again). The shell's loader answers them from the one table (`app/lib/permissions.ts`),
 * so the table itself stays on the server and out of every page's JavaScript.
 */
export const BROWSER_PERMISSIONS = [
  "inbox:reply",
  "inbox:assign",
  "whatsapp:manage",
  "activity:export",
  "templates:manage",
  "contacts:manage",
  "campaigns:view",
  "organization:close",
] as const satisfies readonly Permission[];

export type BrowserPermission = (typeof BROWSER_PERMISSIONS)[number];
