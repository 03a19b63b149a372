import { Form, href, useLocation } from "react-router";
import { Link } from "~/components/ui/link";
import { LanguageSwitcher } from "~/components/ui/language-switcher";
import { AlertCircle, AlertTriangle, Bell, Building2, Download, KeyRound, LogOut, ShieldCheck, User } from "~/components/ui/icons";
import { SearchBox } from "~/components/ui/search";
import { Name } from "~/components/ui/name";
import { formatWhen } from "~/lib/dates";
import { Logo } from "~/components/ui/logo";
import { Menu } from "./menu";
import { m } from "~/paraglide/messages";

export interface AdminAlert {
  id: string;
  level: "warning" | "error";
  text: string;
}

/** A platform event as the bell and /admin/notifications show it (app/.server/domains/admin/bell). */
export interface BellEventView {
  kind: "signup" | "dispute" | "job" | "alert";
  id: string;
  at: string;
  title: string;
  detail: string | null;
  to: string;
  level: "info" | "warning" | "error";
  unread: boolean;
}

/** The count on the bell stops at "9+" (the server counts at most 10 of each kind). */
const UNREAD_SHOWN_MAX = 10;

function unreadWords(n: number) {
  return n >= UNREAD_SHOWN_MAX ? `${UNREAD_SHOWN_MAX - 1}+` : String(n);
}

/** Each kind of event in words, in the request's language. */
function kindWords(kind: BellEventView["kind"]) {
  switch (kind) {
    case "signup":
      return m.admin_bell_kind_signup();
    case "dispute":
      return m.admin_bell_kind_dispute();
    case "job":
      return m.admin_bell_kind_job();
    default:
      return m.admin_bell_kind_alert();
  }
}

/** One event: its kind, what happened, when, and a link to the page it is about; unread ones carry a dot and say so. */
export function BellEventLine({ event, compact = false }: { event: BellEventView; compact?: boolean }) {
  const Icon = event.kind === "signup" ? Building2 : event.kind === "dispute" ? AlertCircle : AlertTriangle;
  const tone = event.level === "error" ? "text-red-700" : event.level === "warning" ? "text-amber-700" : "text-brand-700";
  return (
    <Link
      to={event.to}
      className={`flex items-start gap-3 hover:bg-slate-50 ${compact ? "rounded-lg px-2 py-2" : "px-4 py-3"}`}
      data-unread={event.unread || undefined}
    >
      <Icon className={`mt-0.5 size-4 shrink-0 ${tone}`} aria-hidden />
      <span className="min-w-0 flex-1">
        <span className="block text-sm font-medium text-slate-900">
          <span className="sr-only">{m.admin_bell_kind_prefix({ kind: kindWords(event.kind) })} </span>
          {/* A sign-up's title is the organisation's name as its owner typed it. */}
          <Name>{event.title}</Name>
        </span>
        {event.detail ? (
          <span className={`block text-sm text-slate-600 ${compact ? "truncate" : "break-words"}`}>
            <Name>{event.detail}</Name>
          </span>
        ) : null}
        <span className="block text-xs text-slate-600">
          {kindWords(event.kind)} · <time dateTime={event.at}>{formatWhen(event.at)}</time>
        </span>
      </span>
      {event.unread ? (
        <span className="mt-1.5 flex shrink-0 items-center">
          <span className="size-2 rounded-full bg-brand-600" aria-hidden data-testid="bell-unread-dot" />
          <span className="sr-only">{m.admin_bell_unread()}</span>
        </span>
      ) : null}
    </Link>
  );
}

/** The admin console header: search, notifications and the profile menu (name falls back to Super Admin). */

export function AdminHeader({
  name,
  email,
  query = "",
  alerts = [],
  bell = { unread: 0, events: [] },
  searchAction = "/admin/search",
  exportHref,
}: {
  name?: string | null;
  email: string;
  query?: string;
  /** Live system status (failed jobs by queue, webhook backlog), shown at the top of the bell's menu. */
  alerts?: AdminAlert[];
  /** The bell: unread events (capped) and the newest few. */
  bell?: { unread: number; events: BellEventView[] };
  /** The Users tab filters itself; from anywhere else the search finds organisations, users, invoices, numbers and templates. */
  searchAction?: "/admin/users" | "/admin/search";
  /** The current tab's CSV with its filters; no button where there is nothing to export. */
  exportHref?: string;
}) {
  const displayName = name?.trim() || m.admin_header_default_name();
  const location = useLocation();
  return (
    <header className="sticky top-0 z-20 border-b border-slate-200 bg-white">
      {/* On a phone the search takes a row of its own under the logo and buttons; from md up, one row. */}
      <div className="mx-auto flex min-h-16 max-w-7xl flex-wrap items-center gap-x-4 gap-y-2 px-4 py-3 sm:px-6 md:h-16 md:flex-nowrap md:py-0">
        <Link to={href("/admin")} className="flex items-center gap-2" aria-label={m.admin_console_name()}>
          <Logo />
          <span className="hidden rounded-md bg-slate-900 px-2 py-0.5 text-xs font-semibold text-white sm:inline">
            {m.admin_header_badge()}
          </span>
        </Link>
        <SearchBox
          action={searchAction === "/admin/users" ? href("/admin/users") : href("/admin/search")}
          id="admin-search"
          label={searchAction === "/admin/users" ? m.admin_header_search_users() : m.admin_search_platform_label()}
          defaultValue={query}
          placeholder={searchAction === "/admin/users" ? m.admin_header_search_users_placeholder() : m.admin_header_search_placeholder()}
          variant="bar"
          className="order-last w-full md:order-none md:w-auto md:max-w-sm md:flex-1"
        />
        <div className="ml-auto flex items-center gap-2">
          {exportHref ? (
            <a
              href={exportHref}
              download
              className="inline-flex items-center gap-2 rounded-lg border border-slate-200 px-3 py-2 text-sm font-medium text-slate-700 hover:bg-slate-50"
            >
              {/* "Export" on a phone, where the bar is narrow; its name stays "Export Data". */}
              <Download className="size-4" aria-hidden /> {m.admin_header_export()}{" "}
              <span className="sr-only sm:not-sr-only">{m.admin_header_export_data()}</span>
            </a>
          ) : null}
          <Menu
            label={
              bell.unread ? m.admin_header_notifications_unread_label({ count: unreadWords(bell.unread) }) : m.admin_notifications_title()
            }
            panelClassName="right-0 w-96 max-w-[calc(100vw-2rem)] p-2"
            summary={
              <span className="relative icon-btn">
                <Bell className="size-5" aria-hidden />
                {bell.unread ? (
                  <span
                    className="absolute top-1 right-1 flex h-4 min-w-4 items-center justify-center rounded-full bg-red-600 px-1 text-[10px] leading-none font-bold text-white"
                    data-testid="admin-bell-unread"
                    aria-hidden
                  >
                    {bell.unread >= UNREAD_SHOWN_MAX ? `${UNREAD_SHOWN_MAX - 1}+` : bell.unread}
                  </span>
                ) : alerts.length ? (
                  <span className="absolute top-2 right-2 size-2 rounded-full bg-red-500" data-testid="admin-alert-dot" />
                ) : null}
              </span>
            }
          >
            <div className="flex items-center justify-between px-2 py-1">
              <p className="text-xs font-semibold tracking-wide text-slate-600 uppercase">{m.admin_notifications_title()}</p>
              {bell.unread ? (
                <p className="text-xs text-slate-600">{m.admin_header_unread_count({ count: unreadWords(bell.unread) })}</p>
              ) : null}
            </div>
            <div className="px-2 pb-2" aria-label={m.admin_system_alerts()} role="group">
              {alerts.length ? (
                <ul>
                  {alerts.map((alert) => (
                    <li key={alert.id} className={`rounded-lg py-1 text-sm ${alert.level === "error" ? "text-red-700" : "text-amber-800"}`}>
                      {alert.text}
                    </li>
                  ))}
                </ul>
              ) : (
                <p className="text-sm text-slate-600">{m.admin_header_all_normal()}</p>
              )}
            </div>
            {bell.events.length ? (
              <ul className="divide-y divide-slate-100 border-t border-slate-100" aria-label={m.admin_header_latest_events()}>
                {bell.events.map((event) => (
                  <li key={`${event.kind}-${event.id}`}>
                    <BellEventLine event={event} compact />
                  </li>
                ))}
              </ul>
            ) : (
              <p className="border-t border-slate-100 px-2 py-2 text-sm text-slate-600">{m.admin_header_no_events()}</p>
            )}
            <div className="flex items-center justify-between gap-2 border-t border-slate-100 px-2 pt-2">
              <Link to={href("/admin/notifications")} className="text-sm font-medium text-brand-700 underline">
                {m.admin_header_view_all_notifications()}
              </Link>
              {bell.unread ? (
                <Form method="post" action={href("/admin/notifications")}>
                  <input type="hidden" name="intent" value="mark-read" />
                  <input type="hidden" name="back" value={`${location.pathname}${location.search}`} />
                  <button type="submit" className="rounded-lg px-2 py-1 text-sm font-medium text-slate-700 hover:bg-slate-100">
                    {m.admin_notifications_mark_all_read()}
                  </button>
                </Form>
              ) : null}
            </div>
          </Menu>
          <Menu
            label={m.admin_header_profile_menu()}
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
            <Link to={href("/admin/profile")} className="menu-item">
              <User className="size-4" aria-hidden /> {m.admin_header_view_profile()}
            </Link>
            <Link to={href("/change-password")} className="menu-item">
              <KeyRound className="size-4" aria-hidden /> {m.admin_header_change_password()}
            </Link>
            <LanguageSwitcher className="border-t border-slate-100 px-4 py-2" />
            <Form method="post" action={href("/logout")} className="border-t border-slate-100 pt-1">
              <button type="submit" className="menu-item w-full text-red-600 hover:bg-red-50">
                <LogOut className="size-4" aria-hidden /> {m.admin_header_logout()}
              </button>
            </Form>
          </Menu>
        </div>
      </div>
    </header>
  );
}
