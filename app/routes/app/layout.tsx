import { lazy, Suspense } from "react";
import { Outlet, type ShouldRevalidateFunctionArgs } from "react-router";
import { AdminHeader as ServerAdminHeader } from "~/components/layout/admin-header";
import { ClosingBanner as ServerClosingBanner } from "~/components/layout/closing-banner";
import type { Route } from "./+types/layout";
import { requireDeclaredUser, signedInPages } from "~/.server/domains/auth/guards";
import { signedCookies } from "~/.server/infrastructure/http/cookies";
import { shellReadsFrom, shellReadsOf } from "~/.server/domains/notifications/queries";
import { AppShell } from "~/components/layout/app-shell";
import { can } from "~/lib/permissions";
import { BROWSER_PERMISSIONS } from "~/lib/grants";
import { formatDay, setDisplayZoneSource } from "~/lib/dates";
import { systemAlerts } from "~/.server/domains/admin/system-alerts";
import { platformScope } from "~/.server/infrastructure/db/scope";
import { documentPagePatterns, mayOpen } from "~/.server/domains/auth/route-permissions";
import { NAV_PAGES } from "~/components/layout/navigation";
import { SETTINGS_SECTIONS } from "~/lib/settings-sections";

// Every page of the shell: the session is resolved once and each page's permission checked before any loader or action runs.
export const middleware: Route.MiddlewareFunction[] = [signedInPages];

export async function loader(args: Route.LoaderArgs) {
  const { request } = args;
  const current = await requireDeclaredUser(args);
  const collapsed = (await signedCookies().sidebar.parse(request.headers.get("cookie"))) === "collapsed";
  // Administrators see the console's header, whose bell shows system alerts rather than notifications.
  const admin = can(current.role, "platform:console");
  const opens = [...NAV_PAGES, ...SETTINGS_SECTIONS.map((section) => section.to)].filter((page) => mayOpen(current.role, page));
  const [shell, alerts] = await Promise.all([
    // The member's unread notifications, and the inbox's unread conversations for the side
    // navigation, in one statement (every signed-in page reads it).
    // A page's GET read them with the session (signedInPages): no statement of their own.
    admin
      ? { bell: { unread: 0, items: null }, inboxUnread: null }
      : current.shell
        ? shellReadsFrom(current.shell.unread, can(current.role, "inbox:view") ? current.shell.inboxUnread : null)
        : shellReadsOf({ userId: current.user.id, organizationId: current.organization.id }, { inbox: can(current.role, "inbox:view") }),
    admin ? systemAlerts(platformScope(current)) : [],
  ]);
  return {
    user: {
      businessName: current.organization.name,
      email: current.user.email,
      avatar: current.user.avatarUrl,
      usertype: current.user.usertype,
      name: `${current.user.firstName} ${current.user.lastName}`,
    },
    // What the signed-in member may do, of what pages ask in the browser: they hide the buttons the
    // role cannot use. Answered here from the table, which stays on the server.
    grants: BROWSER_PERMISSIONS.filter((permission) => can(current.role, permission)),
    // The navigation's and the settings' pages the role may open, by the permissions their routes declare.
    opens,
    // Every page of the app sent as a document without React, by its URL pattern: any link to one,
    // in the shell or in a page, loads the document at once (decisions 066, 067).
    documentPatterns: documentPagePatterns("routes/app/layout"),
    // The organisation's time zone: the browser shows dates in it, as the server rendered them.
    timeZone: current.organization.timeZone,
    // A closing organisation (decision 032): when its data goes; read with the session, no statement of its own.
    eraseAfter: current.organization.closureRequestedAt ? (current.organization.eraseAfter?.toISOString() ?? null) : null,
    collapsed,
    alerts,
    bell: shell.bell,
    // Conversations with unread messages (to UNREAD_CAP), shown on the navigation's Inbox entry.
    inboxUnread: shell.inboxUnread,
  };
}

/**
 * The shell's counts (the Inbox entry's unread conversations, the bell) are read again on every
 * move to another page, not only after a form: the pathless layout would otherwise keep the first
 * page's, so reading the inbox and going back to the Overview left its count standing.
 */
export function shouldRevalidate({ currentUrl, nextUrl, defaultShouldRevalidate }: ShouldRevalidateFunctionArgs) {
  return defaultShouldRevalidate || currentUrl.pathname !== nextUrl.pathname;
}

// The banner of an organisation that is closing: rare, so its own chunk in the browser; the server
// renders it in place (a suspended part would need a script to show).
const ClosingBanner = import.meta.env.SSR
  ? ServerClosingBanner
  : lazy(() => import("~/components/layout/closing-banner").then((module) => ({ default: module.ClosingBanner })));

// A platform administrator's header, here only on the few member pages they open: its own chunk, so
// members' first visits do not carry it (decision 061).
const AdminHeader = import.meta.env.SSR
  ? ServerAdminHeader
  : lazy(() => import("~/components/layout/admin-header").then((module) => ({ default: module.AdminHeader })));

// Spec section 2: admins get the shell without side navigation and top bar.
export default function AppLayout({ loaderData }: Route.ComponentProps) {
  // In the browser, pages rendered after this one (client navigations) show dates in the same zone.
  if (typeof document !== "undefined") setDisplayZoneSource(() => loaderData.timeZone);
  if (loaderData.user.usertype === "admin") {
    return (
      <div className="min-h-screen">
        <Suspense fallback={null}>
          <AdminHeader name={loaderData.user.name} email={loaderData.user.email} alerts={loaderData.alerts} />
        </Suspense>
        <main className="mx-auto max-w-7xl p-4 sm:p-6">
          <Outlet />
        </main>
      </div>
    );
  }
  return (
    <AppShell
      user={loaderData.user}
      collapsed={loaderData.collapsed}
      bell={loaderData.bell}
      opens={loaderData.opens}
      documentPatterns={loaderData.documentPatterns}
      inboxUnread={loaderData.inboxUnread}
    >
      {loaderData.eraseAfter ? (
        <Suspense fallback={null}>
          <ClosingBanner eraseOn={formatDay(loaderData.eraseAfter)} canReopen={loaderData.grants.includes("organization:close")} />
        </Suspense>
      ) : null}
      <Outlet />
    </AppShell>
  );
}
