import { Form, href, Link } from "react-router";
import { Bell, Download, KeyRound, LogOut, Search, ShieldCheck, User } from "~/components/ui/icons";
import { Logo } from "~/components/ui/logo";
import { Menu } from "./menu";

/** The admin console header: search, notifications and the profile menu (name falls back to Super Admin). */
export interface AdminAlert {
  id: string;
  level: "warning" | "error";
  text: string;
}

export function AdminHeader({
  name,
  email,
  query = "",
  alerts = [],
  searchAction = "/admin/search",
  exportHref,
}: {
  name?: string | null;
  email: string;
  query?: string;
  alerts?: AdminAlert[];
  /** The Users tab filters itself; from anywhere else the search finds organisations, users, invoices, numbers and templates. */
  searchAction?: "/admin/users" | "/admin/search";
  /** The current tab's CSV with its filters; no button where there is nothing to export. */
  exportHref?: string;
}) {
  const displayName = name?.trim() || "Super Admin";
  return (
    <header className="sticky top-0 z-20 border-b border-slate-200 bg-white">
      <div className="mx-auto flex h-16 max-w-7xl items-center gap-4 px-4 sm:px-6">
        <Link to={href("/admin")} className="flex items-center gap-2" aria-label="Admin console">
          <Logo />
          <span className="hidden rounded-md bg-slate-900 px-2 py-0.5 text-xs font-semibold text-white sm:inline">Admin</span>
        </Link>
        <Form
          method="get"
          action={searchAction === "/admin/users" ? href("/admin/users") : href("/admin/search")}
          role="search"
          className="relative hidden max-w-sm flex-1 md:block"
        >
          <label htmlFor="admin-search" className="sr-only">
            {searchAction === "/admin/users" ? "Search users" : "Search the platform"}
          </label>
          <Search className="pointer-events-none absolute top-1/2 left-3 size-4 -translate-y-1/2 text-slate-400" aria-hidden />
          <input
            id="admin-search"
            name="q"
            type="search"
            defaultValue={query}
            placeholder={searchAction === "/admin/users" ? "Search users..." : "Search users, invoices, numbers..."}
            className="w-full rounded-lg border border-slate-200 bg-slate-50 py-2 pr-3 pl-9 text-sm focus:border-brand-600 focus:outline-none"
          />
        </Form>
        <div className="ml-auto flex items-center gap-2">
          {exportHref ? (
            <a
              href={exportHref}
              download
              className="hidden items-center gap-2 rounded-lg border border-slate-200 px-3 py-2 text-sm font-medium text-slate-700 hover:bg-slate-50 sm:inline-flex"
            >
              <Download className="size-4" aria-hidden /> Export Data
            </a>
          ) : null}
          <Menu
            label="System alerts"
            panelClassName="right-0 w-80 p-2"
            summary={
              <span className="relative flex size-10 items-center justify-center rounded-lg text-slate-600 hover:bg-slate-100">
                <Bell className="size-5" aria-hidden />
                {alerts.length ? (
                  <span className="absolute top-2 right-2 size-2 rounded-full bg-red-500" data-testid="admin-alert-dot" />
                ) : null}
              </span>
            }
          >
            <p className="px-2 py-1 text-xs font-semibold tracking-wide text-slate-500 uppercase">System alerts</p>
            {alerts.length ? (
              <ul>
                {alerts.map((alert) => (
                  <li
                    key={alert.id}
                    className={`rounded-lg px-2 py-2 text-sm ${alert.level === "error" ? "text-red-700" : "text-amber-800"}`}
                  >
                    {alert.text}
                  </li>
                ))}
              </ul>
            ) : (
              <p className="px-2 py-2 text-sm text-slate-600">All systems normal: no failed jobs and no webhook backlog.</p>
            )}
          </Menu>
          <Menu
            label="Profile menu"
            panelClassName="right-0 w-60 py-2"
            summary={
              <span className="flex items-center gap-2 rounded-lg p-1 hover:bg-slate-100">
                <span className="flex size-8 items-center justify-center rounded-full bg-slate-900 text-white">
                  <ShieldCheck className="size-4" aria-hidden />
                </span>
                <span className="hidden text-left text-sm leading-tight sm:block">
                  <span className="block font-semibold">{displayName}</span>
                  <span className="block text-slate-500">{email}</span>
                </span>
              </span>
            }
          >
            <Link to={href("/admin/profile")} className="flex items-center gap-3 px-4 py-2 text-sm text-slate-700 hover:bg-slate-50">
              <User className="size-4" aria-hidden /> View Profile
            </Link>
            <Link to={href("/change-password")} className="flex items-center gap-3 px-4 py-2 text-sm text-slate-700 hover:bg-slate-50">
              <KeyRound className="size-4" aria-hidden /> Change Password
            </Link>
            <Form method="post" action={href("/logout")} className="border-t border-slate-100 pt-1">
              <button type="submit" className="flex w-full items-center gap-3 px-4 py-2 text-sm text-red-600 hover:bg-red-50">
                <LogOut className="size-4" aria-hidden /> Logout
              </button>
            </Form>
          </Menu>
        </div>
      </div>
    </header>
  );
}
