import { sql } from "drizzle-orm";
import { db } from "../../../infrastructure/db/client";
import { queryRows } from "../../../infrastructure/db/query";
import { platformScope } from "../../../infrastructure/db/scope";
import { internationalDigits, likePattern, type SearchHit, type SearchProvider } from "../../search";
import { formatKes } from "~/lib/invoice";
import { templateStatusLabel } from "~/lib/templates";
import { userStatusWords } from "~/lib/admin-users";
import { m } from "~/paraglide/messages";

/**
 * The admin console's search (/admin/search): what a platform administrator can find across every
 * tenant, each kind linking to its console page. Every statement matches "any part of" with ILIKE
 * on one expression that a pg_trgm GIN index covers (migration 0032), on PGlite as on PostgreSQL;
 * the closest matches (the whole text, then its start) come first.
 */

/** How a query reads as a phone number: Kenyans type 07..., 01..., +254 7...; stored digits are international. */
export function phoneDigits(query: string): string | null {
  if (!/^[\d\s+()-]+$/.test(query) || query.replace(/\D/g, "").length < 3) return null;
  return internationalDigits(query);
}

/** The text a statement looks for: the number's digits when it reads as a phone number, else the query. */
function needle(query: string) {
  return phoneDigits(query) ?? query;
}

/** Exact match first, then the start, then anything else; `expr` is the indexed expression. */
function closeness(expr: ReturnType<typeof sql>, query: string) {
  return sql`case when lower(${expr}) = lower(${query}) then 0 when ${expr} ilike ${`${likePattern(query).slice(1)}`} then 1 else 2 end`;
}

const ORGANIZATION_TEXT = sql`(o.name || ' ' || o.business_id)`;
const USER_TEXT = sql`(u.first_name || ' ' || u.last_name || ' ' || u.email || ' ' || coalesce(u.phone_number, ''))`;
const NUMBER_TEXT = sql`(n.display_phone_number || ' ' || n.phone_digits || ' ' || n.phone_number_id)`;

// Each provider's heading is a getter: read in the request's language when the results are shown.
export const adminOrganizations: SearchProvider = {
  id: "organizations",
  get label() {
    return m.admin_overview_organisations();
  },
  permission: "platform:console",
  async search(current, query, limit) {
    platformScope(current);
    const rows = await queryRows<{ id: string; name: string; business_id: string; status: string; plan_type: string }>(
      db(),
      sql`
      select o.id, o.name, o.business_id, o.status, o.plan_type from organizations o
      where ${ORGANIZATION_TEXT} ilike ${likePattern(query)}
      order by ${closeness(sql`o.name`, query)}, o.name, o.id
      limit ${limit}`,
    );
    return rows.map((row) => ({
      title: row.name,
      detail: `${row.business_id} · ${row.plan_type} · ${userStatusWords(row.status)}`,
      to: `/admin/users/${row.id}`,
    }));
  },
};

export const adminUsers: SearchProvider = {
  id: "users",
  get label() {
    return m.admin_tab_users();
  },
  permission: "platform:console",
  async search(current, query, limit) {
    platformScope(current);
    const text = needle(query);
    const rows = await queryRows<{
      organization_id: string;
      first_name: string;
      last_name: string;
      email: string;
      phone_number: string | null;
      organization: string;
    }>(
      db(),
      sql`
      select u.organization_id, u.first_name, u.last_name, u.email, u.phone_number, o.name as organization
      from users u join organizations o on o.id = u.organization_id
      where ${USER_TEXT} ilike ${likePattern(text)}
      order by ${closeness(sql`u.email`, text)}, u.first_name, u.last_name, u.email
      limit ${limit}`,
    );
    return rows.map((row) => ({
      title: `${row.first_name} ${row.last_name}`.trim() || row.email,
      detail: [row.email, row.phone_number, row.organization].filter(Boolean).join(" · "),
      to: `/admin/users/${row.organization_id}`,
    }));
  },
};

/** An invoice's status in words, in the request's language. */
function invoiceStatusWords(status: string) {
  switch (status) {
    case "paid":
      return m.admin_invoice_status_paid();
    case "pending":
      return m.admin_status_pending();
    case "overdue":
      return m.admin_invoice_status_overdue();
    case "disputed":
      return m.admin_invoice_status_disputed();
    case "void":
      return m.admin_invoice_status_void();
    default:
      return status;
  }
}

export const adminInvoices: SearchProvider = {
  id: "invoices",
  get label() {
    return m.admin_invoices();
  },
  permission: "platform:money",
  async search(current, query, limit) {
    platformScope(current);
    // By its number, or by the reference a transfer quoted (JMB-BT-…) or the bank's own: a prefix of either.
    const prefix = likePattern(query).slice(1).toUpperCase();
    const rows = await queryRows<{
      id: string;
      number: string;
      status: string;
      total_cents: number | string;
      organization: string;
      reference: string | null;
    }>(
      db(),
      sql`
      select i.id, i.number, i.status, i.total_cents, o.name as organization,
             case when upper(i.payment_reference) like ${prefix} then i.payment_reference
                  when upper(i.bank_reference) like ${prefix} then i.bank_reference end as reference
      from invoices i join organizations o on o.id = i.organization_id
      where i.number ilike ${likePattern(query)} or upper(i.payment_reference) like ${prefix} or upper(i.bank_reference) like ${prefix}
      order by ${closeness(sql`i.number`, query)}, i.issued_at desc, i.id
      limit ${limit}`,
    );
    return rows.map((row) => ({
      title: row.reference && row.reference !== row.number ? `${row.number} · ${row.reference}` : row.number,
      detail: `${row.organization} · ${formatKes(Number(row.total_cents))} · ${invoiceStatusWords(row.status)}`,
      to: `/admin/billing/invoices/${row.id}`,
    }));
  },
};

export const adminWhatsapp: SearchProvider = {
  id: "whatsapp",
  get label() {
    return m.admin_search_whatsapp_numbers();
  },
  permission: "platform:console",
  async search(current, query, limit) {
    platformScope(current);
    const text = needle(query);
    // Numbers by any part of the number or its phone number id; accounts by their WABA id (with or without numbers).
    const rows = await queryRows<{
      account_id: string;
      waba_id: string;
      number: string | null;
      phone_number_id: string | null;
      verified_name: string | null;
      account_name: string | null;
      organization: string;
      status: string;
    }>(
      db(),
      sql`
      select * from (
        (select a.id as account_id, a.waba_id, n.display_phone_number as number, n.phone_number_id, n.verified_name,
                a.name as account_name, o.name as organization, a.status, ${closeness(NUMBER_TEXT, text)} as rank
         from whatsapp_phone_numbers n
         join whatsapp_accounts a on a.id = n.account_id
         join organizations o on o.id = n.organization_id
         where ${NUMBER_TEXT} ilike ${likePattern(text)}
         order by rank, n.display_phone_number, n.id
         limit ${limit})
        union all
        (select a.id, a.waba_id, null, null, null, a.name, o.name, a.status, ${closeness(sql`a.waba_id`, query)} as rank
         from whatsapp_accounts a join organizations o on o.id = a.organization_id
         where a.waba_id ilike ${likePattern(query)}
         order by rank, a.waba_id, a.id
         limit ${limit})
      ) found
      order by rank, number nulls last, waba_id
      limit ${limit}`,
    );
    return rows.map((row) => ({
      title: row.number ?? row.account_name ?? `WhatsApp Business Account ${row.waba_id}`,
      detail: [
        row.verified_name,
        row.organization,
        row.phone_number_id && m.admin_search_phone_number_id({ id: row.phone_number_id }),
        `WABA ${row.waba_id}`,
        row.status === "connected" ? m.admin_whatsapp_status_connected() : m.admin_whatsapp_status_disconnected(),
      ]
        .filter(Boolean)
        .join(" · "),
      to: `/admin/whatsapp/${row.account_id}`,
    }));
  },
};

export const adminTemplates: SearchProvider = {
  id: "templates",
  get label() {
    return m.admin_tab_templates();
  },
  permission: "platform:console",
  async search(current, query, limit) {
    platformScope(current);
    const rows = await queryRows<{ id: string; name: string; language: string; status: string; organization: string }>(
      db(),
      sql`
      select t.id, t.name, t.language, t.status, o.name as organization
      from message_templates t join organizations o on o.id = t.organization_id
      where t.name ilike ${likePattern(query)} and t.deleting_at is null
      order by ${closeness(sql`t.name`, query)}, t.name, t.language, t.id
      limit ${limit}`,
    );
    return rows.map((row) => ({
      title: row.name,
      detail: `${row.organization} · ${row.language} · ${templateStatusLabel(row.status)}`,
      to: `/admin/templates/${row.id}`,
    }));
  },
};

/** The console search's groups, in the order the page shows them. */
export const ADMIN_SEARCH_PROVIDERS: SearchProvider[] = [adminOrganizations, adminUsers, adminInvoices, adminWhatsapp, adminTemplates];

export type { SearchHit };
