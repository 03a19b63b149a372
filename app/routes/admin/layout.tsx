import { Outlet, useLocation } from "react-router";
import type { Route } from "./+types/layout";
import { adminPages, requireDeclaredStaff } from "~/.server/domains/auth/guards";
import { AdminHeader } from "~/components/layout/admin-header";
import { systemAlerts } from "~/.server/domains/admin/system-alerts";
import { bellSummary } from "~/.server/domains/admin/bell";
import { platformScope } from "~/.server/infrastructure/db/scope";
import { Tabs } from "~/components/ui/tabs";
import { ADMIN_TABS, AUDIT_TAB, STAFF_TAB, adminExportHref, adminTabOf } from "~/lib/admin-tabs";
import { mayOpen } from "~/.server/domains/auth/route-permissions";

import type { PermissionHandle } from "~/lib/permissions";
import type { PageHandle } from "~/root";
import { loadAsDocument, menuDocumentPage } from "~/components/layout/document-page";
import { m } from "~/paraglide/messages";

export const middleware: Route.MiddlewareFunction[] = [adminPages];

// The whole console, every page, export and detail below this layout: the platform administrators' (decision 037).
// Its pages are documents without React (decision 063): links and forms, with the kit's two scripts
// for busy buttons and closing menus.
export const handle: PermissionHandle & PageHandle = { permission: "platform:console", ...menuDocumentPage };

// Reached by a client-side navigation (a link from a hydrated page), a console page loads as a document.
export const clientLoader = loadAsDocument;

export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredStaff(args);
  const scope = platformScope(current);
  // Two statements: the live system status, and the bell's newest events with the unread count.
  const [alerts, bell] = await Promise.all([systemAlerts(scope), bellSummary(scope, current.user.adminBellSeenAt)]);
  const seenAt = current.user.adminBellSeenAt;
  return {
    alerts,
    bell: {
      unread: bell.unread,
      events: bell.events.map((e) => ({ ...e, at: e.at.toISOString(), unread: !seenAt || e.at > seenAt })),
    },
    name: `${current.user.firstName} ${current.user.lastName}`.trim(),
    email: current.user.email,
    query: args.url.searchParams.get("q") ?? "",
    // The tabs this staff member opens (issue 74): Billing is for owners and finance, Staff for owners.
    opens: [...ADMIN_TABS, STAFF_TAB, AUDIT_TAB].map((tab) => tab.to).filter((to) => mayOpen(current.role, to)),
  };
}

// Admins see no side navigation or top bar, only the admin header and the console's tabs (spec section 2).
export default function AdminLayout({ loaderData }: Route.ComponentProps) {
  const location = useLocation();
  const tab = adminTabOf(location.pathname);
  return (
    <div className="min-h-screen">
      <AdminHeader
        name={loaderData.name}
        email={loaderData.email}
        query={loaderData.query}
        alerts={loaderData.alerts}
        bell={loaderData.bell}
        searchAction={tab?.to === "/admin/users" ? "/admin/users" : "/admin/search"}
        exportHref={adminExportHref(location.pathname, location.search)}
      />
      <div className="mx-auto max-w-7xl px-4 pt-4 sm:px-6">
        <Tabs
          label={m.admin_console_name()}
          items={[...ADMIN_TABS, STAFF_TAB, AUDIT_TAB]
            .filter((item) => loaderData.opens.includes(item.to))
            .map((item) => ({ label: item.label, to: item.to, current: item === tab }))}
        />
      </div>
      <main className="mx-auto max-w-7xl p-4 sm:p-6">
        <Outlet />
      </main>
    </div>
  );
}
