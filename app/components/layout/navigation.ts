import { href } from "react-router";
import {
  Activity,
  BarChart3,
  Bell,
  CreditCard,
  FileText,
  KeyRound,
  LayoutDashboard,
  Megaphone,
  MessageCircle,
  MessageSquare,
  Rocket,
  Settings,
  Users,
} from "~/components/ui/icons";

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
  /** Read by screen readers and shown above the group when the navigation is wide; the first group has none. */
  label?: string;
  entries: readonly NavEntry[];
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
      { to: href("/dashboard"), label: "Overview", icon: LayoutDashboard },
      { to: href("/get-started"), label: "Get Started", icon: Rocket },
      { to: href("/whatsapp"), label: "WhatsApp Setup", icon: MessageCircle },
    ],
  },
  {
    label: "Messaging",
    entries: [
      { to: href("/chat"), label: "Inbox", icon: MessageSquare, counts: "inbox" },
      { to: href("/messaging/contacts"), label: "Contacts", icon: Users },
      // The Message Center's campaigns and broadcasts tabs.
      { to: href("/messaging"), label: "Campaigns", icon: Megaphone },
      { to: href("/templates"), label: "Templates", icon: FileText, also: [href("/preview")] },
      { to: href("/analytics"), label: "Analytics", icon: BarChart3 },
    ],
  },
  {
    label: "Account",
    entries: [
      { to: href("/billing"), label: "Billing", icon: CreditCard },
      { to: href("/developers"), label: "Developers", icon: KeyRound },
      { to: href("/activity"), label: "Activity", icon: Activity },
      { to: href("/notifications"), label: "Notifications", icon: Bell },
      { to: href("/settings"), label: "Settings", icon: Settings },
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
  return NAV_GROUPS.map((group) => ({ ...group, entries: group.entries.filter((entry) => opens.includes(entry.to)) })).filter(
    (group) => group.entries.length > 0,
  );
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
