import { sql } from "drizzle-orm";
import { db } from "../../infrastructure/db/client";
import { queryRows } from "../../infrastructure/db/query";
import { mayOpen, type CurrentUser } from "../auth";
import { platformScope } from "../../infrastructure/db/scope";
import { formatKes } from "~/lib/invoice";
import { SEARCH_LIMITS, internationalDigits, likePattern, searchWith, type SearchProvider } from "./registry";
import { actionInWords, detailsInWords } from "../activity";
import { m } from "~/paraglide/messages";
import { locales, type Locale } from "~/paraglide/runtime";

// The signed-in pages a search can point to, with the words people use for them (English, kept
// whatever the language). Each page is also found by its title in every language (issue 74): a
// Swahili speaker using the English pages types "Violezo", a French one "Modèles".
const PAGES: { to: string; title: (inputs?: Record<string, never>, options?: { locale?: Locale }) => string; words: string }[] = [
  { to: "/dashboard", title: m.app_nav_overview, words: "Overview dashboard home stats recent activity" },
  { to: "/get-started", title: m.app_nav_get_started, words: "Get Started tutorial steps guide onboarding" },
  {
    to: "/whatsapp",
    title: m.app_nav_whatsapp_setup,
    words: "WhatsApp Setup whatsapp connect embedded signup number meta waba disconnect",
  },
  { to: "/activity", title: m.app_activity_title, words: "Activity Log activity log audit history export csv" },
  {
    to: "/messaging",
    title: m.app_search_page_message_center,
    words: "Message Center messaging campaigns broadcasts broadcast history send",
  },
  {
    to: "/messaging/campaigns/new",
    title: m.app_search_page_new_campaign,
    words: "New Campaign create new campaign schedule send bulk audience",
  },
  {
    to: "/messaging/broadcasts",
    title: m.app_search_page_broadcasts,
    words: "Broadcasts quick broadcasts broadcast history sent messages",
  },
  {
    to: "/templates",
    title: m.app_nav_templates,
    words: "Templates templates message template meta approval approved pending rejected marketing utility authentication sync",
  },
  { to: "/templates/new", title: m.app_dashboard_create_template, words: "Create Template create new template submit meta approval" },
  {
    to: "/messaging/contacts",
    title: m.app_nav_contacts,
    words: "Contacts contacts customers people phone numbers tags segments consent opt-in import export",
  },
  {
    to: "/chat",
    title: m.app_nav_inbox,
    words: "Inbox chat inbox conversations customers reply answer messages unread assign resolve whatsapp",
  },
  {
    to: "/billing",
    title: m.app_search_page_billing,
    words:
      "Billing & Subscription billing subscription plan wallet balance top up topup m-pesa mpesa card bank payment invoices receipts usage spend alerts",
  },
  {
    to: "/developers",
    title: m.app_nav_developers,
    words: "Developers api key keys webhook webhooks developer developers integration curl docs",
  },
  { to: "/profile", title: m.app_search_page_profile, words: "Profile profile account business name email phone" },
  { to: "/change-password", title: m.app_shell_change_password, words: "Change Password password security" },
  {
    to: "/settings/organisation",
    title: m.app_search_page_organisation,
    words:
      "Organisation account settings organisation organization details name kra pin tax postal address county industry time zone invoices",
  },
  {
    to: "/settings/account",
    title: m.app_search_page_close_organisation,
    words: "Close the organisation account settings close delete erase reopen organisation organization",
  },
  { to: "/settings", title: m.app_shell_account_settings, words: "Account Settings account settings preferences" },
  {
    to: "/settings/security",
    title: m.app_search_page_security,
    words: "Security account settings security sessions devices signed in sign out",
  },
  { to: "/notifications", title: m.app_nav_notifications, words: "Notifications notifications bell alerts unread read" },
  {
    to: "/settings/notifications",
    title: m.app_search_page_notification_settings,
    words: "Notification settings account settings notifications e-mail email alerts rules who gets",
  },
  {
    to: "/settings/team",
    title: m.app_search_page_team,
    words: "Team account settings team members invite invitation roles owner admin agent viewer broadcast approval maker checker",
  },
  {
    to: "/settings/payments",
    title: m.settings_section_payments,
    words:
      "Payments account settings m-pesa mpesa paybill till buy goods shortcode daraja consumer key secret passkey test connection collect money",
  },
  {
    to: "/shop/products",
    title: m.app_nav_shop,
    words: "Shop products catalogue catalog items prices sku stock meta commerce sell csv import sync",
  },
  {
    to: "/shop/orders",
    title: m.shop_orders_title,
    words: "Orders shop carts cart order items paid awaiting payment csv export sales",
  },
  {
    to: "/chat/quick-replies",
    title: m.app_search_page_saved_answers,
    words: "Saved answers chat inbox saved answers quick replies canned responses shortcuts slash reply text",
  },
  {
    to: "/automations",
    title: m.automations_title,
    words: "Automations auto reply replies keyword rules keywords chatbot bot automatic answers inbox whatsapp",
  },
  {
    to: "/automations/hours",
    title: m.automations_hours_title,
    words: "Welcome and away messages automations welcome greeting away out of office business hours opening hours holidays closed",
  },
  {
    to: "/automations/flows",
    title: m.automations_flows_title,
    words: "Chatbot flows automations bot flow builder questions menu buttons list branch steps order status delivery hand over",
  },
  {
    to: "/analytics",
    title: m.app_analytics_title,
    words:
      "Advanced Analytics analytics reports statistics figures sent delivered read replied rates funnel templates daily hourly csv spend",
  },
  {
    to: "/integrations",
    title: m.integrations_title,
    words:
      "Integrations integrations connect apps HubSpot Shopify Google Sheets Zapier Make REST hooks CRM e-commerce Salesforce Zoho WooCommerce Mailchimp Zendesk Freshdesk",
  },
  { to: "/admin", title: m.app_search_page_admin_console, words: "Admin Console admin console platform users organisations" },
  {
    to: "/revenue-share",
    title: m.revenue_title,
    words: "Revenue Share partners partner programme referral commission settlements payouts transactions agencies resellers",
  },
];

/** Lower case without accents, so "modeles" finds "Modèles" and "equipe" "Équipe". */
function folded(text: string) {
  return text.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase();
}

// Every page's titles in every language, folded: they never change while the server runs.
let pageNames: Map<string, string> | null = null;
function namesOf(page: (typeof PAGES)[number]) {
  pageNames ??= new Map(PAGES.map((p) => [p.to, folded(locales.map((locale) => p.title({}, { locale })).join(" \u0000 "))]));
  return pageNames.get(page.to)!;
}

const pages: SearchProvider = {
  id: "pages",
  get label() {
    return m.app_search_section_pages();
  },
  async search(current, query, limit) {
    const words = folded(query).split(" ");
    // Each page by its title in any language, and by the English words people use for it; shown by its title in the request's language.
    const allowed = PAGES.filter((page) => mayOpen(current.role, page.to));
    const found = allowed.filter((page) => {
      const text = `${namesOf(page)} ${folded(page.words)}`;
      return words.every((word) => text.includes(word));
    });
    // A page named by what was typed ("templates", "violezo") comes before those that only mention it.
    const named = (page: (typeof PAGES)[number]) => words.every((word) => namesOf(page).includes(word));
    return [...found.filter(named), ...found.filter((page) => !named(page))]
      .slice(0, limit)
      .map((page) => ({ title: page.title(), to: page.to }));
  },
};

const whatsappAccounts: SearchProvider = {
  id: "whatsapp",
  get label() {
    return m.app_search_section_whatsapp();
  },
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
      title: row.verified_name ?? row.name ?? m.app_search_whatsapp_account({ id: row.waba_id }),
      detail: [row.number, `WABA ${row.waba_id}`, row.status === "connected" ? m.app_status_connected() : m.app_status_disconnected()]
        .filter(Boolean)
        .join(" · "),
      to: "/whatsapp",
    }));
  },
};

const activity: SearchProvider = {
  id: "activity",
  get label() {
    return m.app_nav_activity();
  },
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
    // Found by the stored English, shown in the reader's language.
    return rows.map((row) => ({ title: actionInWords(row.action), detail: row.details && detailsInWords(row.details), to: "/activity" }));
  },
};

/** Invoices and receipts by number or description ("INV-2026", "top-up"), newest first. */
const invoices: SearchProvider = {
  id: "invoices",
  get label() {
    return m.app_search_section_invoices();
  },
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
      detail: `${row.description} · ${formatKes(Number(row.total_cents))} · ${invoiceStatusWord(row.status)}`,
      to: `/billing/invoices/${row.id}`,
    }));
  },
};

/** Platform administrators find organisations and their users across every tenant. */
export const platformUsers: SearchProvider = {
  id: "users",
  get label() {
    return m.app_search_section_users();
  },
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
      detail: `${row.email} · ${row.organization} · ${organisationStatusWord(row.status)}`,
      to: "/admin",
    }));
  },
};

/** An invoice's status as the search shows it ("Paid"); one it does not know, as stored. */
function invoiceStatusWord(status: string) {
  switch (status) {
    case "paid":
      return m.app_search_invoice_paid();
    case "pending":
      return m.app_search_invoice_pending();
    case "overdue":
      return m.app_search_invoice_overdue();
    case "disputed":
      return m.app_search_invoice_disputed();
    case "void":
      return m.app_search_invoice_void();
    default:
      return `${status.charAt(0).toUpperCase()}${status.slice(1)}`;
  }
}

/** An organisation's status in the users' search ("active"); one it does not know, as stored. */
function organisationStatusWord(status: string) {
  if (status === "active") return m.app_search_org_active();
  if (status === "suspended") return m.app_search_org_suspended();
  if (status === "pending") return m.app_search_org_pending();
  return status;
}

/** Every domain's search; a new domain adds its provider here. */
export const SEARCH_PROVIDERS: SearchProvider[] = [pages, whatsappAccounts, activity, invoices, platformUsers];

export function searchEverything(current: CurrentUser, query: string) {
  return searchWith(SEARCH_PROVIDERS, current, query);
}

/**
 * What a search box lists as one types: a few hits a section, at most `SEARCH_LIMITS.suggestions` in
 * all, pages first, each with its section's name (a small answer for slow networks).
 */
export async function suggestionsFor(current: CurrentUser, query: string) {
  const sections = await searchWith(SEARCH_PROVIDERS, current, query, SEARCH_LIMITS.suggested);
  return sections
    .flatMap((section) =>
      section.hits.map((hit) => ({ title: hit.title, ...(hit.detail ? { detail: hit.detail } : {}), section: section.label, to: hit.to })),
    )
    .slice(0, SEARCH_LIMITS.suggestions);
}
