import type { Permission } from "./permissions";
import { m } from "~/paraglide/messages";

/**
 * Pages the spec lists for every signed-in user that are not built yet. Each has a real route
 * (app/routes/app/coming-soon.tsx) that says so in the shell, instead of a link that drops the user
 * on the marketing site; the issue that builds a page replaces its route and removes it here. Each
 * is already refused to the roles it will not be for (its permission, declared by the route).
 * Its title and summary are read when a page is drawn, in its language.
 */
export const PLANNED_PAGES = {
  "/revenue-share": { title: m.app_planned_revenue_share, summary: m.app_planned_revenue_share_summary, permission: "billing:view" },
} as const satisfies Record<string, { title: () => string; summary: () => string; permission: Permission }>;

export type PlannedPath = keyof typeof PLANNED_PAGES;

export function isPlannedPath(path: string): path is PlannedPath {
  return Object.hasOwn(PLANNED_PAGES, path);
}
