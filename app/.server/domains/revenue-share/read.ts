import { sql, type SQL } from "drizzle-orm";
import { db } from "../../infrastructure/db/client";
import { queryRow, queryRows } from "../../infrastructure/db/query";
import { isUuid } from "../../infrastructure/db/keyset";
import type { PlatformScope } from "../../infrastructure/db/scope";
import {
  PARTNER_CATEGORIES,
  PARTNER_STATUSES,
  PARTNER_TRANSACTION_KINDS,
  SETTLEMENT_STATUSES,
  type PartnerStatus,
} from "../../infrastructure/db/schema/revenue-share";
import { nextSettlementDay } from "./schedule";
import { ownReferralsUnderReview } from "./self-referral";

/**
 * What the programme's pages read (issue 46, decision 088): the administrator's whole programme
 * (figures, partners, transactions, settlements) behind a PlatformScope, and a partner
 * organisation's own figures by its organisation id (never another's). Months are Nairobi's.
 */

const NAIROBI = "Africa/Nairobi";
/** The first instant of the Nairobi month `offset` months from now's. */
const monthStart = (offset: number) =>
  sql`((date_trunc('month', now() at time zone ${NAIROBI}) + make_interval(months => ${offset})) at time zone ${NAIROBI})`;

export interface MoneySplit {
  revenueCents: number;
  partnerCents: number;
  platformCents: number;
  transactions: number;
}

const split = (r: { revenue: string | null; partner: string | null; platform: string | null; n: number | string | null }): MoneySplit => ({
  revenueCents: Number(r.revenue ?? 0),
  partnerCents: Number(r.partner ?? 0),
  platformCents: Number(r.platform ?? 0),
  transactions: Number(r.n ?? 0),
});

/** The Overview tab: this month's and last month's figures, partners by status, the next settlement, the top partners. */
export async function programmeOverview(_scope: PlatformScope) {
  const [months, statuses, top, pendingSettlements, nextSettlement] = await Promise.all([
    queryRows<{ month: string; revenue: string; partner: string; platform: string; n: number }>(
      db(),
      sql`select case when occurred_at >= ${monthStart(0)} then 'this' else 'last' end as month,
                 sum(amount_cents)::text as revenue, sum(partner_cents)::text as partner, sum(platform_cents)::text as platform,
                 count(*)::int as n
          from partner_transactions where occurred_at >= ${monthStart(-1)} and occurred_at < ${monthStart(1)}
          group by 1`,
    ),
    queryRows<{ status: PartnerStatus; n: number }>(db(), sql`select status, count(*)::int as n from partners group by status`),
    queryRows<{ id: string; name: string; category: string; revenue: string; partner: string; platform: string; n: number }>(
      db(),
      sql`select p.id, p.name, p.category, sum(t.amount_cents)::text as revenue, sum(t.partner_cents)::text as partner,
                 sum(t.platform_cents)::text as platform, count(*)::int as n
          from partner_transactions t join partners p on p.id = t.partner_id
          where t.occurred_at >= ${monthStart(-1)} and t.occurred_at < ${monthStart(1)}
          group by p.id order by sum(t.partner_cents) desc, p.name limit 5`,
    ),
    queryRow<{ n: number; net: string | null }>(
      db(),
      sql`select count(*)::int as n, sum(payable_cents)::text as net from partner_settlements where status in ('pending', 'failed')`,
    ),
    nextSettlementDay(),
  ]);
  const empty = { revenue: null, partner: null, platform: null, n: 0 };
  return {
    thisMonth: split(months.find((r) => r.month === "this") ?? empty),
    lastMonth: split(months.find((r) => r.month === "last") ?? empty),
    statuses: Object.fromEntries(PARTNER_STATUSES.map((s) => [s, statuses.find((r) => r.status === s)?.n ?? 0])) as Record<
      PartnerStatus,
      number
    >,
    nextSettlement,
    toPay: { settlements: pendingSettlements?.n ?? 0, netCents: Number(pendingSettlements?.net ?? 0) },
    top: top.map((r) => ({ id: r.id, name: r.name, category: r.category, ...split(r) })),
  };
}

export const PARTNERS_PAGE_SIZE = 20;

export interface PartnerFilters {
  q: string;
  status: PartnerStatus | null;
  category: string | null;
  page: number;
}

export function parsePartnerFilters(params: URLSearchParams): PartnerFilters {
  const status = params.get("status");
  const category = params.get("category");
  const page = Number(params.get("page"));
  return {
    q: (params.get("q") ?? "").trim().slice(0, 100),
    status: PARTNER_STATUSES.find((s) => s === status) ?? null,
    category: PARTNER_CATEGORIES.find((c) => c === category) ?? null,
    page: Number.isInteger(page) && page > 0 && page < 10_000 ? page : 1,
  };
}

export interface PartnerListRow extends MoneySplit {
  id: string;
  name: string;
  code: string;
  category: string;
  status: PartnerStatus;
  shareBps: number;
  clients: number;
  lastSettlement: string | null;
  integrationDate: string;
}

interface PartnerListSql {
  id: string;
  name: string;
  code: string;
  category: string;
  status: PartnerStatus;
  share_bps: number;
  revenue: string | null;
  partner: string | null;
  platform: string | null;
  n: number;
  clients: number;
  last_settlement: string | null;
  integration_date: string | Date;
  total: number;
}

const PARTNER_FIGURES = sql`
  coalesce(t.revenue, '0') as revenue, coalesce(t.partner, '0') as partner, coalesce(t.platform, '0') as platform, coalesce(t.n, 0) as n,
  (select count(*)::int from partner_attributions a where a.partner_id = p.id and a.ended_at is null) as clients,
  (select max(s.period)::text from partner_settlements s where s.partner_id = p.id) as last_settlement,
  coalesce(p.approved_at, p.created_at) as integration_date`;
const PARTNER_TOTALS = sql`
  left join lateral (select sum(amount_cents)::text as revenue, sum(partner_cents)::text as partner, sum(platform_cents)::text as platform,
                            count(*)::int as n from partner_transactions where partner_id = p.id) t on true`;

const listRow = (r: PartnerListSql): PartnerListRow => ({
  id: r.id,
  name: r.name,
  code: r.code,
  category: r.category,
  status: r.status,
  shareBps: r.share_bps,
  ...split(r),
  clients: r.clients,
  lastSettlement: r.last_settlement,
  integrationDate: new Date(r.integration_date).toISOString(),
});

/** The Partners tab: searched by name or code, filtered by status and category, a page of 20 by name. */
export async function partnerPage(_scope: PlatformScope, filters: PartnerFilters) {
  const where: SQL[] = [sql`true`];
  if (filters.q) where.push(sql`(p.name ilike ${`%${filters.q.replace(/[\\%_]/g, "\\$&")}%`} or p.code = upper(${filters.q}))`);
  if (filters.status) where.push(sql`p.status = ${filters.status}`);
  if (filters.category) where.push(sql`p.category = ${filters.category}`);
  const rows = await queryRows<PartnerListSql>(
    db(),
    sql`select p.id, p.name, p.code, p.category, p.status, p.share_bps, ${PARTNER_FIGURES}, count(*) over ()::int as total
        from partners p ${PARTNER_TOTALS}
        where ${sql.join(where, sql` and `)}
        order by p.status = 'pending' desc, lower(p.name), p.id
        limit ${PARTNERS_PAGE_SIZE} offset ${(filters.page - 1) * PARTNERS_PAGE_SIZE}`,
  );
  const total = rows[0]?.total ?? 0;
  return { rows: rows.map(listRow), page: filters.page, pages: Math.max(1, Math.ceil(total / PARTNERS_PAGE_SIZE)), total };
}

/** Every partner's id and name, for the filters and forms (by name). */
export async function partnerChoices(_scope: PlatformScope) {
  return queryRows<{ id: string; name: string }>(db(), sql`select id, name from partners order by lower(name), id limit 1000`);
}

export interface BankDetails {
  bank: string;
  branch: string;
  accountName: string;
  accountNumber: string;
}

/** One partner in full: its figures, payout details, clients, share history and recent settlements; null when there is none. */
export async function partnerDetail(_scope: PlatformScope, partnerId: string) {
  if (!isUuid(partnerId)) return null;
  const row = await queryRow<
    PartnerListSql & {
      organization_id: string;
      organization_name: string;
      payout_method: "mpesa" | "bank";
      mpesa_phone: string | null;
      bank_details: BankDetails | string | null;
      kra_pin: string;
      resident: boolean;
    }
  >(
    db(),
    sql`select p.id, p.name, p.code, p.category, p.status, p.share_bps, p.organization_id, o.name as organization_name, p.payout_method,
               p.mpesa_phone, p.bank_details, p.kra_pin, p.resident, ${PARTNER_FIGURES}, 1 as total
        from partners p left join organizations o on o.id = p.organization_id ${PARTNER_TOTALS}
        where p.id = ${partnerId}`,
  );
  if (!row) return null;
  const [clients, shares, settlements, nextSettlement] = await Promise.all([
    clientsOf(partnerId),
    queryRows<{ share_bps: number; reason: string; effective_from: string | Date }>(
      db(),
      sql`select share_bps, reason, effective_from from partner_share_changes where partner_id = ${partnerId}
          order by effective_from desc, id desc limit 20`,
    ),
    settlementsOf(sql`s.partner_id = ${partnerId}`, 12),
    nextSettlementDay(),
  ]);
  const bank = typeof row.bank_details === "string" ? (JSON.parse(row.bank_details) as BankDetails) : row.bank_details;
  return {
    ...listRow(row),
    organizationId: row.organization_id,
    organizationName: row.organization_name,
    payoutMethod: row.payout_method,
    mpesaPhone: row.mpesa_phone,
    bankDetails: bank,
    kraPin: row.kra_pin,
    resident: row.resident,
    nextSettlement: row.status === "suspended" ? null : nextSettlement,
    clients,
    shares: shares.map((s) => ({ shareBps: s.share_bps, reason: s.reason, from: new Date(s.effective_from).toISOString() })),
    settlements: [...settlements],
  };
}

/** A partner's clients now: name, since when, what they paid this month (net of VAT). */
async function clientsOf(partnerId: string) {
  const rows = await queryRows<{ id: string; name: string; started_at: string | Date; source: string; paid: string | null }>(
    db(),
    sql`select o.id, o.name, a.started_at, a.source,
               (select sum(t.amount_cents)::text from partner_transactions t
                where t.partner_id = a.partner_id and t.client_organization_id = a.organization_id and t.occurred_at >= ${monthStart(0)}) as paid
        from partner_attributions a join organizations o on o.id = a.organization_id
        where a.partner_id = ${partnerId} and a.ended_at is null
        order by a.started_at desc limit 500`,
  );
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    joined: new Date(r.started_at).toISOString(),
    source: r.source as "referral" | "admin",
    paidThisMonthCents: Number(r.paid ?? 0),
  }));
}

export type Kind = (typeof PARTNER_TRANSACTION_KINDS)[number];

export interface TransactionFilters {
  partnerId: string | null;
  /** YYYY-MM (Nairobi). */
  month: string | null;
  kind: Kind | null;
}

export function parseTransactionFilters(params: URLSearchParams): TransactionFilters {
  const partner = params.get("partner") ?? "";
  const month = params.get("month") ?? "";
  const kind = params.get("kind");
  return {
    partnerId: isUuid(partner) ? partner : null,
    month: /^\d{4}-(0[1-9]|1[0-2])$/.test(month) ? month : null,
    kind: PARTNER_TRANSACTION_KINDS.find((k) => k === kind) ?? null,
  };
}

export const TRANSACTIONS_PAGE_SIZE = 50;

export interface TransactionRow {
  id: number;
  partnerId: string;
  partnerName: string;
  clientName: string;
  kind: Kind;
  amountCents: number;
  shareBps: number;
  partnerCents: number;
  platformCents: number;
  occurredAt: string;
  settled: boolean;
  /** The number of the invoice or receipt paid (INV-…, RCT-…) or of the credit note (CN-…) the row reverses by. */
  documentNumber: string;
}

/** A page cursor: the row's moment and id, so a page starts exactly after (or before) it. */
const encodeCursor = (at: string, id: number) => Buffer.from(`${at}|${id}`).toString("base64url");
function decodeCursor(cursor: string | null | undefined) {
  if (!cursor || cursor.length > 120) return null;
  const [at, id, extra] = Buffer.from(cursor, "base64url").toString().split("|");
  if (extra !== undefined || !at || !id || !/^[1-9]\d{0,15}$/.test(id) || Number.isNaN(Date.parse(at)) || !/^\d{4}-\d\d-\d\dT/.test(at))
    return null;
  return { at, id: Number(id) };
}

function transactionWhere(filters: TransactionFilters & { organizationPartnerId?: string }) {
  const where: SQL[] = [sql`true`];
  const partner = filters.organizationPartnerId ?? filters.partnerId;
  if (partner) where.push(sql`t.partner_id = ${partner}`);
  if (filters.kind) where.push(sql`t.kind = ${filters.kind}`);
  if (filters.month) {
    const first = `${filters.month}-01`;
    where.push(sql`t.occurred_at >= (${first}::timestamp at time zone ${NAIROBI})
                   and t.occurred_at < ((${first}::timestamp + interval '1 month') at time zone ${NAIROBI})`);
  }
  return sql.join(where, sql` and `);
}

interface TransactionSql {
  id: number | string;
  partner_id: string;
  partner_name: string;
  client_name: string | null;
  kind: Kind;
  amount_cents: string;
  share_bps: number;
  partner_cents: string;
  platform_cents: string;
  occurred_at: string | Date;
  settlement_id: string | null;
  document_number: string | null;
}

const TRANSACTION_COLUMNS = sql`
  t.id, t.partner_id, p.name as partner_name, o.name as client_name, t.kind, t.amount_cents::text, t.share_bps, t.partner_cents::text,
  t.platform_cents::text, t.occurred_at, t.settlement_id, i.number as document_number
  from partner_transactions t join partners p on p.id = t.partner_id left join organizations o on o.id = t.client_organization_id
  left join invoices i on i.id = t.invoice_id`;

const transactionRow = (r: TransactionSql): TransactionRow => ({
  id: Number(r.id),
  partnerId: r.partner_id,
  partnerName: r.partner_name,
  clientName: r.client_name ?? "—",
  kind: r.kind,
  amountCents: Number(r.amount_cents),
  shareBps: r.share_bps,
  partnerCents: Number(r.partner_cents),
  platformCents: Number(r.platform_cents),
  occurredAt: new Date(r.occurred_at).toISOString(),
  settled: r.settlement_id !== null,
  documentNumber: r.document_number ?? "—",
});

/**
 * The statement of a page of transactions (what transactionPage runs; bench/revenue-share-transactions-page.mjs
 * EXPLAINs it): newest first by keyset (occurred_at, id), `limit + 1` rows to know whether more follow.
 */
export function transactionPageQuery(
  filters: TransactionFilters & { organizationPartnerId?: string },
  cursor: { after?: string | null; before?: string | null },
  limit = TRANSACTIONS_PAGE_SIZE,
) {
  const after = decodeCursor(cursor.after);
  const before = after ? null : decodeCursor(cursor.before);
  const where = transactionWhere(filters);
  const position = after
    ? sql`and (t.occurred_at, t.id) < (${after.at}::timestamptz, ${after.id})`
    : before
      ? sql`and (t.occurred_at, t.id) > (${before.at}::timestamptz, ${before.id})`
      : sql``;
  const order = before ? sql`order by t.occurred_at asc, t.id asc` : sql`order by t.occurred_at desc, t.id desc`;
  return { after, before, query: sql`select ${TRANSACTION_COLUMNS} where ${where} ${position} ${order} limit ${limit + 1}` };
}

/**
 * A page of transactions, newest first, by keyset (occurred_at, id): `after` the last row of a page
 * for older ones, `before` the first for newer ones. A partner's own page passes its partner id.
 */
export async function transactionPage(
  filters: TransactionFilters & { organizationPartnerId?: string },
  cursor: { after?: string | null; before?: string | null },
  limit = TRANSACTIONS_PAGE_SIZE,
) {
  const { after, before, query } = transactionPageQuery(filters, cursor, limit);
  const fetched = await queryRows<TransactionSql>(db(), query);
  const more = fetched.length > limit;
  const page = fetched.slice(0, limit).map(transactionRow);
  if (before) page.reverse();
  const first = page[0];
  const last = page.at(-1);
  return {
    rows: page,
    newer: first && (after || (before && more)) ? encodeCursor(first.occurredAt, first.id) : null,
    older: last && (before || more) ? encodeCursor(last.occurredAt, last.id) : null,
  };
}

export type SettlementStatus = (typeof SETTLEMENT_STATUSES)[number];

export interface SettlementRow {
  id: string;
  partnerId: string;
  partnerName: string;
  period: string;
  transactions: number;
  revenueCents: number;
  partnerCents: number;
  withholdingBps: number;
  withholdingCents: number;
  netCents: number;
  /** Cents carried in from the partner's earlier settlements and out to its next (M-Pesa pays whole shillings). */
  carriedInCents: number;
  carriedOutCents: number;
  /** What is paid: net + carried in - carried out, the amount the statement shows and the payout sends. */
  payableCents: number;
  status: SettlementStatus;
  payoutMethod: "mpesa" | "bank";
  payoutReference: string | null;
  failureReason: string | null;
  paidAt: string | null;
  /** The open M-Pesa attempt waiting for a second administrator, and who asked for it. */
  awaitingApprovalBy: string | null;
}

async function settlementsOf(where: SQL, limit: number, offset = 0) {
  const rows = await queryRows<{
    id: string;
    partner_id: string;
    partner_name: string;
    period: string;
    transactions: number;
    revenue_cents: string;
    partner_cents: string;
    withholding_bps: number;
    withholding_cents: string;
    net_cents: string;
    carried_in_cents: string;
    carried_out_cents: string;
    payable_cents: string;
    status: SettlementStatus;
    payout_method: "mpesa" | "bank";
    payout_reference: string | null;
    failure_reason: string | null;
    paid_at: string | Date | null;
    awaiting_by: string | null;
    total: number;
  }>(
    db(),
    sql`select s.id, s.partner_id, p.name as partner_name, s.period::text, s.transactions, s.revenue_cents::text, s.partner_cents::text,
               s.withholding_bps, s.withholding_cents::text, s.net_cents::text, s.carried_in_cents::text, s.carried_out_cents::text,
               s.payable_cents::text, s.status, s.payout_method, s.payout_reference,
               s.failure_reason, s.paid_at,
               (select x.requested_by::text from partner_payouts x where x.settlement_id = s.id and x.status = 'awaiting_approval') as awaiting_by,
               count(*) over ()::int as total
        from partner_settlements s join partners p on p.id = s.partner_id
        where ${where}
        order by s.period desc, lower(p.name), s.id
        limit ${limit} offset ${offset}`,
  );
  return Object.assign(
    rows.map((r): SettlementRow => ({
      id: r.id,
      partnerId: r.partner_id,
      partnerName: r.partner_name,
      period: r.period,
      transactions: r.transactions,
      revenueCents: Number(r.revenue_cents),
      partnerCents: Number(r.partner_cents),
      withholdingBps: r.withholding_bps,
      withholdingCents: Number(r.withholding_cents),
      netCents: Number(r.net_cents),
      carriedInCents: Number(r.carried_in_cents),
      carriedOutCents: Number(r.carried_out_cents),
      payableCents: Number(r.payable_cents),
      status: r.status,
      payoutMethod: r.payout_method,
      payoutReference: r.payout_reference,
      failureReason: r.failure_reason,
      paidAt: r.paid_at ? new Date(r.paid_at).toISOString() : null,
      awaitingApprovalBy: r.awaiting_by,
    })),
    { total: rows[0]?.total ?? 0 },
  );
}

export const SETTLEMENTS_PAGE_SIZE = 25;

export function parseSettlementFilters(params: URLSearchParams) {
  const status = params.get("status");
  const partner = params.get("partner") ?? "";
  const page = Number(params.get("page"));
  return {
    status: SETTLEMENT_STATUSES.find((s) => s === status) ?? null,
    partnerId: isUuid(partner) ? partner : null,
    page: Number.isInteger(page) && page > 0 && page < 10_000 ? page : 1,
  };
}

/** The Settlements tab: newest month first, by status and partner, a page of 25. */
export async function settlementPage(_scope: PlatformScope, filters: ReturnType<typeof parseSettlementFilters>) {
  const where: SQL[] = [sql`true`];
  if (filters.status) where.push(sql`s.status = ${filters.status}`);
  if (filters.partnerId) where.push(sql`s.partner_id = ${filters.partnerId}`);
  const rows = await settlementsOf(sql.join(where, sql` and `), SETTLEMENTS_PAGE_SIZE, (filters.page - 1) * SETTLEMENTS_PAGE_SIZE);
  return { rows: [...rows], page: filters.page, pages: Math.max(1, Math.ceil(rows.total / SETTLEMENTS_PAGE_SIZE)) };
}

/** One settlement for its dialog; null when there is none. */
export async function settlementDetail(_scope: PlatformScope, settlementId: string) {
  if (!isUuid(settlementId)) return null;
  const [row] = await settlementsOf(sql`s.id = ${settlementId}`, 1);
  return row ?? null;
}

/**
 * A partner organisation's own programme (read-only): its partner record, clients, latest
 * transactions and settlements; null when the organisation is not a partner. Only ever by the
 * signed-in member's own organisation id.
 */
export async function ownProgramme(organizationId: string) {
  const partner = await queryRow<{
    id: string;
    name: string;
    code: string;
    category: string;
    status: PartnerStatus;
    share_bps: number;
    payout_method: "mpesa" | "bank";
    mpesa_phone: string | null;
    revenue: string | null;
    partner: string | null;
    platform: string | null;
    n: number;
    month_partner: string | null;
  }>(
    db(),
    sql`select p.id, p.name, p.code, p.category, p.status, p.share_bps, p.payout_method, p.mpesa_phone,
               t.revenue, t.partner, t.platform, t.n,
               (select sum(partner_cents)::text from partner_transactions where partner_id = p.id and occurred_at >= ${monthStart(0)}) as month_partner
        from partners p ${PARTNER_TOTALS}
        where p.organization_id = ${organizationId}`,
  );
  if (!partner) return null;
  const [clients, transactions, settlements, nextSettlement, underReview] = await Promise.all([
    partner.status === "pending" ? [] : clientsOf(partner.id),
    partner.status === "pending"
      ? { rows: [], newer: null, older: null }
      : transactionPage({ partnerId: null, month: null, kind: null, organizationPartnerId: partner.id }, {}, 20),
    partner.status === "pending" ? [] : settlementsOf(sql`s.partner_id = ${partner.id}`, 24),
    nextSettlementDay(),
    partner.status === "pending" ? [] : ownReferralsUnderReview(partner.id),
  ]);
  return {
    id: partner.id,
    name: partner.name,
    code: partner.code,
    category: partner.category,
    status: partner.status,
    shareBps: partner.share_bps,
    payoutMethod: partner.payout_method,
    mpesaPhone: partner.mpesa_phone,
    totals: split(partner),
    thisMonthPartnerCents: Number(partner.month_partner ?? 0),
    nextSettlement,
    clients,
    transactions: transactions.rows,
    settlements: [...settlements],
    /** Sign-ups from its link held for review: when, never who (decision 104). */
    underReview,
  };
}
