import { href } from "react-router";
import {
  Activity,
  BarChart3,
  Bell,
  Bot,
  CreditCard,
  FileText,
  KeyRound,
  LayoutDashboard,
  Megaphone,
  MessageCircle,
  MessageSquare,
  Rocket,
  Settings,
  ShoppingBag,
  Users,
  Wallet,
  Zap,
} from "~/components/ui/icons";
import { m } from "~/paraglide/messages";

export interface NavEntry {
  to: string;
  label: string;
  icon: typeof LayoutDashboard;
  /** Other pages this entry stands for (highlighted there too), besides the pages below `to`. */
  also?: readonly string[];
  /** Shows the inbox's unread conversations. */
  counts?: "inbox";
}

export interface NavGroup {
  /** The heading's id (`nav-<id>`), the same in every language; with `label`. */
  id?: string;
  /** Read by screen readers and shown above the group when the navigation is wide; the first group has none. */
  label?: string;
  entries: readonly NavEntry[];
}

/** An entry whose label is read when a page is drawn, in its language (issue 43). */
function entry(to: string, label: () => string, icon: NavEntry["icon"], more: Pick<NavEntry, "also" | "counts"> = {}): NavEntry {
  return {
    to,
    icon,
    ...more,
    get label() {
      return label();
    },
  };
}

/**
 * Every section of the signed-in product, grouped so the list stays short: the spec's five entries
 * (Overview, Get Started, WhatsApp Setup, Billing, Activity) and every other section a member may
 * open. Only real pages are listed (Integrations joins when it is built); each entry shows only for
 * roles that may open its page (the permission its route declares, read by the shell's loader).
 */
export const NAV_GROUPS: readonly NavGroup[] = [
  {
    entries: [
      entry(href("/dashboard"), m.app_nav_overview, LayoutDashboard),
      entry(href("/get-started"), m.app_nav_get_started, Rocket),
      entry(href("/whatsapp"), m.app_nav_whatsapp_setup, MessageCircle),
    ],
  },
  {
    id: "messaging",
    get label() {
      return m.app_nav_group_messaging();
    },
    entries: [
      entry(href("/chat"), m.app_nav_inbox, MessageSquare, { counts: "inbox" }),
      entry(href("/automations"), m.app_nav_automations, Bot),
      entry(href("/messaging/contacts"), m.app_nav_contacts, Users),
      // The Message Center's campaigns and broadcasts tabs.
      entry(href("/messaging"), m.app_nav_campaigns, Megaphone),
      entry(href("/templates"), m.app_nav_templates, FileText, { also: [href("/preview")] }),
      entry(href("/shop/products"), m.app_nav_shop, ShoppingBag, { also: [href("/shop/orders")] }),
      entry(href("/analytics"), m.app_nav_analytics, BarChart3),
    ],
  },
  {
    id: "account",
    get label() {
      return m.app_nav_group_account();
    },
    entries: [
      entry(href("/billing"), m.app_nav_billing, CreditCard),
      // Issue 74: found only by search before; it sits by Billing, where an owner looks for money.
      entry(href("/revenue-share"), m.app_nav_revenue_share, Wallet),
      entry(href("/developers"), m.app_nav_developers, KeyRound),
      entry(href("/integrations"), m.app_nav_integrations, Zap),
      entry(href("/activity"), m.app_nav_activity, Activity),
      entry(href("/notifications"), m.app_nav_notifications, Bell),
      entry(href("/settings"), m.app_nav_settings, Settings),
    ],
  },
];

/** Whether a path is the page or one below it. */
function covers(pathname: string, to: string) {
  return pathname === to || pathname.startsWith(`${to}/`);
}

/** Whether a navigation entry is the current page or one below it (as NavLink decides, without its per-link hooks). */
export function isNavActive(pathname: string, to: string) {
  return covers(pathname, to);
}

/** Every page the navigation links to: the shell's loader answers which of them the member may open. */
export const NAV_PAGES: readonly string[] = NAV_GROUPS.flatMap((group) => group.entries.map((entry) => entry.to));

/** The groups with only the entries the member may open (`opens`, from the shell's loader); a group left empty is dropped. */
export function navigationFor(opens: readonly string[]): NavGroup[] {
  return NAV_GROUPS.map((group) => ({
    id: group.id,
    label: group.label,
    entries: group.entries.filter((item) => opens.includes(item.to)),
  })).filter((group) => group.entries.length > 0);
}

/**
 * The entry for the current page: the one whose page (or one of its `also` pages) is the longest
 * that the path is or lies below, so /messaging/contacts/… is Contacts, not Campaigns (/messaging).
 */
export function currentEntry(groups: readonly NavGroup[], pathname: string): string | undefined {
  let best: { to: string; length: number } | undefined;
  for (const entry of groups.flatMap((group) => group.entries))
    for (const path of [entry.to, ...(entry.also ?? [])])
      if (covers(pathname, path) && (!best || path.length > best.length)) best = { to: entry.to, length: path.length };
  return best?.to;
}

/** The unread count as the badge shows it. */
export function countLabel(count: number) {
  return count >= 100 ? "99+" : String(count);
}
