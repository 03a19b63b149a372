import { sql } from "drizzle-orm";
import { db } from "../../infrastructure/db/client";
import { queryRows } from "../../infrastructure/db/query";
import { mayOpen } from "../auth/route-permissions";
import { platformScope } from "../../infrastructure/db/scope";
import { PLANNED_PAGES } from "~/lib/planned-pages";
import { formatKes } from "~/lib/invoice";
import { internationalDigits, likePattern, searchWith, type SearchProvider } from "./registry";
import type { CurrentUser } from "../auth/guards";

// The signed-in pages a search can point to, with the words people use for them.
const PAGES: { to: string; title: string; words: string }[] = [
  { to: "/dashboard", title: "Overview", words: "dashboard home stats recent activity" },
  { to: "/get-started", title: "Get Started", words: "tutorial steps guide onboarding" },
  { to: "/whatsapp", title: "WhatsApp Setup", words: "whatsapp connect embedded signup number meta waba disconnect" },
  { to: "/activity", title: "Activity Log", words: "activity log audit history export csv" },
  { to: "/messaging", title: "Message Center", words: "messaging campaigns broadcasts broadcast history send" },
  { to: "/messaging/campaigns/new", title: "New Campaign", words: "create new campaign schedule send bulk audience" },
  { to: "/messaging/broadcasts", title: "Broadcasts", words: "quick broadcasts broadcast history sent messages" },
  {
    to: "/templates",
    title: "Templates",
    words: "templates message template meta approval approved pending rejected marketing utility authentication sync",
  },
  { to: "/templates/new", title: "Create Template", words: "create new template submit meta approval" },
  {
    to: "/messaging/contacts",
    title: "Contacts",
    words: "contacts customers people phone numbers tags segments consent opt-in import export",
  },
  {
    to: "/chat",
    title: "Inbox",
    words: "chat inbox conversations customers reply answer messages unread assign resolve whatsapp",
  },
  {
    to: "/billing",
    title: "Billing & Subscription",
    words: "billing subscription plan wallet balance top up topup m-pesa mpesa card bank payment invoices receipts usage spend alerts",
  },
  { to: "/developers", title: "Developers", words: "api key keys webhook webhooks developer developers integration curl docs" },
  { to: "/profile", title: "Profile", words: "profile account business name email phone" },
  { to: "/change-password", title: "Change Password", words: "password security" },
  {
    to: "/settings/organisation",
    title: "Organisation",
    words: "account settings organisation organization details name kra pin tax postal address county industry time zone invoices",
  },
  {
    to: "/settings/account",
    title: "Close the organisation",
    words: "account settings close delete erase reopen organisation organization",
  },
  { to: "/settings", title: "Account Settings", words: "account settings preferences" },
  { to: "/settings/security", title: "Security", words: "account settings security sessions devices signed in sign out" },
  { to: "/notifications", title: "Notifications", words: "notifications bell alerts unread read" },
  {
    to: "/settings/notifications",
    title: "Notification settings",
    words: "account settings notifications e-mail email alerts rules who gets",
  },
  {
    to: "/settings/team",
    title: "Team",
    words: "account settings team members invite invitation roles owner admin agent viewer broadcast approval maker checker",
  },
  {
    to: "/chat/quick-replies",
    title: "Saved answers",
    words: "chat inbox saved answers quick replies canned responses shortcuts slash reply text",
  },
  {
    to: "/analytics",
    title: "Advanced Analytics",
    words: "analytics reports statistics figures sent delivered read replied rates funnel templates daily hourly csv spend",
  },
  { to: "/admin", title: "Admin Console", words: "admin console platform users organisations" },
  ...Object.entries(PLANNED_PAGES).map(([to, page]) => ({ to, title: `${page.title} (coming soon)`, words: page.summary })),
];

const pages: SearchProvider = {
  id: "pages",
  label: "Pages",
  async search(current, query, limit) {
    const words = query.toLowerCase().split(" ");
    const found = PAGES.filter((page) => {
      if (!mayOpen(current.role, page.to)) return false;
      const text = `${page.title} ${page.words}`.toLowerCase();
      return words.every((word) => text.includes(word));
    });
    // A page named by what was typed ("templates") comes before those that only mention it.
    const named = (page: (typeof PAGES)[number]) => words.every((word) => page.title.toLowerCase().includes(word));
    return [...found.filter(named), ...found.filter((page) => !named(page))]
      .slice(0, limit)
      .map((page) => ({ title: page.title, to: page.to }));
  },
};

const whatsappAccounts: SearchProvider = {
  id: "whatsapp",
  label: "WhatsApp accounts and numbers",
  permission: "whatsapp:view",
  async search(current, query, limit) {
    const pattern = likePattern(query);
    const digits = internationalDigits(query);
    const rows = await queryRows<{
      name: string | null;
      waba_id: string;
      number: string | null;
      verified_name: string | null;
      status: string;
    }>(
      db(),
      sql`
      select a.name, a.waba_id, n.display_phone_number as number, n.verified_name, a.status
      from whatsapp_accounts a
      left join whatsapp_phone_numbers n on n.account_id = a.id and n.organization_id = a.organization_id
      where a.organization_id = ${current.organization.id}
        and (a.name ilike ${pattern} or a.waba_id ilike ${pattern} or n.verified_name ilike ${pattern} or n.display_phone_number ilike ${pattern}
             ${digits.length >= 3 ? sql`or n.phone_digits like ${likePattern(digits)}` : sql``})
      order by a.created_at
      limit ${limit}`,
    );
    return rows.map((row) => ({
      title: row.verified_name ?? row.name ?? `WhatsApp Business Account ${row.waba_id}`,
      detail: [row.number, `WABA ${row.waba_id}`, row.status === "connected" ? "Connected" : "Disconnected"].filter(Boolean).join(" · "),
      to: "/whatsapp",
    }));
  },
};

const activity: SearchProvider = {
  id: "activity",
  label: "Activity",
  permission: "activity:view",
  async search(current, query, limit) {
    const pattern = likePattern(query);
    // The last 90 days, newest first: the organisation's index on (organization_id, created_at) bounds the scan.
    const rows = await queryRows<{ action: string; details: string; created_at: string }>(
      db(),
      sql`
      select action, details, created_at from activity_logs
      where organization_id = ${current.organization.id} and created_at > now() - interval '90 days'
        and (action ilike ${pattern} or details ilike ${pattern})
      order by created_at desc nulls last, id desc nulls last
      limit ${limit}`,
    );
    return rows.map((row) => ({ title: row.action, detail: row.details, to: "/activity" }));
  },
};

/** Invoices and receipts by number or description ("INV-2026", "top-up"), newest first. */
const invoices: SearchProvider = {
  id: "invoices",
  label: "Invoices",
  permission: "billing:view",
  async search(current, query, limit) {
    const pattern = likePattern(query);
    const rows = await queryRows<{ id: string; number: string; description: string; status: string; total_cents: number | string }>(
      db(),
      sql`
      select id, number, description, status, total_cents from invoices
      where organization_id = ${current.organization.id} and (number ilike ${pattern} or description ilike ${pattern})
      order by issued_at desc
      limit ${limit}`,
    );
    return rows.map((row) => ({
      title: row.number,
      detail: `${row.description} · ${formatKes(Number(row.total_cents))} · ${row.status.charAt(0).toUpperCase()}${row.status.slice(1)}`,
      to: `/billing/invoices/${row.id}`,
    }));
  },
};

/** Platform administrators find organisations and their users across every tenant. */
export const platformUsers: SearchProvider = {
  id: "users",
  label: "Users",
  permission: "platform:console",
  async search(current, query, limit) {
    // Across tenants only with the platform scope, which refuses anybody without the console.
    platformScope(current);
    const pattern = likePattern(query);
    const rows = await queryRows<{ first_name: string; last_name: string; email: string; organization: string; status: string }>(
      db(),
      sql`
      select u.first_name, u.last_name, u.email, o.name as organization, o.status
      from users u join organizations o on o.id = u.organization_id
      where u.email ilike ${pattern} or o.name ilike ${pattern} or (u.first_name || ' ' || u.last_name) ilike ${pattern}
      order by o.name, u.email
      limit ${limit}`,
    );
    return rows.map((row) => ({
      title: `${row.first_name} ${row.last_name}`.trim() || row.email,
      detail: `${row.email} · ${row.organization} · ${row.status}`,
      to: "/admin",
    }));
  },
};

/** Every domain's search; a new domain adds its provider here. */
export const SEARCH_PROVIDERS: SearchProvider[] = [pages, whatsappAccounts, activity, invoices, platformUsers];

export function searchEverything(current: CurrentUser, query: string) {
  return searchWith(SEARCH_PROVIDERS, current, query);
}
