import { href } from "react-router";

/** The admin console's six tabs (spec section 2), each a page; Export Data downloads the current tab's table. */
export const ADMIN_TABS = [
  { label: "Overview", to: href("/admin"), exportTo: href("/admin/export.csv") },
  { label: "Users", to: href("/admin/users"), exportTo: href("/admin/users/export.csv") },
  { label: "Billing", to: href("/admin/billing"), exportTo: href("/admin/billing/export.csv") },
  { label: "WhatsApp", to: href("/admin/whatsapp"), exportTo: href("/admin/whatsapp/export.csv") },
  { label: "System", to: href("/admin/system"), exportTo: href("/admin/system/export.csv") },
  { label: "Templates", to: href("/admin/templates"), exportTo: href("/admin/templates/export.csv") },
] as const;

export const AUDIT_TAB = { label: "Audit log", to: href("/admin/audit"), exportTo: href("/admin/audit/export.csv") } as const;

/** The tab a console path belongs to (a detail page belongs to its list's tab); undefined elsewhere (search, profile). */
export function adminTabOf(pathname: string) {
  const path = pathname.replace(/\/+$/, "") || "/";
  if (path === AUDIT_TAB.to || path.startsWith(`${AUDIT_TAB.to}/`)) return AUDIT_TAB;
  return [...ADMIN_TABS]
    .reverse()
    .find((tab) => (tab.to === "/admin" ? path === "/admin" : path === tab.to || path.startsWith(`${tab.to}/`)));
}

/**
 * Export Data's address for the page being looked at: the tab's CSV with the page's own filters
 * (the query string, without paging). Undefined where there is no table to export.
 */
export function adminExportHref(pathname: string, search: string) {
  const tab = adminTabOf(pathname);
  if (!tab) return undefined;
  const params = new URLSearchParams(search);
  for (const key of ["cursor", "page", "dialog", "after", "before"]) params.delete(key);
  const query = params.toString();
  return query ? `${tab.exportTo}?${query}` : tab.exportTo;
}
