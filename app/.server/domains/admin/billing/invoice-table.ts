import { sql, type SQL } from "drizzle-orm";
import { readDb } from "../../../infrastructure/db/client";
import { queryRows } from "../../../infrastructure/db/query";
import type { PlatformScope } from "../../../infrastructure/db/scope";
import { isUuid } from "../../../infrastructure/db/keyset";
import { INVOICE_STATUSES, PLAN_CODES } from "../../../infrastructure/db/schema/billing";
import { AMOUNT_DUE_SQL } from "../../billing";
import { m } from "~/paraglide/messages";

/**
 * The Billing tab's invoice table across tenants (the spec's admin invoice row): search by invoice
 * number, business or e-mail, status and plan filters, sorting, and keyset pages (a page costs the
 * same wherever it is). Fast at 10,000 organisations and a year of invoices: the default order walks
 * invoices_issued_idx, a status filter invoices_status_issued_idx, and a business or e-mail search
 * first finds the organisations, then their invoices by invoices_org_issued_idx.
 */
export const INVOICE_SORTS = ["issued", "amount", "number"] as const;
export type InvoiceSort = (typeof INVOICE_SORTS)[number];
export const INVOICE_PAGE_SIZE = 20;

export interface InvoiceFilters {
  q: string;
  status: (typeof INVOICE_STATUSES)[number] | null;
  plan: (typeof PLAN_CODES)[number] | null;
  sort: InvoiceSort;
  dir: "asc" | "desc";
}

export function parseInvoiceFilters(params: URLSearchParams): InvoiceFilters {
  const status = params.get("status") ?? "";
  const plan = (params.get("plan") ?? "").toLowerCase();
  const sort = params.get("sort") ?? "";
  return {
    q: (params.get("q") ?? "").trim().slice(0, 100),
    status: (INVOICE_STATUSES as readonly string[]).includes(status) ? (status as InvoiceFilters["status"]) : null,
    plan: (PLAN_CODES as readonly string[]).includes(plan) ? (plan as InvoiceFilters["plan"]) : null,
    sort: (INVOICE_SORTS as readonly string[]).includes(sort) ? (sort as InvoiceSort) : "issued",
    dir: params.get("dir") === "asc" ? "asc" : "desc",
  };
}

export interface AdminInvoiceRow {
  id: string;
  invoiceNumber: string;
  organizationId: string;
  businessName: string;
  email: string | null;
  plan: string | null;
  amountCents: number;
  issuedAt: string;
  dueDate: string | null;
  paidDate: string | null;
  status: string;
  kind: string;
  paymentMethod: string | null;
  reconciled: boolean;
  /** Credit notes against it (KES cents): while unpaid they lower what is due. */
  creditedCents: number;
  /** Offered the reconcile form: an unreconciled bank transfer still awaiting its money. */
  reconcilable: boolean;
}

interface StoredRow {
  id: string;
  number: string;
  organization_id: string;
  business: string | null;
  buyer_name: string | null;
  email: string | null;
  plan_type: string | null;
  total_cents: string | number;
  issued_at: string | Date;
  sort_key: string;
  due_at: string | Date | null;
  paid_at: string | Date | null;
  status: string;
  kind: string;
  payment_method: string | null;
  reconciled: boolean;
  credited_cents: string | number;
}

const iso = (v: string | Date | null) => (v === null ? null : new Date(v).toISOString());

/**
 * Offered the reconcile form: unreconciled and awaiting its money, and a transfer can pay it: a bank
 * transfer the tenant started, or a tax invoice (its number is the reference a payer quotes).
 */
export const isReconcilable = (r: { status: string; reconciled: boolean; kind: string; paymentMethod: string | null }) =>
  !r.reconciled &&
  (r.status === "pending" || r.status === "overdue") &&
  (r.kind === "bank_transfer" || r.kind === "subscription" || r.paymentMethod === "bank");

function toRow(r: StoredRow): AdminInvoiceRow {
  const row = {
    id: r.id,
    invoiceNumber: r.number,
    organizationId: r.organization_id,
    businessName: r.business ?? r.buyer_name ?? m.admin_erased_organisation(),
    email: r.email,
    plan: r.plan_type,
    amountCents: Number(r.total_cents),
    issuedAt: iso(r.issued_at)!,
    dueDate: iso(r.due_at),
    paidDate: iso(r.paid_at),
    status: r.status,
    kind: r.kind,
    paymentMethod: r.payment_method,
    reconciled: r.reconciled,
    creditedCents: Number(r.credited_cents),
  };
  return { ...row, reconcilable: isReconcilable(row) };
}

/** The search's condition: an invoice number's prefix, a bank transfer's reference (JMB-BT-…, or the bank's own), an e-mail (its organisation's users), or a business name. */
function searchCondition(q: string): SQL | undefined {
  if (!q) return undefined;
  const escaped = q.replace(/[\\%_]/g, (c) => `\\${c}`);
  if (/^(inv|rct|crn)-/i.test(q)) return sql`i.number like ${`${escaped.toUpperCase()}%`}`;
  // A bank transfer's reference (the one the payer quotes), as the tenant was given it, or the bank's own once reconciled.
  if (/^jmb-/i.test(q))
    return sql`(upper(i.payment_reference) like ${`${escaped.toUpperCase()}%`} or upper(i.bank_reference) like ${`${escaped.toUpperCase()}%`})`;
  if (q.includes("@"))
    return sql`i.organization_id = any(array(select u.organization_id from users u where lower(u.email) like ${`%${escaped.toLowerCase()}%`}))`;
  // A business's name, or a bank's reference from a statement (NCBA-FT-…).
  return sql`(i.organization_id = any(array(select o.id from organizations o where o.name ilike ${`%${escaped}%`}))
              or upper(i.bank_reference) like ${`${escaped.toUpperCase()}%`})`;
}

const SORT_COLUMNS: Record<InvoiceSort, { expr: SQL; cast: SQL }> = {
  issued: { expr: sql`i.issued_at`, cast: sql`timestamptz` },
  amount: { expr: sql`i.total_cents`, cast: sql`bigint` },
  number: { expr: sql`i.number`, cast: sql`text` },
};

const encodeCursor = (value: string, id: string) => Buffer.from(JSON.stringify([value, id])).toString("base64url");

function decodeCursor(cursor: string | null, sort: InvoiceSort): [string, string] | undefined {
  if (!cursor || cursor.length > 300) return undefined;
  try {
    const parsed = JSON.parse(Buffer.from(cursor, "base64url").toString()) as unknown;
    if (!Array.isArray(parsed) || parsed.length !== 2 || typeof parsed[0] !== "string" || typeof parsed[1] !== "string") return undefined;
    const [value, id] = parsed as [string, string];
    if (!isUuid(id)) return undefined;
    if (sort === "issued" && Number.isNaN(Date.parse(value.replace(" ", "T")))) return undefined;
    if (sort === "amount" && !/^-?\d{1,15}$/.test(value)) return undefined;
    return [value, id];
  } catch {
    return undefined;
  }
}

/**
 * One page of the table. `after`: the rows following that cursor in the chosen order; `before`: the
 * rows preceding it (the previous page). Answers the rows and the cursors of the pages either side.
 */
export async function adminInvoicePage(
  _scope: PlatformScope,
  filters: InvoiceFilters,
  cursors: { after?: string | null; before?: string | null } = {},
  limit = INVOICE_PAGE_SIZE,
) {
  const column = SORT_COLUMNS[filters.sort];
  const after = decodeCursor(cursors.after ?? null, filters.sort);
  const before = after ? undefined : decodeCursor(cursors.before ?? null, filters.sort);
  // Going back reads the other way and turns the rows round.
  const backwards = Boolean(before);
  const desc = (filters.dir === "desc") !== backwards;
  const at = after ?? before;
  const conditions: SQL[] = [sql`true`];
  if (filters.status) conditions.push(sql`i.status = ${filters.status}`);
  if (filters.plan) conditions.push(sql`lower(i.plan_type) = ${filters.plan}`);
  const search = searchCondition(filters.q);
  if (search) conditions.push(search);
  if (at)
    conditions.push(
      desc
        ? sql`(${column.expr}, i.id) < (${at[0]}::${column.cast}, ${at[1]}::uuid)`
        : sql`(${column.expr}, i.id) > (${at[0]}::${column.cast}, ${at[1]}::uuid)`,
    );
  const direction = desc ? sql`desc` : sql`asc`;
  const rows = await queryRows<StoredRow>(
    await readDb(),
    sql`
    select i.id, i.number, i.organization_id, o.name as business, i.buyer->>'name' as buyer_name, i.buyer->>'email' as email,
           i.plan_type, i.total_cents, i.issued_at, (${column.expr})::text as sort_key, i.due_at, i.paid_at, i.status, i.kind,
           i.payment_method, i.reconciled, (i.total_cents - ${AMOUNT_DUE_SQL}) as credited_cents
    from invoices i left join organizations o on o.id = i.organization_id
    where ${sql.join(conditions, sql` and `)}
    order by ${column.expr} ${direction}, i.id ${direction}
    limit ${limit + 1}`,
  );
  const more = rows.length > limit;
  const page = rows.slice(0, limit);
  if (backwards) page.reverse();
  const first = page[0];
  const last = page.at(-1);
  return {
    rows: page.map(toRow),
    // Forwards: older exists if there were more; newer exists if we came from a cursor. Backwards: the mirror.
    next: last && (backwards ? true : more) ? encodeCursor(last.sort_key, last.id) : null,
    previous: first && (backwards ? more : Boolean(at)) ? encodeCursor(first.sort_key, first.id) : null,
  };
}
