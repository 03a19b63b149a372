import { href } from "react-router";
import { m } from "~/paraglide/messages";

/**
 * The admin console's six tabs (spec section 2), each a page; Export Data downloads the current tab's table.
 * Each label is read in the request's language when it is shown (a getter, issue 43).
 */
export const ADMIN_TABS = [
  {
    get label() {
      return m.admin_tab_overview();
    },
    to: href("/admin"),
    exportTo: href("/admin/export.csv"),
  },
  {
    get label() {
      return m.admin_tab_users();
    },
    to: href("/admin/users"),
    exportTo: href("/admin/users/export.csv"),
  },
  {
    get label() {
      return m.admin_tab_billing();
    },
    to: href("/admin/billing"),
    exportTo: href("/admin/billing/export.csv"),
  },
  { label: "WhatsApp", to: href("/admin/whatsapp"), exportTo: href("/admin/whatsapp/export.csv") },
  {
    get label() {
      return m.admin_tab_system();
    },
    to: href("/admin/system"),
    exportTo: href("/admin/system/export.csv"),
  },
  {
    get label() {
      return m.admin_tab_templates();
    },
    to: href("/admin/templates"),
    exportTo: href("/admin/templates/export.csv"),
  },
] as const;

/** The console's staff (issue 74): shown to those who manage them (the console's owners). */
export const STAFF_TAB = {
  get label() {
    return m.admin_tab_staff();
  },
  to: href("/admin/staff"),
  exportTo: undefined,
} as const;

export const AUDIT_TAB = {
  get label() {
    return m.admin_tab_audit();
  },
  to: href("/admin/audit"),
  exportTo: href("/admin/audit/export.csv"),
} as const;

/** The tab a console path belongs to (a detail page belongs to its list's tab); undefined elsewhere (search, profile). */
export function adminTabOf(pathname: string) {
  const path = pathname.replace(/\/+$/, "") || "/";
  if (path === AUDIT_TAB.to || path.startsWith(`${AUDIT_TAB.to}/`)) return AUDIT_TAB;
  if (path === STAFF_TAB.to) return STAFF_TAB;
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
  if (!tab?.exportTo) return undefined;
  const params = new URLSearchParams(search);
  for (const key of ["cursor", "page", "dialog", "after", "before"]) params.delete(key);
  const query = params.toString();
  return query ? `${tab.exportTo}?${query}` : tab.exportTo;
}
