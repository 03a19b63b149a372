import { useEffect, useState, type ReactNode } from "react";
import { LanguageSwitcher } from "~/components/ui/language-switcher";
import { Form, href, useFetcher, useLocation, useNavigation } from "react-router";
import { Link } from "~/components/ui/link";
import {
  Bell,
  KeyRound,
  LogOut,
  Menu as MenuIcon,
  MessageSquare,
  PanelLeftClose,
  PanelLeftOpen,
  Search,
  Settings,
  User,
  UserCircle2,
  X,
} from "~/components/ui/icons";
import { Logo } from "~/components/ui/logo";
import { SearchBox } from "~/components/ui/search";
import { Menu } from "./menu";
import { ShellLoading } from "./loaders";
import { countLabel, currentEntry, isNavActive, navigationFor, type NavGroup } from "./navigation";

import { NotificationItem } from "~/components/notifications/notification-item";
import { useLiveBell, type BellState } from "~/components/notifications/use-live-bell";
import { useDocumentLinks } from "./document-links";
import { byCount } from "~/lib/intl";
import { m } from "~/paraglide/messages";

export interface ShellUser {
  businessName: string;
  email: string;
  avatar: string | null;
  name: string;
}

export function AppShell({
  user,
  collapsed,
  bell,
  opens,
  documentPatterns,
  inboxUnread,
  children,
}: {
  user: ShellUser;
  collapsed: boolean;
  /** The member's unread count and latest notifications. */
  bell: BellState;
  /** The navigation's pages the member's role may open, from the shell's loader: the navigation lists only these. */
  opens: readonly string[];
  /** Every page of the app sent as a document, by URL pattern: a link to one, anywhere (the navigation, a menu, a page), loads the document at once. */
  documentPatterns: readonly string[];
  /** The organisation's conversations with unread messages (null: the role has no inbox). */
  inboxUnread: number | null;
  children: ReactNode;
}) {
  const location = useLocation();
  useDocumentLinks(documentPatterns);
  const navigation = useNavigation();
  // Entries the member's role cannot open are not shown at all (Billing for agents and viewers).
  const groups = navigationFor(opens);
  const current = currentEntry(groups, location.pathname);
  const sidebar = useFetcher<{ collapsed: boolean }>();
  // Optimistic: the fetcher's pending value wins over the cookie's.
  const pending = sidebar.formData?.get("collapsed");
  const isCollapsed = pending ? pending === "true" : (sidebar.data?.collapsed ?? collapsed);
  const loading = navigation.state === "loading" && navigation.location.pathname !== location.pathname;
  const phoneMenu = usePhoneMenu(location.key);

  return (
    <div className="flex min-h-screen">
      {/* One navigation for every width: beside the page from md up; on a phone, hidden until the top
          bar's menu link targets it (#menu), then drawn over the page: CSS alone, so it works with
          JavaScript off, and the page carries one copy of the list. With JavaScript the links toggle
          data-open instead (a client-side navigation would leave :target set) and it closes when
          the page changes or on Escape. */}
      <aside
        id="menu"
        data-collapsed={isCollapsed}
        data-open={phoneMenu.open || undefined}
        className="sidenav sticky top-0 hidden h-screen shrink-0 flex-col border-r border-slate-200 bg-white transition-[width] duration-200 md:flex"
        aria-label={m.app_shell_main_navigation()}
      >
        <div className="flex h-16 items-center border-b border-slate-200 px-3">
          <Link to={href("/dashboard")} aria-label={m.app_shell_home_label()} className="overflow-hidden">
            {isCollapsed ? <Logo className="[&>span:last-child]:hidden" /> : <Logo />}
          </Link>
          <a
            href="#"
            aria-label={m.app_shell_close_menu()}
            id="menu-close"
            onClick={phoneMenu.close}
            className="ml-auto icon-btn md:hidden"
          >
            <X className="size-6" aria-hidden />
          </a>
        </div>
        <NavLinks groups={groups} current={current} inboxUnread={inboxUnread} />
        <sidebar.Form
          method="post"
          action={href("/preferences/sidebar")}
          className="border-t border-slate-200 p-2 max-md:hidden"
          onSubmit={(e) => {
            e.preventDefault();
            sidebar.submit({ collapsed: String(!isCollapsed) }, { method: "post", action: "/preferences/sidebar" });
          }}
        >
          <input type="hidden" name="collapsed" value={String(!isCollapsed)} />
          <input type="hidden" name="redirectTo" value={location.pathname + location.search} />
          <button
            type="submit"
            className="flex w-full items-center gap-3 rounded-lg px-3 py-2.5 text-sm text-slate-600 hover:bg-slate-100"
            aria-label={isCollapsed ? m.app_shell_expand_navigation() : m.app_shell_collapse_navigation()}
          >
            {isCollapsed ? (
              <PanelLeftOpen className="size-5 shrink-0" aria-hidden />
            ) : (
              <PanelLeftClose className="size-5 shrink-0" aria-hidden />
            )}
            <span className="sidenav-label">{m.app_shell_collapse()}</span>
          </button>
        </sidebar.Form>
      </aside>
      {/* Behind the open phone menu: a tap beside it closes it. */}
      <a href="#" tabIndex={-1} aria-hidden onClick={phoneMenu.close} className="sidenav-backdrop" />

      <div className="flex min-w-0 flex-1 flex-col">
        <header className="sticky top-0 z-20 flex h-16 items-center gap-3 border-b border-slate-200 bg-white/95 px-4 backdrop-blur">
          <a
            href="#menu"
            aria-label={m.app_shell_open_menu()}
            aria-controls="menu"
            id="menu-open"
            onClick={phoneMenu.show}
            className="icon-btn md:hidden"
          >
            <MenuIcon className="size-6" aria-hidden />
          </a>
          {/* On a phone the side navigation (and its logo) is hidden: the top bar carries the brand. */}
          <Link to={href("/dashboard")} aria-label={m.app_shell_home_label()} className="md:hidden" data-testid="topbar-logo">
            <Logo />
          </Link>
          <SearchBox
            action={href("/search")}
            id="topbar-search"
            label={m.app_shell_search()}
            maxLength={100}
            placeholder={m.app_shell_search_placeholder()}
            variant="bar"
            suggest={href("/search/suggest")}
            className="hidden max-w-md flex-1 sm:block"
          />
          <div className="ml-auto flex items-center gap-1 sm:gap-2">
            <Link to={href("/search")} aria-label={m.app_shell_search()} className="icon-btn sm:hidden">
              <Search className="size-5" aria-hidden />
            </Link>
            {opens.includes("/chat") ? (
              <Link
                to={href("/chat")}
                aria-label={m.app_shell_chat()}
                aria-current={isNavActive(location.pathname, "/chat") ? "page" : undefined}
                // On a phone the menu's Inbox entry (with its unread count) takes its place: the bar fits 360 px.
                className="icon-btn hidden sm:flex aria-[current=page]:bg-brand-50 aria-[current=page]:text-brand-800"
              >
                <MessageSquare className="size-5" aria-hidden />
              </Link>
            ) : null}
            <Notifications initial={bell} here={location.pathname + location.search} />
            <UserMenu user={user} />
          </div>
        </header>
        <main className="flex-1 p-4 sm:p-6">{loading ? <ShellLoading /> : children}</main>
      </div>
    </div>
  );
}

/**
 * The phone menu's state with JavaScript: open until the page changes, the close button or Escape.
 * Opening moves the focus into it (its close button comes first; the menu sits before the top bar
 * in the page, so Tab from the open button would skip it); Escape or the button gives it back.
 */
function usePhoneMenu(locationKey: string) {
  // Open on the page it was opened on: a move to another page closes it.
  const [openOn, setOpenOn] = useState<string | null>(null);
  const open = openOn === locationKey;
  const shut = () => {
    setOpenOn(null);
    document.getElementById("menu-open")?.focus();
  };
  useEffect(() => {
    if (!open) return;
    document.getElementById("menu-close")?.focus();
    const onKey = (event: KeyboardEvent) => event.key === "Escape" && shut();
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [open]);
  return {
    open,
    show: (event: { preventDefault(): void }) => {
      event.preventDefault();
      setOpenOn(locationKey);
    },
    // Opened before the scripts ran (#menu targeted), the link's own "#" closes it.
    close: (event: { preventDefault(): void }) => {
      if (window.location.hash !== "#menu") event.preventDefault();
      shut();
    },
  };
}

/**
 * The navigation's links, grouped, with the current page marked (aria-current) and the inbox's
 * unread conversations on its entry. Server-rendered from the loader's role and count. Collapsed to
 * icons (desktop, `data-collapsed`), app.css hides the labels and shows a dot for the count; the
 * phone menu always shows them.
 */
function NavLinks({ groups, current, inboxUnread }: { groups: NavGroup[]; current: string | undefined; inboxUnread: number | null }) {
  return (
    <nav className="flex-1 overflow-y-auto p-2">
      {groups.map((group, i) => (
        <div key={group.id ?? i} className={i ? "mt-2 border-t border-slate-100 pt-2" : undefined}>
          {group.label ? (
            <p id={`nav-${group.id}`} className="nav-heading sidenav-label">
              {group.label}
            </p>
          ) : null}
          <ul className="space-y-0.5" aria-labelledby={group.label ? `nav-${group.id}` : undefined}>
            {group.entries.map(({ to, label: name, icon: Icon, counts }) => {
              const count = counts === "inbox" ? (inboxUnread ?? 0) : 0;
              return (
                <li key={to}>
                  <Link
                    to={to}
                    title={count ? `${name} ${m.app_nav_unread({ count: countLabel(count) })}` : name}
                    aria-current={current === to ? "page" : undefined}
                    className="nav-link"
                  >
                    <Icon aria-hidden />
                    <span className="sidenav-label">{name}</span>
                    {count ? (
                      <>
                        <span className="nav-count sidenav-label" data-testid="inbox-unread">
                          <span aria-hidden>{countLabel(count)}</span>
                          <span className="sr-only"> {m.app_nav_unread({ count: countLabel(count) })}</span>
                        </span>
                        <span className="sidenav-dot" aria-hidden />
                      </>
                    ) : null}
                  </Link>
                </li>
              );
            })}
          </ul>
        </div>
      ))}
    </nav>
  );
}

/**
 * The bell (spec: "a notification bell with an unread dot"): the latest five, each leading to what
 * it is about, "Mark all as read" (a form that comes back here) and the full list. A <details>
 * menu, so it works without JavaScript: then it says how many are unread and links to the list.
 * With it, the live stream (useLiveBell) brings the latest five as the page opens, and new ones.
 */
function Notifications({ initial, here }: { initial: BellState; here: string }) {
  const { unread, items } = useLiveBell(initial);
  return (
    <Menu
      label={unread ? m.app_shell_notifications_unread({ count: countLabel(unread) }) : m.app_nav_notifications()}
      panelClassName="right-0 w-80 p-2 sm:w-96"
      summary={
        <span className="relative icon-btn">
          <Bell className="size-5" aria-hidden />
          {unread ? <span className="absolute top-2 right-2 size-2 rounded-full bg-red-500" data-testid="unread-dot" /> : null}
        </span>
      }
    >
      <div className="flex items-center justify-between gap-2 px-2 py-1">
        <p className="text-xs font-semibold tracking-wide text-slate-500 uppercase">{m.app_nav_notifications()}</p>
        {unread ? (
          <Form method="post" action={href("/notifications")}>
            <input type="hidden" name="redirectTo" value={here} />
            <button type="submit" name="intent" value="read-all" className="text-xs font-medium text-brand-700 hover:underline">
              {m.app_shell_mark_all_read()}
            </button>
          </Form>
        ) : null}
      </div>
      {items?.length ? (
        <ul aria-label={m.app_shell_latest_notifications()}>
          {items.map((n) => (
            <li key={n.id}>
              <NotificationItem notification={n} compact />
            </li>
          ))}
        </ul>
      ) : (
        <p className="px-2 py-3 text-sm text-slate-500">
          {/* Items not here yet (the live stream brings them), or without JavaScript: the count says enough. */}
          {items || !unread
            ? m.app_shell_nothing_new()
            : byCount(
                unread,
                () => m.app_shell_unread_one({ count: countLabel(unread) }),
                () => m.app_shell_unread_other({ count: countLabel(unread) }),
              )}
        </p>
      )}
      <Link
        to={href("/notifications")}
        className="mt-1 block border-t border-slate-100 px-2 pt-2 pb-1 text-center text-sm font-medium text-brand-700 hover:underline"
      >
        {m.app_shell_see_all_notifications()}
      </Link>
    </Menu>
  );
}

export function UserMenu({
  user,
  profilePath = "/profile",
}: {
  user: Pick<ShellUser, "businessName" | "email" | "avatar">;
  profilePath?: string;
}) {
  return (
    <Menu
      label={m.app_shell_user_menu()}
      panelClassName="right-0 w-64 py-2"
      summary={
        <span className="flex items-center gap-2 rounded-lg p-1 hover:bg-slate-100">
          {user.avatar ? (
            <img src={user.avatar} alt="" className="size-8 rounded-full object-cover" />
          ) : (
            <UserCircle2 className="size-8 text-slate-400" aria-hidden />
          )}
          <span className="hidden text-left text-sm leading-tight lg:block">
            <span className="block font-semibold text-slate-900">{user.businessName}</span>
            <span className="block text-slate-500">{user.email}</span>
          </span>
        </span>
      }
    >
      <div className="border-b border-slate-100 px-4 pb-2 lg:hidden">
        <p className="font-semibold text-slate-900">{user.businessName}</p>
        <p className="text-sm text-slate-500">{user.email}</p>
      </div>
      <MenuLink to={profilePath} icon={User}>
        {m.app_shell_view_profile()}
      </MenuLink>
      <MenuLink to={href("/settings")} icon={Settings}>
        {m.app_shell_account_settings()}
      </MenuLink>
      <MenuLink to={href("/change-password")} icon={KeyRound}>
        {m.app_shell_change_password()}
      </MenuLink>
      <LanguageSwitcher className="border-t border-slate-100 px-4 py-2" />
      <Form method="post" action={href("/logout")} className="border-t border-slate-100 pt-1">
        <button type="submit" className="menu-item w-full text-red-600 hover:bg-red-50">
          <LogOut className="size-4" aria-hidden /> {m.app_shell_logout()}
        </button>
      </Form>
    </Menu>
  );
}

function MenuLink({ to, icon: Icon, children }: { to: string; icon: typeof User; children: ReactNode }) {
  return (
    <Link to={to} className="menu-item">
      <Icon className="size-4" aria-hidden /> {children}
    </Link>
  );
}
